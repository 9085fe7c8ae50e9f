// What people do with an alert once it exists (14.x AlertManagement::Alerts::UpdateService and
// Alerts::Todo::CreateService): change its status, assign it, mark it as a to-do. Each change is
// recorded as a system note on the alert in the platform's words ("changed the status to
// **Acknowledged**", "assigned to @user"); a new assignee gets an `assigned` to-do; resolving the
// alert marks the resolver's to-dos on it done and sets its end time (moving it back out of
// resolved clears it). Refusals come back as messages, as the platform's mutations return them in
// `errors` beside the unchanged alert.
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import type { AlertManagementAlertRow, ProjectRow, TodoRow } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { projectAbilities } from '../../core/access/abilities.ts';
import { projectAccessLevel } from '../../core/access/authorizations.ts';
import { actingUser } from '../../core/auth/actor.ts';
import { mentionList } from '../../domain/issuables.ts';
import { addSystemNote, type Noteable } from '../notes/notes.service.ts';
import { type TodoTarget, assignmentTodos, markTodo, resolveTodos } from '../todos/todos.service.ts';
import { alertAssignees, unresolvedAlert } from './alert-management.finder.ts';
import { alertWebUrl } from './alert-management.presenter.ts';
import type { AlertStatus } from './alert-payload.ts';

export const ALERT_MODEL = 'AlertManagement::Alert';

export interface AlertChange {
  alert: AlertManagementAlertRow;
  /** Empty when the change was made. */
  errors: string[];
}

export const alertNoteable = (alert: AlertManagementAlertRow): Noteable => ({ type: ALERT_MODEL, id: alert.id, iid: alert.iid, projectId: alert.project_id, title: alert.title });
export const alertTodoTarget = (alert: Pick<AlertManagementAlertRow, 'id' | 'project_id'>): TodoTarget => ({ type: ALERT_MODEL, id: alert.id, projectId: alert.project_id });

/** "Acknowledged" for acknowledged: the status as its system note names it. */
const titleized = (status: AlertStatus) => status[0].toUpperCase() + status.slice(1);

/** The message for a resolved alert that may not reopen while another with its fingerprint is open. */
function openDuplicateError(baseUrl: string, project: ProjectRow, open: AlertManagementAlertRow): string {
  const path = new URL(alertWebUrl(baseUrl, project.full_path, open.iid)).pathname;
  return `An <a href="${path}">alert</a> with the same fingerprint is already open. To change the status of this alert, resolve the linked alert.`;
}

/**
 * updateAlertStatus: a status the alert already has is no transition ("Invalid status"); a
 * resolved alert is not reopened while another with its fingerprint is open.
 */
export async function changeAlertStatus(ctx: ServiceContext, project: ProjectRow, alert: AlertManagementAlertRow, status: AlertStatus): Promise<AlertChange> {
  if (status === alert.status) return { alert, errors: ['Invalid status'] };
  const duplicate = async () => (alert.fingerprint === null ? undefined : unresolvedAlert(ctx.db, project.id, alert.fingerprint));
  if (alert.status === 'resolved' && status !== 'resolved') {
    const open = await duplicate();
    if (open) return { alert, errors: [openDuplicateError(ctx.config.externalUrl, project, open)] };
  }
  const actor = requireActor(ctx).user;
  const now = ctx.now().toISOString();
  try {
    const changed = await withTransaction(ctx, async (tx) => {
      const row = await tx.db
        .updateTable('alert_management_alerts')
        .set({ status, ended_at: status === 'resolved' ? now : null, updated_at: now })
        .where('id', '=', alert.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await addSystemNote(tx, alertNoteable(row), `changed the status to **${titleized(status)}**`);
      if (status === 'resolved') await resolveTodos(tx, alertTodoTarget(row), actor.id);
      return row;
    });
    return { alert: changed, errors: [] };
  } catch (error) {
    // Another alert with the fingerprint was opened in the meantime (the unique index on open fingerprints).
    const open = isUniqueViolation(error) ? await duplicate() : undefined;
    if (open) return { alert, errors: [openDuplicateError(ctx.config.externalUrl, project, open)] };
    throw error;
  }
}

export type AssigneeMode = 'replace' | 'append' | 'remove';

/** Whether the user may read the project's alerts (an assignee must). */
async function mayReadAlerts(ctx: ServiceContext, project: ProjectRow, userId: number): Promise<boolean> {
  const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  if (!user) return false;
  return projectAbilities(actingUser(user), project, await projectAccessLevel(ctx.db, userId, project.id)).has('read_alert_management_alert');
}

/** The ids of the users of these usernames (in any case), unknown ones left out. */
export async function userIdsNamed(ctx: ServiceContext, usernames: readonly string[]): Promise<number[]> {
  const lowered = [...new Set(usernames.map((name) => name.toLowerCase()))];
  if (lowered.length === 0) return [];
  const rows = await ctx.db.selectFrom('users').select('id').where((eb) => eb(eb.fn('lower', ['username']), 'in', lowered)).orderBy('id').execute();
  return rows.map((u) => Number(u.id));
}

/**
 * alertSetAssignees: these users replace, join or leave the alert's assignees; as the platform, an
 * alert keeps only the first of them. Whoever is newly assigned gets an `assigned` to-do from the
 * caller.
 */
export async function setAlertAssignees(ctx: ServiceContext, project: ProjectRow, alert: AlertManagementAlertRow, named: readonly number[], mode: AssigneeMode): Promise<AlertChange> {
  const before = ((await alertAssignees(ctx.db, [alert.id])).get(alert.id) ?? []).map((u) => u.id);
  const wanted = mode === 'replace' ? named : mode === 'append' ? [...new Set([...before, ...named])] : before.filter((id) => !named.includes(id));
  // Multiple assignees are not supported: the first one stays.
  const after = wanted.slice(0, 1);
  const existing = after.length === 0 ? [] : await ctx.db.selectFrom('users').select('id').where('id', 'in', after).execute();
  if (existing.length < after.length) return { alert, errors: ['Assignee has no permissions'] };
  for (const id of after) if (!(await mayReadAlerts(ctx, project, id))) return { alert, errors: ['Assignee has no permissions'] };

  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  if (added.length === 0 && removed.length === 0) return { alert, errors: [] };
  await withTransaction(ctx, async (tx) => {
    if (removed.length > 0) await tx.db.deleteFrom('alert_management_alert_assignees').where('alert_id', '=', alert.id).where('user_id', 'in', removed).execute();
    if (added.length > 0) await tx.db.insertInto('alert_management_alert_assignees').values(added.map((user_id) => ({ alert_id: alert.id, user_id }))).execute();
    const parts = [];
    if (added.length > 0) parts.push(`assigned to ${await mentionList(tx.db, added)}`);
    if (removed.length > 0) parts.push(`unassigned ${await mentionList(tx.db, removed)}`);
    await addSystemNote(tx, alertNoteable(alert), parts.join(' and '));
    await assignmentTodos(tx, alertTodoTarget(alert), added, 'assigned');
  });
  return { alert, errors: [] };
}

/** alertTodoCreate: a `marked` to-do of the caller on the alert, unless one is pending. */
export async function createAlertTodo(ctx: ServiceContext, alert: AlertManagementAlertRow): Promise<AlertChange & { todo: TodoRow | null }> {
  const todo = await markTodo(ctx, alertTodoTarget(alert));
  return todo ? { alert, todo, errors: [] } : { alert, todo: null, errors: ['You already have pending todo for this alert'] };
}
