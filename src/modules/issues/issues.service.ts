// Writing issues (14.x Issues::CreateService / UpdateService / CloseService / ReopenService):
// one transaction each, with the activity event, the system notes of what changed and the to-dos
// of whom it assigns or mentions (closing marks the closer's done). Fields
// only Reporters and up may set (assignees, milestone, labels, due date, lock, weight) are
// dropped for others, as the platform's filter_params does; `iid` and `created_at` are kept for
// administrators and owners only.
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { conflict, invalidFields } from '../../core/errors.ts';
import type { Kysely } from 'kysely';
import type { DB, IssueRow } from '../../db/schema.ts';
import { nextInternalId, trackInternalId } from '../../domain/internal-ids.ts';
import { labelsOf, mentionList, nextLabels, setLabelLinks, textErrors } from '../../domain/issuables.ts';
import { recordMilestoneEvent, recordStateEvent } from '../../domain/resource-events.ts';
import type { LabelRow, LabelScope } from '../../domain/labels.ts';
import { addError, atLeast } from '../../domain/validation.ts';
import { enqueueHookEvent, hookChanges } from '../../jobs/web-hooks.ts';
import { recordEvent } from '../events/events.service.ts';
import { type Noteable, addSystemNote } from '../notes/notes.service.ts';
import { type TodoTarget, assignmentTodos, deleteTargetTodos, mentionTodos, resolveTodos } from '../todos/todos.service.ts';

export interface IssueChanges {
  title?: string;
  description?: string | null;
  assigneeIds?: number[];
  milestoneId?: number | null;
  labels?: string[];
  addLabels?: string[];
  removeLabels?: string[];
  dueDate?: string | null;
  confidential?: boolean;
  discussionLocked?: boolean;
  weight?: number | null;
  issueType?: string;
  stateEvent?: 'close' | 'reopen';
}

/** What the caller may do beyond creating and editing its own issue. */
export interface IssuePowers {
  /** admin_issue: Reporter and up. */
  admin: boolean;
  /** set_issue_iid / set_issue_created_at: owners and administrators. */
  owner: boolean;
  /** Labels the project may use, and whether unknown titles become new project labels. */
  labelScope: LabelScope;
  createLabels: boolean;
  /** Users who may be assigned (those who may read the project); the others are dropped. Read through the writer's handle. */
  assignable: (db: Kysely<DB>, ids: number[]) => Promise<number[]>;
  /** The milestone id if the project may use it, else null. */
  milestone: (db: Kysely<DB>, id: number) => Promise<{ id: number; iid: number } | null>;
}

/** A due date as clients send it (YYYY-MM-DD or a date-time), as a date; anything else clears it. */
export function parseDueDate(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const date = /^\d{4}-\d{2}-\d{2}/.exec(raw)?.[0];
  return date && !Number.isNaN(Date.parse(date)) ? date : null;
}

function validate(changes: IssueChanges, creating: boolean): void {
  const errors = textErrors(changes, creating);
  if (changes.weight !== undefined && changes.weight !== null && changes.weight < 0) addError(errors, 'weight', atLeast(0));
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
}

/** Drops what the caller may not set. */
function permitted(changes: IssueChanges, powers: IssuePowers): IssueChanges {
  if (powers.admin) return changes;
  const { assigneeIds, milestoneId, labels, addLabels, removeLabels, dueDate, discussionLocked, weight, ...rest } = changes;
  return rest;
}

export const noteableOf = (issue: Pick<IssueRow, 'id' | 'iid' | 'project_id' | 'title'>): Noteable => ({
  type: 'Issue',
  id: issue.id,
  iid: issue.iid,
  projectId: issue.project_id,
  title: issue.title,
});

const todoTargetOf = (issue: Pick<IssueRow, 'id' | 'project_id'>): TodoTarget => ({ type: 'Issue', id: issue.id, projectId: issue.project_id });

/** The labels the issue has now. */
async function labelIdsOf(ctx: ServiceContext, issueId: number): Promise<LabelRow[]> {
  return (await labelsOf(ctx.db, 'Issue', [issueId])).get(issueId) ?? [];
}

async function assigneeIdsOf(ctx: ServiceContext, issueId: number): Promise<number[]> {
  const rows = await ctx.db.selectFrom('issue_assignees').select('user_id').where('issue_id', '=', issueId).execute();
  return rows.map((r) => Number(r.user_id));
}

/** The labels the issue ends up with: `labels` replaces, then `add_labels` and `remove_labels` apply. */
const resolveLabels = (ctx: ServiceContext, current: LabelRow[], changes: IssueChanges, powers: IssuePowers) => nextLabels(ctx, current, changes, powers.labelScope, powers.createLabels);

async function setLabels(ctx: ServiceContext, issue: IssueRow, current: LabelRow[], next: LabelRow[]): Promise<void> {
  const note = await setLabelLinks(ctx, 'Issue', issue.id, current, next);
  if (note !== null) await addSystemNote(ctx, noteableOf(issue), note);
}

async function setAssignees(ctx: ServiceContext, issue: IssueRow, current: number[], next: number[]): Promise<void> {
  const added = next.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !next.includes(id));
  if (added.length === 0 && removed.length === 0) return;
  if (removed.length > 0) await ctx.db.deleteFrom('issue_assignees').where('issue_id', '=', issue.id).where('user_id', 'in', removed).execute();
  if (added.length > 0) await ctx.db.insertInto('issue_assignees').values(added.map((user_id) => ({ issue_id: issue.id, user_id }))).execute();
  const parts = [];
  if (added.length > 0) parts.push(`assigned to ${await mentionList(ctx.db, added)}`);
  if (removed.length > 0) parts.push(`unassigned ${await mentionList(ctx.db, removed)}`);
  await addSystemNote(ctx, noteableOf(issue), parts.join(' and '));
  await assignmentTodos(ctx, todoTargetOf(issue), added, 'assigned');
}

/** POST /projects/:id/issues. */
export async function createIssue(
  ctx: ServiceContext,
  projectId: number,
  input: IssueChanges & { title: string; iid?: number; createdAt?: string },
  powers: IssuePowers,
): Promise<IssueRow> {
  const author = requireActor(ctx).user;
  const changes = permitted(input, powers);
  validate(changes, true);
  return withTransaction(ctx, async (tx) => {
    const at = powers.owner && input.createdAt ? new Date(input.createdAt).toISOString() : tx.now().toISOString();
    let iid: number;
    if (powers.owner && input.iid !== undefined) {
      const taken = await tx.db.selectFrom('issues').select('id').where('project_id', '=', projectId).where('iid', '=', input.iid).executeTakeFirst();
      if (taken) throw conflict('Duplicated issue');
      await trackInternalId(tx, projectId, 'issues', input.iid);
      iid = input.iid;
    } else {
      iid = await nextInternalId(tx, projectId, 'issues');
    }
    const milestone = changes.milestoneId ? await powers.milestone(tx.db, changes.milestoneId) : null;
    const issue = await tx.db
      .insertInto('issues')
      .values({
        project_id: projectId,
        iid,
        author_id: author.id,
        title: changes.title!.trim(),
        description: changes.description ?? null,
        issue_type: changes.issueType ?? 'issue',
        confidential: changes.confidential ?? false,
        discussion_locked: changes.discussionLocked ?? null,
        due_date: parseDueDate(changes.dueDate),
        weight: changes.weight ?? null,
        milestone_id: milestone?.id ?? null,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const labels = await resolveLabels(tx, [], changes, powers);
    if (labels && labels.length > 0) await setLabelLinks(tx, 'Issue', issue.id, [], labels);
    await recordMilestoneEvent(tx, { type: 'Issue', id: issue.id }, author.id, { from: null, to: issue.milestone_id, state: issue.state }, at);
    const assignees = changes.assigneeIds ? await powers.assignable(tx.db, changes.assigneeIds) : [];
    if (assignees.length > 0) await tx.db.insertInto('issue_assignees').values(assignees.map((user_id) => ({ issue_id: issue.id, user_id }))).execute();
    await recordEvent(tx, { projectId, authorId: author.id, action: 'created', targetType: 'Issue', targetId: issue.id, targetIid: issue.iid, targetTitle: issue.title });
    await assignmentTodos(tx, todoTargetOf(issue), assignees, 'assigned');
    await mentionTodos(tx, todoTargetOf(issue), { title: issue.title, markdown: issue.description });
    await enqueueHookEvent(tx.db, { projectId }, { kind: 'issue', issueId: issue.id, userId: author.id, action: 'open' });
    return issue;
  });
}

/** PUT /projects/:id/issues/:issue_iid. */
export async function updateIssue(ctx: ServiceContext, issue: IssueRow, input: IssueChanges & { updatedAt?: string }, powers: IssuePowers): Promise<IssueRow> {
  const actor = requireActor(ctx).user;
  const changes = permitted(input, powers);
  validate(changes, false);
  return withTransaction(ctx, async (tx) => {
    const at = powers.owner && input.updatedAt ? new Date(input.updatedAt).toISOString() : tx.now().toISOString();
    const noteable = noteableOf(issue);
    const set: Partial<IssueRow> = {};
    const notes: string[] = [];
    if (changes.title !== undefined && changes.title.trim() !== issue.title) {
      set.title = changes.title.trim();
      notes.push(`changed title from **${issue.title}** to **${set.title}**`);
    }
    if (changes.description !== undefined && (changes.description ?? null) !== issue.description) {
      set.description = changes.description ?? null;
      notes.push('changed the description');
    }
    if (set.title !== undefined || set.description !== undefined) {
      set.last_edited_at = at;
      set.last_edited_by_id = actor.id;
    }
    if (changes.confidential !== undefined && changes.confidential !== Boolean(issue.confidential)) {
      set.confidential = changes.confidential;
      notes.push(changes.confidential ? 'made the issue confidential' : 'made the issue visible to everyone');
    }
    if (changes.discussionLocked !== undefined && changes.discussionLocked !== Boolean(issue.discussion_locked)) {
      set.discussion_locked = changes.discussionLocked;
      notes.push(changes.discussionLocked ? 'locked this issue' : 'unlocked this issue');
    }
    if (changes.dueDate !== undefined) {
      const due = parseDueDate(changes.dueDate);
      if (due !== issue.due_date) {
        set.due_date = due;
        notes.push(due ? `changed due date to ${humanDate(due)}` : 'removed due date');
      }
    }
    if (changes.weight !== undefined && changes.weight !== issue.weight) {
      set.weight = changes.weight;
      notes.push(changes.weight === null ? 'removed the weight' : `changed weight to **${changes.weight}**`);
    }
    if (changes.issueType !== undefined && changes.issueType !== issue.issue_type) set.issue_type = changes.issueType;
    if (changes.milestoneId !== undefined) {
      const milestone = changes.milestoneId ? await powers.milestone(tx.db, changes.milestoneId) : null;
      if ((milestone?.id ?? null) !== issue.milestone_id) {
        set.milestone_id = milestone?.id ?? null;
        notes.push(milestone ? `changed milestone to %${milestone.iid}` : 'removed milestone');
      }
    }
    if (changes.stateEvent === 'close' && issue.state === 'opened') {
      Object.assign(set, { state: 'closed', closed_at: at, closed_by_id: actor.id });
      notes.push('closed');
      await recordStateEvent(tx, { type: 'Issue', id: issue.id }, actor.id, 'closed', at);
      await recordEvent(tx, { projectId: issue.project_id, authorId: actor.id, action: 'closed', targetType: 'Issue', targetId: issue.id, targetIid: issue.iid, targetTitle: set.title ?? issue.title });
      await resolveTodos(tx, todoTargetOf(issue), actor.id);
    } else if (changes.stateEvent === 'reopen' && issue.state === 'closed') {
      Object.assign(set, { state: 'opened', closed_at: null, closed_by_id: null });
      notes.push('reopened');
      await recordStateEvent(tx, { type: 'Issue', id: issue.id }, actor.id, 'reopened', at);
      await recordEvent(tx, { projectId: issue.project_id, authorId: actor.id, action: 'reopened', targetType: 'Issue', targetId: issue.id, targetIid: issue.iid, targetTitle: set.title ?? issue.title });
    }
    if (set.milestone_id !== undefined) {
      await recordMilestoneEvent(tx, { type: 'Issue', id: issue.id }, actor.id, { from: issue.milestone_id, to: set.milestone_id, state: set.state ?? issue.state }, at);
    }
    const currentLabels = await labelIdsOf(tx, issue.id);
    const labels = await resolveLabels(tx, currentLabels, changes, powers);
    if (labels) await setLabels(tx, issue, currentLabels, labels);
    if (changes.assigneeIds !== undefined) await setAssignees(tx, issue, await assigneeIdsOf(tx, issue.id), await powers.assignable(tx.db, changes.assigneeIds));
    for (const body of notes) await addSystemNote(tx, noteable, body);
    if (set.title !== undefined || set.description !== undefined) {
      const after = { title: set.title ?? issue.title, markdown: set.description !== undefined ? set.description : issue.description };
      await mentionTodos(tx, todoTargetOf(issue), after, { before: { title: issue.title, markdown: issue.description } });
    }
    const updated = await tx.db
      .updateTable('issues')
      .set({ ...set, updated_at: at, updated_by_id: actor.id })
      .where('id', '=', issue.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const action = set.state === 'closed' ? 'close' : set.state === 'opened' ? 'reopen' : 'update';
    const hookChangeSet = hookChanges(issue, { ...set, updated_at: at, updated_by_id: actor.id });
    await enqueueHookEvent(tx.db, { projectId: issue.project_id }, { kind: 'issue', issueId: issue.id, userId: actor.id, action, changes: hookChangeSet });
    return updated;
  });
}

/** "January 5, 2026", as the platform writes dates in notes. */
function humanDate(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}

/** DELETE /projects/:id/issues/:issue_iid: its notes, labels, assignees and to-dos go with it. */
export async function deleteIssue(ctx: ServiceContext, issue: IssueRow): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await deleteTargetTodos(tx, todoTargetOf(issue));
    await tx.db.deleteFrom('notes').where('noteable_type', '=', 'Issue').where('noteable_id', '=', issue.id).execute();
    await tx.db.deleteFrom('label_links').where('target_type', '=', 'Issue').where('target_id', '=', issue.id).execute();
    await tx.db.deleteFrom('subscriptions').where('subscribable_type', '=', 'Issue').where('subscribable_id', '=', issue.id).execute();
    await tx.db.deleteFrom('issues').where('id', '=', issue.id).execute();
  });
}

/** The user's explicit choice to follow an issue or not (which then outweighs being a participant). */
export async function setIssueSubscription(ctx: ServiceContext, issue: Pick<IssueRow, 'id' | 'project_id'>, userId: number, subscribed: boolean): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const changed = await tx.db
      .updateTable('subscriptions')
      .set({ subscribed, updated_at: at })
      .where('subscribable_type', '=', 'Issue')
      .where('subscribable_id', '=', issue.id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) > 0) return;
    await tx.db
      .insertInto('subscriptions')
      .values({ user_id: userId, subscribable_type: 'Issue', subscribable_id: issue.id, project_id: issue.project_id, subscribed, created_at: at, updated_at: at })
      .execute();
  });
}
