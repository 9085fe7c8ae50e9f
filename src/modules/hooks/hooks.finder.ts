// Reads of webhooks and their deliveries.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DB, WebHookLogRow, WebHookRow } from '../../db/schema.ts';

export type HookOwner = { type: 'ProjectHook'; projectId: number } | { type: 'GroupHook'; groupId: number } | { type: 'SystemHook' };

/** The owner's hooks, oldest first. */
export function ownedHooks(db: Kysely<DB>, owner: HookOwner): SelectQueryBuilder<DB, 'web_hooks', WebHookRow> {
  const q = db.selectFrom('web_hooks').selectAll().where('type', '=', owner.type);
  if (owner.type === 'ProjectHook') return q.where('project_id', '=', owner.projectId).orderBy('id');
  if (owner.type === 'GroupHook') return q.where('group_id', '=', owner.groupId).orderBy('id');
  return q.orderBy('id');
}

export function findOwnedHook(db: Kysely<DB>, owner: HookOwner, id: number): Promise<WebHookRow | undefined> {
  return ownedHooks(db, owner).where('id', '=', id).executeTakeFirst();
}

/** A hook's deliveries, newest first; `status` keeps the successful (2xx/3xx), client (4xx) or server failures (5xx, none). */
export function hookEvents(db: Kysely<DB>, hookId: number, status?: 'successful' | 'client_failure' | 'server_failure'): SelectQueryBuilder<DB, 'web_hook_logs', WebHookLogRow> {
  let q = db.selectFrom('web_hook_logs').selectAll().where('web_hook_id', '=', hookId);
  if (status === 'successful') q = q.where('response_status', '>=', '200').where('response_status', '<', '400').where('response_status', '!=', 'internal error');
  if (status === 'client_failure') q = q.where('response_status', '>=', '400').where('response_status', '<', '500');
  if (status === 'server_failure') q = q.where((eb) => eb.or([eb('response_status', '>=', '500'), eb('response_status', '=', 'internal error')]));
  return q.orderBy('id', 'desc');
}

export function findHookEvent(db: Kysely<DB>, hookId: number, id: number): Promise<WebHookLogRow | undefined> {
  return db.selectFrom('web_hook_logs').selectAll().where('web_hook_id', '=', hookId).where('id', '=', id).executeTakeFirst();
}
