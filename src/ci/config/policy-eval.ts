// only / except (build/policy/*.rb): a job runs when every part of `only` holds and no part of
// `except` does. refs: any pattern matches; variables: any expression is true; changes: any
// changed path matches; kubernetes: never active here (Quarry has no clusters).
import type { PipelineFacts } from './conditions.ts';
import type { Policy } from './types.ts';

export function policyIncludes(only: Policy | null, except: Policy | null, facts: PipelineFacts, variables: Record<string, string>): boolean {
  const parts = (policy: Policy): boolean[] => {
    const out: boolean[] = [];
    if (policy.refs !== undefined) out.push(policy.refs.some((pattern) => facts.refMatches(pattern)));
    if (policy.variables !== undefined) out.push(policy.variables.some((expression) => facts.expression(expression, variables)));
    if (policy.changes !== undefined) out.push(changesPolicy(policy.changes, facts, variables));
    if (policy.kubernetes !== undefined) out.push(false);
    return out;
  };
  if (only && !parts(only).every(Boolean)) return false;
  if (except && parts(except).some(Boolean)) return false;
  return true;
}

/** only:changes holds for pipelines that have no diff to look at (tags, schedules, web…). */
function changesPolicy(globs: readonly string[], facts: PipelineFacts, variables: Record<string, string>): boolean {
  return facts.changes(globs, variables);
}
