// Writes of milestones (14.x Milestones::CreateService, UpdateService with CloseService and
// ReopenService, DestroyService and PromoteService). A project's milestone records activity events
// (created, closed, reopened, destroyed); a group's records none, as on the platform. Deleting a
// milestone takes it off its issues and merge requests, each with a "removed milestone" note.
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { apiError } from '../../core/errors.ts';
import type { MilestoneRow, NamespaceRow } from '../../db/schema.ts';
import { recordEvent } from '../../domain/activity-events.ts';
import { nextGroupInternalId, nextInternalId } from '../../domain/internal-ids.ts';
import { fullMessage } from '../../domain/validation.ts';
import { type Noteable, addSystemNotes } from '../notes/notes.service.ts';
import { type MilestoneParent, groupHasTitle, projectMilestonesInGroup, titleTaken } from './milestones.finder.ts';
import type { CreateMilestoneBody, UpdateMilestoneBody } from './milestones.schemas.ts';
import { TITLE_TAKEN, dateParam, milestoneErrors, refuseInvalid, titleOf } from './milestones.validation.ts';

type MilestoneAction = 'created' | 'closed' | 'reopened' | 'destroyed';

/** The activity event of a project's milestone; a group's milestone records none. */
async function recordMilestoneEvent(ctx: ServiceContext, milestone: MilestoneRow, action: MilestoneAction): Promise<void> {
  if (milestone.project_id === null) return;
  await recordEvent(ctx, {
    projectId: milestone.project_id,
    authorId: requireActor(ctx).user.id,
    action,
    targetType: 'Milestone',
    targetId: milestone.id,
    targetIid: milestone.iid,
    targetTitle: milestone.title,
  });
}

/** POST /projects/:id/milestones and /groups/:id/milestones. */
export async function createMilestone(ctx: ServiceContext, parent: MilestoneParent, body: CreateMilestoneBody): Promise<MilestoneRow> {
  requireActor(ctx);
  const fields = { title: titleOf(body.title) ?? null, start_date: dateParam(body.start_date, 'start_date') ?? null, due_date: dateParam(body.due_date, 'due_date') ?? null };
  const taken = !!fields.title && (await titleTaken(ctx.db, parent, fields.title, null));
  refuseInvalid(milestoneErrors(fields, taken), 'create');
  return withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const iid = 'project' in parent ? await nextInternalId(tx, parent.project.id, 'milestones') : await nextGroupInternalId(tx, parent.group.id, 'milestones');
    const milestone = await tx.db
      .insertInto('milestones')
      .values({
        project_id: 'project' in parent ? parent.project.id : null,
        group_id: 'group' in parent ? parent.group.id : null,
        iid,
        title: String(fields.title),
        description: body.description ?? null,
        state: 'active',
        start_date: fields.start_date,
        due_date: fields.due_date,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordMilestoneEvent(tx, milestone, 'created');
    return milestone;
  });
}

/** The state a state_event leads to; closing a closed milestone (or activating an active one) changes nothing. */
function nextState(current: string, event: UpdateMilestoneBody['state_event']): string {
  if (event === 'close') return 'closed';
  if (event === 'activate') return 'active';
  return current;
}

/**
 * PUT …/milestones/:milestone_id: the fields given (a blank title keeps the title; blank or null
 * dates clear them), validated as a whole, and the state event. Unlike the platform, which closes
 * or reopens before it validates the rest, a refused update changes nothing at all.
 */
export async function updateMilestone(ctx: ServiceContext, parent: MilestoneParent, milestone: MilestoneRow, body: UpdateMilestoneBody): Promise<MilestoneRow> {
  requireActor(ctx);
  const start = dateParam(body.start_date, 'start_date');
  const due = dateParam(body.due_date, 'due_date');
  const fields = { title: titleOf(body.title) ?? milestone.title, start_date: start === undefined ? milestone.start_date : start, due_date: due === undefined ? milestone.due_date : due };
  const description = body.description === undefined ? milestone.description : body.description;
  const state = nextState(milestone.state, body.state_event);
  const taken = !!fields.title && fields.title !== milestone.title && (await titleTaken(ctx.db, parent, fields.title, milestone.id));
  refuseInvalid(milestoneErrors(fields, taken), 'update');
  const changed =
    fields.title !== milestone.title || description !== milestone.description || fields.start_date !== milestone.start_date || fields.due_date !== milestone.due_date || state !== milestone.state;
  if (!changed) return milestone;
  return withTransaction(ctx, async (tx) => {
    const updated = await tx.db
      .updateTable('milestones')
      .set({ title: fields.title, description, start_date: fields.start_date, due_date: fields.due_date, state, updated_at: tx.now().toISOString() })
      .where('id', '=', milestone.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (state !== milestone.state) await recordMilestoneEvent(tx, updated, state === 'closed' ? 'closed' : 'reopened');
    return updated;
  });
}

/**
 * DELETE …/milestones/:milestone_id: its issues and merge requests lose it (each with a system
 * note, as an edit would make), a project's milestone records its `destroyed` event, and its
 * events then name no target, as the platform shows them once the milestone is gone.
 */
export async function deleteMilestone(ctx: ServiceContext, milestone: MilestoneRow): Promise<void> {
  const actor = requireActor(ctx).user;
  await withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const off = { milestone_id: null, updated_at: at, updated_by_id: actor.id };
    const columns = ['id', 'iid', 'project_id', 'title'] as const;
    const [issues, mergeRequests] = [
      await tx.db.updateTable('issues').set(off).where('milestone_id', '=', milestone.id).returning(columns).execute(),
      await tx.db.updateTable('merge_requests').set(off).where('milestone_id', '=', milestone.id).returning(columns).execute(),
    ];
    const noteable = (type: Noteable['type']) => (row: (typeof issues)[number]): Noteable => ({ type, id: row.id, iid: row.iid, projectId: row.project_id, title: row.title });
    await addSystemNotes(tx, [...issues.map(noteable('Issue')), ...mergeRequests.map(noteable('MergeRequest'))], 'removed milestone');
    if (milestone.project_id !== null) {
      await recordMilestoneEvent(tx, milestone, 'destroyed');
      await tx.db.updateTable('events').set({ target_id: null, target_iid: null, target_title: null }).where('target_type', '=', 'Milestone').where('target_id', '=', milestone.id).execute();
    }
    await tx.db.deleteFrom('milestones').where('id', '=', milestone.id).execute();
  });
}

/**
 * POST /projects/:id/milestones/:milestone_id/promote: a milestone of the project's group takes the
 * title, description and dates (and starts active, as the platform's copy does), then replaces every
 * milestone of that title of the projects directly in the group: their issues and merge requests
 * move to it (unchanged otherwise, without notes), their events go, and they are deleted. A group
 * that already has a milestone of the title refuses the promotion, where the platform would keep two.
 */
export async function promoteMilestone(ctx: ServiceContext, milestone: MilestoneRow, group: NamespaceRow): Promise<MilestoneRow> {
  requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const { db } = tx;
    if (await groupHasTitle(db, group.id, milestone.title)) throw apiError(400, `Promotion failed - ${fullMessage('title', TITLE_TAKEN)}`);
    const at = tx.now().toISOString();
    const promoted = await db
      .insertInto('milestones')
      .values({
        project_id: null,
        group_id: group.id,
        iid: await nextGroupInternalId(tx, group.id, 'milestones'),
        title: milestone.title,
        description: milestone.description,
        state: 'active',
        start_date: milestone.start_date,
        due_date: milestone.due_date,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const merged = await projectMilestonesInGroup(db, group.id, milestone.title);
    if (merged.length > 0) {
      await db.updateTable('issues').set({ milestone_id: promoted.id }).where('milestone_id', 'in', merged).execute();
      await db.updateTable('merge_requests').set({ milestone_id: promoted.id }).where('milestone_id', 'in', merged).execute();
      await db.deleteFrom('events').where('target_type', '=', 'Milestone').where('target_id', 'in', merged).execute();
      await db.deleteFrom('milestones').where('id', 'in', merged).execute();
    }
    return promoted;
  });
}
