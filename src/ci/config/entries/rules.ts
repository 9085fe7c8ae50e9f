// `rules:` of jobs and of `workflow:` (entry/rules.rb, entry/rules/rule.rb): a list (nested lists
// flattened) of mappings with if / changes / exists / when / start_in / allow_failure / variables.
import { parseDuration, WEEK_SECONDS } from '../duration.ts';
import { expressionSyntaxError } from '../expressions.ts';
import type { Rule } from '../types.ts';
import { isHash } from '../yaml-loader.ts';
import { checkKeys, entryFail, isArrayOfStrings, isString } from './errors.ts';
import { variableMap } from './variables.ts';

const JOB_RULE_KEYS = ['if', 'changes', 'exists', 'when', 'start_in', 'allow_failure', 'variables'];
const WORKFLOW_RULE_KEYS = ['if', 'changes', 'exists', 'when', 'variables'];
export const JOB_RULE_WHEN = ['on_success', 'on_failure', 'always', 'never', 'manual', 'delayed'];
export const WORKFLOW_RULE_WHEN = ['always', 'never'];

export function rules(location: string, value: unknown, workflow: boolean): Rule[] {
  if (!Array.isArray(value)) entryFail(location, 'config should be an array of hashes');
  const flat: unknown[] = [];
  const visit = (item: unknown, level: number) => {
    if (Array.isArray(item) && level < 10) for (const inner of item) visit(inner, level + 1);
    else flat.push(item);
  };
  for (const item of value) visit(item, 1);
  return flat.map((item) => rule(`${location}:rule`, item, workflow));
}

function rule(location: string, value: unknown, workflow: boolean): Rule {
  if (!isHash(value)) entryFail(location, 'config should be a hash');
  checkKeys(location, value, workflow ? WORKFLOW_RULE_KEYS : JOB_RULE_KEYS);
  if (Object.keys(value).length === 0) entryFail(location, "config can't be blank");
  const out: Rule = {};
  if (value.if !== undefined && value.if !== null) {
    if (!isString(value.if) || expressionSyntaxError(value.if) !== null) entryFail(location, 'if invalid expression syntax');
    out.if = value.if;
  }
  if (value.changes !== undefined && value.changes !== null) {
    if (!isArrayOfStrings(value.changes)) entryFail(location, 'changes should be an array of strings');
    out.changes = value.changes;
  }
  if (value.exists !== undefined && value.exists !== null) {
    if (!isArrayOfStrings(value.exists)) entryFail(location, 'exists should be an array of strings');
    out.exists = value.exists;
  }
  const allowedWhen = workflow ? WORKFLOW_RULE_WHEN : JOB_RULE_WHEN;
  if (value.when !== undefined && value.when !== null) {
    if (!isString(value.when) || !allowedWhen.includes(value.when)) entryFail(location, `when unknown value: ${String(value.when)}`);
    out.when = value.when;
  }
  if (value.start_in !== undefined && value.start_in !== null) {
    if (out.when !== 'delayed') entryFail(location, 'start_in must be blank when not delayed');
    const seconds = parseDuration(value.start_in);
    if (seconds === null || seconds === 'never') entryFail(location, 'start_in should be a duration');
    if (seconds > WEEK_SECONDS) entryFail(location, 'start_in should not exceed the limit');
    out.start_in = String(value.start_in);
  } else if (out.when === 'delayed') {
    entryFail(location, 'start_in should be a duration');
  }
  if (value.allow_failure !== undefined && value.allow_failure !== null) {
    if (typeof value.allow_failure !== 'boolean') entryFail(location, 'allow_failure should be a boolean value');
    out.allow_failure = value.allow_failure;
  }
  if (value.variables !== undefined && value.variables !== null) out.variables = variableMap(`${location}:variables`, value.variables);
  return out;
}
