import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateExpression, evaluateExpressionDetailed, expressionSyntaxError, MAX_EXPRESSION_TOKENS } from './expressions.ts';

const vars = { BRANCH: 'main', EMPTY: '', SPACE: '  ', TAG: 'v1.2.3', PATTERN: '/^v\\d/', NAME: 'Feature/Login' };
const truth = (expression: string) => evaluateExpression(expression, vars);

test('a bare variable is true when defined and not blank', () => {
  assert.equal(truth('$BRANCH'), true);
  assert.equal(truth('$EMPTY'), false);
  assert.equal(truth('$SPACE'), false);
  assert.equal(truth('$UNDEFINED'), false);
});

test('equality compares strings; an undefined variable equals null, an empty one does not', () => {
  assert.equal(truth('$BRANCH == "main"'), true);
  assert.equal(truth("$BRANCH == 'main'"), true);
  assert.equal(truth('"main" == $BRANCH'), true);
  assert.equal(truth('$BRANCH != "main"'), false);
  assert.equal(truth('$UNDEFINED == null'), true);
  assert.equal(truth('$EMPTY == null'), false);
  assert.equal(truth('$EMPTY == ""'), true);
  assert.equal(truth('$BRANCH != null'), true);
  assert.equal(truth('$BRANCH == $BRANCH'), true);
  assert.equal(truth('$UNDEFINED == $OTHER_UNDEFINED'), true);
});

test('regular expressions match anywhere, with Ruby flags, through RE2', () => {
  assert.equal(truth('$TAG =~ /^v\\d+/'), true);
  assert.equal(truth('$TAG =~ /\\d$/'), true);
  assert.equal(truth('$NAME =~ /^feature/'), false);
  assert.equal(truth('$NAME =~ /^feature/i'), true);
  assert.equal(truth('$NAME !~ /^feature/'), true);
  assert.equal(truth('$BRANCH =~ /a\\/b/'), false);
  // an undefined variable is matched as the empty string
  assert.equal(truth('$UNDEFINED =~ /.*/'), true);
  assert.equal(truth('$UNDEFINED =~ /x/'), false);
  assert.equal(truth('$UNDEFINED !~ /x/'), true);
});

test('a pattern held in a variable is read as a regular expression', () => {
  assert.equal(truth('$TAG =~ $PATTERN'), true);
  assert.equal(truth('$BRANCH =~ $PATTERN'), false);
  assert.equal(truth('$BRANCH =~ $BRANCH'), false, 'a value without slashes is no pattern');
});

test('&& binds tighter than ||, parentheses group, Ruby truthiness', () => {
  assert.equal(truth('$BRANCH == "main" || $X && $Y'), true);
  assert.equal(truth('($BRANCH == "x" || $TAG) && $UNDEFINED'), false);
  assert.equal(truth('$UNDEFINED || $BRANCH == "main" && $TAG =~ /v/'), true);
  assert.equal(truth('($UNDEFINED || $BRANCH) == "main"'), true);
  // "" is truthy in Ruby: the && yields its right side
  assert.equal(truth('$EMPTY && $BRANCH'), true);
  assert.equal(truth('$UNDEFINED && $BRANCH'), false);
});

test('syntax errors count as false, with the reason for lint', () => {
  for (const bad of ['', '$', '$A ==', '== "a"', '"unterminated', '$A = "b"', '($A', '$A)', '$A == "a" &&', 'foo', '$A =~ /(/']) {
    assert.equal(truth(bad), false, bad);
    assert.notEqual(expressionSyntaxError(bad), null, bad);
  }
  assert.equal(evaluateExpressionDetailed('$A ==', vars).error, 'Invalid expression');
  assert.equal(evaluateExpressionDetailed('$BRANCH', vars).error, null);
});

test('an expression longer than the token limit is refused', () => {
  const long = Array.from({ length: MAX_EXPRESSION_TOKENS }, () => '$A').join(' || ');
  assert.equal(evaluateExpressionDetailed(long, vars).error, 'Too many tokens!');
  const fits = Array.from({ length: 50 }, () => '$BRANCH').join(' || ');
  assert.equal(truth(fits), true);
});

test('a catastrophic regular expression runs in linear time', () => {
  const text = 'a'.repeat(50_000) + '!';
  const started = Date.now();
  assert.equal(evaluateExpression('$T =~ /^(a+)+$/', { T: text }), false);
  assert.equal(evaluateExpression('$T =~ /(a|aa)*b/', { T: text }), false);
  assert.ok(Date.now() - started < 2000);
});

test('backreferences and lookarounds, which RE2 lacks, are syntax errors', () => {
  assert.notEqual(expressionSyntaxError('$A =~ /(a)\\1/'), null);
  assert.notEqual(expressionSyntaxError('$A =~ /a(?=b)/'), null);
});
