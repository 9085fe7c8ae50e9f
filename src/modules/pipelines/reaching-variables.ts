// The CI/CD variables that reach a pipeline's jobs: the instance's, then each group's from the
// root down, then the project's (a later one of a key wins, notes gitlab-ci.md §3.4). Protected
// variables reach only pipelines of protected refs; a variable scoped to environments reaches only
// jobs deploying to a matching one.
import type { Kysely } from 'kysely';
import type { SecretBox } from '../../core/secret-box.ts';
import type { CiVariableRow, DB } from '../../db/schema.ts';
import { type CiVariable, storedVar } from '../../ci/variables.ts';

export interface ScopedVariable {
  variable: CiVariable;
  environmentScope: string;
}

const OWNER_ORDER: Record<string, number> = { instance: 0, group: 1, project: 2 };

/** The variables of the instance, the project's groups and the project, in the order they apply. */
export async function variablesForProject(
  db: Kysely<DB>,
  box: SecretBox,
  project: { id: number; namespaceTraversal: readonly number[] },
  protectedRef: boolean,
): Promise<ScopedVariable[]> {
  const groups = project.namespaceTraversal;
  let query = db
    .selectFrom('ci_variables')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('owner_type', '=', 'instance'),
        eb.and([eb('owner_type', '=', 'project'), eb('owner_id', '=', project.id)]),
        ...(groups.length > 0 ? [eb.and([eb('owner_type', '=', 'group'), eb('owner_id', 'in', [...groups])])] : []),
      ]),
    );
  if (!protectedRef) query = query.where('protected', '=', false);
  const rows = await query.execute();
  const depth = new Map(groups.map((id, i) => [id, i]));
  const rank = (r: CiVariableRow) => OWNER_ORDER[r.owner_type] * 1e6 + (r.owner_type === 'group' ? (depth.get(r.owner_id) ?? 0) : 0);
  rows.sort((a, b) => rank(a) - rank(b) || a.id - b.id);
  return rows.map((r) => ({ variable: storedVar({ ...r, value: box.open(r.value_encrypted) }), environmentScope: r.environment_scope }));
}

/** Whether an environment scope (`*`, a name, or a pattern with `*`) covers an environment; no environment is covered by `*` only. */
export function scopeCovers(scope: string, environment: string | null): boolean {
  if (scope === '*') return true;
  if (environment === null) return false;
  const pattern = new RegExp(`^${scope.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return pattern.test(environment);
}

/** The variables that apply to a job deploying to `environment` (null: none). */
export function variablesForEnvironment(scoped: readonly ScopedVariable[], environment: string | null): CiVariable[] {
  return scoped.filter((s) => scopeCovers(s.environmentScope, environment)).map((s) => s.variable);
}
