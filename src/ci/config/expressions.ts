// The `rules:if` / `only:variables` expression language (Gitlab::Ci::Pipeline::Expression): a
// lexer over `$VAR`, strings, `/regex/flags`, `null`, `==`, `!=`, `=~`, `!~`, `&&`, `||` and
// parentheses; a precedence parser (comparisons, then &&, then ||); Ruby's truthiness when it is
// evaluated. At most 100 tokens, so that evaluation is bounded.
import { compileRubyRegex, type UserRegex } from './regex.ts';

export const MAX_EXPRESSION_TOKENS = 100;

export class ExpressionSyntaxError extends Error {}

type Token =
  | { kind: 'variable'; name: string }
  | { kind: 'string'; value: string }
  | { kind: 'pattern'; source: string; regex: UserRegex }
  | { kind: 'null' }
  | { kind: 'op'; op: '==' | '!=' | '=~' | '!~' | '&&' | '||' }
  | { kind: 'open' }
  | { kind: 'close' };

type Node =
  | { kind: 'variable'; name: string }
  | { kind: 'string'; value: string }
  | { kind: 'pattern'; regex: UserRegex }
  | { kind: 'null' }
  | { kind: 'binary'; op: '==' | '!=' | '=~' | '!~' | '&&' | '||'; left: Node; right: Node };

type Value = string | null | boolean | UserRegex;

const OPERATORS = ['==', '!=', '=~', '!~', '&&', '||'] as const;

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (token: Token) => {
    tokens.push(token);
    if (tokens.length > MAX_EXPRESSION_TOKENS) throw new ExpressionSyntaxError('Too many tokens!');
  };
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '$') {
      let j = i + 1;
      while (j < text.length && /\w/.test(text[j])) j++;
      if (j === i + 1) throw new ExpressionSyntaxError('Unknown lexeme found');
      push({ kind: 'variable', name: text.slice(i + 1, j) });
      i = j;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw new ExpressionSyntaxError('Unknown lexeme found');
      push({ kind: 'string', value: text.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (c === '/') {
      // Up to the first slash not escaped by a backslash, then Ruby's flags.
      let j = i + 1;
      while (j < text.length && text[j] !== '/') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length || j === i + 1) throw new ExpressionSyntaxError('Unknown lexeme found');
      let k = j + 1;
      while (k < text.length && 'ismU'.includes(text[k])) k++;
      const source = text.slice(i, k).replace(/\\\//g, '/');
      const regex = compileRubyRegex(source);
      if (!regex) throw new ExpressionSyntaxError('Invalid regular expression!');
      push({ kind: 'pattern', source, regex });
      i = k;
      continue;
    }
    if (text.startsWith('null', i) && !/\w/.test(text[i + 4] ?? '')) {
      push({ kind: 'null' });
      i += 4;
      continue;
    }
    if (c === '(' || c === ')') {
      push({ kind: c === '(' ? 'open' : 'close' });
      i++;
      continue;
    }
    const op = OPERATORS.find((candidate) => text.startsWith(candidate, i));
    if (op) {
      push({ kind: 'op', op });
      i += 2;
      continue;
    }
    throw new ExpressionSyntaxError('Unknown lexeme found');
  }
  return tokens;
}

const PRECEDENCE: Record<string, number> = { '||': 1, '&&': 2, '==': 3, '!=': 3, '=~': 3, '!~': 3 };

/** Recursive descent by precedence climbing; the depth is bounded by the token limit. */
function parse(tokens: Token[]): Node {
  let position = 0;
  const primary = (): Node => {
    const token = tokens[position++];
    if (!token) throw new ExpressionSyntaxError('Invalid expression');
    switch (token.kind) {
      case 'variable':
        return { kind: 'variable', name: token.name };
      case 'string':
        return { kind: 'string', value: token.value };
      case 'pattern':
        return { kind: 'pattern', regex: token.regex };
      case 'null':
        return { kind: 'null' };
      case 'open': {
        const inner = binary(0);
        if (tokens[position]?.kind !== 'close') throw new ExpressionSyntaxError('Unbalanced parenthesis');
        position++;
        return inner;
      }
      default:
        throw new ExpressionSyntaxError('Invalid expression');
    }
  };
  const binary = (minimum: number): Node => {
    let left = primary();
    for (;;) {
      const token = tokens[position];
      if (!token || token.kind !== 'op' || PRECEDENCE[token.op] <= minimum) return left;
      position++;
      const right = binary(PRECEDENCE[token.op]);
      left = { kind: 'binary', op: token.op, left, right };
    }
  };
  if (tokens.length === 0) throw new ExpressionSyntaxError('Invalid expression');
  const tree = binary(0);
  if (position !== tokens.length) throw new ExpressionSyntaxError(tokens[position].kind === 'close' ? 'Unbalanced parenthesis' : 'Invalid expression');
  return tree;
}

function isRegex(value: Value): value is UserRegex {
  return typeof value === 'object' && value !== null;
}

function truthy(value: Value): boolean {
  return value !== null && value !== false;
}

/** Ruby's `present?`: nil, false and blank strings are not. */
function present(value: Value): boolean {
  if (typeof value === 'string') return value.trim() !== '';
  return truthy(value);
}

function evaluateNode(node: Node, variables: Record<string, string>): Value {
  switch (node.kind) {
    case 'variable':
      return Object.hasOwn(variables, node.name) ? variables[node.name] : null;
    case 'string':
      return node.value;
    case 'null':
      return null;
    case 'pattern':
      return node.regex;
    case 'binary': {
      const left = evaluateNode(node.left, variables);
      if (node.op === '&&') return truthy(left) ? evaluateNode(node.right, variables) : left;
      if (node.op === '||') return truthy(left) ? left : evaluateNode(node.right, variables);
      const right = evaluateNode(node.right, variables);
      if (node.op === '==') return equal(left, right);
      if (node.op === '!=') return !equal(left, right);
      const matched = matches(left, right);
      if (matched === null) return node.op === '!~';
      return node.op === '=~' ? matched : !matched;
    }
  }
}

function equal(left: Value, right: Value): boolean {
  if (isRegex(left) || isRegex(right)) return left === right;
  return left === right;
}

/** null when the right side is no pattern (the platform answers false for =~ and true for !~). */
function matches(left: Value, right: Value): boolean | null {
  let regex: UserRegex | null = null;
  if (isRegex(right)) regex = right;
  // A pattern held in a variable is read as `/…/flags` (the platform does so since 15.0).
  else if (typeof right === 'string') regex = compileRubyRegex(right);
  if (!regex) return null;
  const text = typeof left === 'string' ? left : '';
  return regex.test(text);
}

export interface ExpressionResult {
  value: boolean;
  /** The syntax error, for lint; the value is then false. */
  error: string | null;
}

/** Evaluates with the reason a malformed expression counts as false. */
export function evaluateExpressionDetailed(expression: string, variables: Record<string, string>): ExpressionResult {
  try {
    return { value: present(evaluateNode(parse(lex(expression)), variables)), error: null };
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) return { value: false, error: error.message };
    throw error;
  }
}

/** The expression's truth for `variables`; a syntax error counts as false, as in rules. */
export function evaluateExpression(expression: string, variables: Record<string, string>): boolean {
  return evaluateExpressionDetailed(expression, variables).value;
}

/** The syntax error of an expression, or null when it parses. */
export function expressionSyntaxError(expression: string): string | null {
  try {
    parse(lex(expression));
    return null;
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) return error.message;
    throw error;
  }
}
