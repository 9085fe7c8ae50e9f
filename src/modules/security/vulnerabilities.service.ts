// Writes of vulnerabilities: one made from a finding (spec §4.9) and the state actions (§4.10).
// Each action changes the row only when it is not already in the target state, in one
// conditional update, so two callers at once cannot both change it: the other gets null (304).
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import type { ProjectRow, VulnerabilitiesTable, VulnerabilityRow } from '../../db/schema.ts';
import { SEVERITY_LEVEL, type Severity } from '../../ci/reports/security.ts';
import type { Updateable } from 'kysely';

export const FINDING_UNAVAILABLE = 'finding is not found or is already attached to a vulnerability';
const TITLE_LIMIT = 255;

/** A new vulnerability from a finding of the project that has none yet (§4.9 defaults: the caller, the finding's name, `opened`). */
export async function createFromFinding(ctx: ServiceContext, project: ProjectRow, findingId: number): Promise<VulnerabilityRow> {
  const actor = requireActor(ctx);
  const refused = () => invalidFields({ base: [FINDING_UNAVAILABLE] });
  return withTransaction(ctx, async (tx) => {
    const finding = await tx.db
      .selectFrom('vulnerability_occurrences')
      .selectAll()
      .where('id', '=', findingId)
      .where('project_id', '=', project.id)
      .where('vulnerability_id', 'is', null)
      .executeTakeFirst();
    if (!finding) throw refused();
    const now = tx.now().toISOString();
    const vulnerability = await tx.db
      .insertInto('vulnerabilities')
      .values({
        project_id: project.id,
        author_id: actor.user.id,
        title: finding.name.slice(0, TITLE_LIMIT),
        description: finding.description,
        state: 'opened',
        severity: finding.severity,
        severity_level: SEVERITY_LEVEL[finding.severity as Severity] ?? 0,
        confidence: finding.confidence,
        report_type: finding.report_type,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    // Attached only if still free: a concurrent creation from the same finding loses here.
    const attached = await tx.db
      .updateTable('vulnerability_occurrences')
      .set({ vulnerability_id: vulnerability.id, updated_at: now })
      .where('id', '=', finding.id)
      .where('vulnerability_id', 'is', null)
      .executeTakeFirst();
    if (Number(attached.numUpdatedRows) === 0) throw refused();
    return vulnerability;
  });
}

export const VULNERABILITY_ACTIONS = ['confirm', 'resolve', 'dismiss', 'revert'] as const;
export type VulnerabilityAction = (typeof VULNERABILITY_ACTIONS)[number];

const TARGET: Record<VulnerabilityAction, string> = { confirm: 'confirmed', resolve: 'resolved', dismiss: 'dismissed', revert: 'detected' };

/** The row's changes for an action by a user at a time: who did it and when; a revert clears them all. */
function changesFor(action: VulnerabilityAction, userId: number, at: string): Updateable<VulnerabilitiesTable> {
  const state = TARGET[action];
  switch (action) {
    case 'confirm':
      return { state, confirmed_by_id: userId, confirmed_at: at, updated_at: at };
    case 'resolve':
      return { state, resolved_by_id: userId, resolved_at: at, updated_at: at };
    case 'dismiss':
      return { state, dismissed_by_id: userId, dismissed_at: at, updated_at: at };
    case 'revert':
      return { state, confirmed_by_id: null, confirmed_at: null, resolved_by_id: null, resolved_at: null, dismissed_by_id: null, dismissed_at: null, updated_at: at };
  }
}

/** Moves the vulnerability to the action's state; null when it is already there (304). */
export async function changeState(ctx: ServiceContext, vulnerability: VulnerabilityRow, action: VulnerabilityAction): Promise<VulnerabilityRow | null> {
  const actor = requireActor(ctx);
  const target = TARGET[action];
  const row = await ctx.db
    .updateTable('vulnerabilities')
    .set(changesFor(action, actor.user.id, ctx.now().toISOString()))
    .where('id', '=', vulnerability.id)
    .where('state', '!=', target)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}
