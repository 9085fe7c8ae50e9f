// Evaluation of `rules:` lists (build/rules.rb): the first rule whose clauses all hold decides;
// no match means `never`. A rule without clauses always holds.
import type { PipelineFacts } from './conditions.ts';
import type { Rule } from './types.ts';

export interface RulesResult {
  when: string;
  startIn: string | null;
  allowFailure: boolean | null;
  variables: Record<string, string>;
}

export async function evaluateRules(
  rules: readonly Rule[],
  defaultWhen: string,
  facts: PipelineFacts,
  variables: Record<string, string>,
): Promise<RulesResult> {
  for (const rule of rules) {
    if (rule.if !== undefined && !facts.expression(rule.if, variables)) continue;
    if (rule.changes !== undefined && !facts.changes(rule.changes, variables)) continue;
    if (rule.exists !== undefined && !(await facts.exists(rule.exists))) continue;
    return {
      when: rule.when ?? defaultWhen,
      startIn: rule.start_in ?? null,
      allowFailure: rule.allow_failure ?? null,
      variables: rule.variables ?? {},
    };
  }
  return { when: 'never', startIn: null, allowFailure: null, variables: {} };
}
