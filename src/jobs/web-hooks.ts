// Declaration of the webhook work that writers call for, so that they enqueue it without
// depending on the hooks module: an event (a push, an issue's change, a pipeline's status …) is
// recorded with the change that makes it, in the writer's transaction, and a worker builds its
// payload and delivers it to each hook that asks for it. The write path only checks whether any
// hook could want the event (one indexed read of a small table) and enqueues.
import { type Static, Type } from '@sinclair/typebox';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { type JobDeclaration, enqueue } from './queue.ts';

const Id = Type.Integer();
const Oid = Type.String({ pattern: '^[0-9a-f]{40}$' });
/** A field's value before and after a change, as the payloads' `changes` show them. */
const Changes = Type.Record(Type.String(), Type.Object({ previous: Type.Unknown(), current: Type.Unknown() }));

export const HookEvent = Type.Union([
  Type.Object({ kind: Type.Literal('push'), projectId: Id, userId: Id, ref: Type.String({ minLength: 1 }), before: Oid, after: Oid, pushOptions: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('repository_update'), projectId: Id, userId: Id, updates: Type.Array(Type.Object({ ref: Type.String(), before: Oid, after: Oid })) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('issue'), issueId: Id, userId: Id, action: Type.String(), changes: Type.Optional(Changes) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('merge_request'), mergeRequestId: Id, userId: Id, action: Type.String(), changes: Type.Optional(Changes), oldrev: Type.Optional(Oid) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('note'), noteId: Id, userId: Id }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('pipeline'), pipelineId: Id }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('job'), buildId: Id }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('release'), releaseId: Id, action: Type.String() }, { additionalProperties: false }),
  // A project wiki's page as it was written: its file at the commit (for a deletion, before it).
  Type.Object(
    {
      kind: Type.Literal('wiki_page'),
      projectId: Id,
      userId: Id,
      action: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]),
      path: Type.String({ minLength: 1 }),
      message: Type.String(),
      versionId: Oid,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      kind: Type.Literal('member'),
      groupId: Id,
      userId: Id,
      event: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('destroy')]),
      accessLevel: Type.Integer(),
      expiresAt: Type.Union([Type.String(), Type.Null()]),
      createdAt: Type.String(),
      updatedAt: Type.String(),
    },
    { additionalProperties: false },
  ),
]);
export type HookEvent = Static<typeof HookEvent>;

const Payload = Type.Object({ event: HookEvent }, { additionalProperties: false });

export const WEB_HOOK_EVENT: JobDeclaration<typeof Payload> = { name: 'web_hooks.event', payload: Payload, maxAttempts: 3 };

type Flag = 'push_events' | 'tag_push_events' | 'issues_events' | 'confidential_issues_events' | 'merge_requests_events' | 'note_events' | 'confidential_note_events' | 'pipeline_events' | 'job_events' | 'releases_events' | 'member_events' | 'repository_update_events' | 'wiki_page_events';

/** The flags that could make a hook want an event: those of project and group hooks, and those of system hooks. */
function flagsOf(event: HookEvent): { scoped: Flag[]; system: Flag[] } {
  switch (event.kind) {
    case 'push':
      return event.ref.startsWith('refs/tags/') ? { scoped: ['tag_push_events'], system: ['tag_push_events'] } : { scoped: ['push_events'], system: ['push_events'] };
    case 'repository_update':
      return { scoped: [], system: ['repository_update_events'] };
    case 'issue':
      return { scoped: ['issues_events', 'confidential_issues_events'], system: [] };
    case 'merge_request':
      return { scoped: ['merge_requests_events'], system: ['merge_requests_events'] };
    case 'note':
      return { scoped: ['note_events', 'confidential_note_events'], system: [] };
    case 'pipeline':
      return { scoped: ['pipeline_events'], system: [] };
    case 'job':
      return { scoped: ['job_events'], system: [] };
    case 'release':
      return { scoped: ['releases_events'], system: [] };
    case 'member':
      return { scoped: ['member_events'], system: [] };
    case 'wiki_page':
      return { scoped: ['wiki_page_events'], system: [] };
  }
}

/** Where the event happens: a project (its hooks, its groups' hooks), or a group (its own and its ancestors' hooks). */
export type HookScope = { projectId: number } | { groupId: number };

/** The SQL condition of a group hook that covers the scope: its group is the scope's group or one of its ancestors. */
export function groupHookCovers(scope: HookScope) {
  const traversal =
    'projectId' in scope
      ? sql<string>`(select n.traversal_path from projects p join namespaces n on n.id = p.namespace_id where p.id = ${scope.projectId})`
      : sql<string>`(select n.traversal_path from namespaces n where n.id = ${scope.groupId})`;
  return sql<boolean>`type = 'GroupHook' and ${traversal} like '%/' || cast(group_id as varchar(20)) || '/%'`;
}

/** Whether any hook may want an event of this scope (the worker decides exactly). */
export async function hooksMayWant(db: Kysely<DB>, scope: HookScope, event: HookEvent): Promise<boolean> {
  const { scoped, system } = flagsOf(event);
  const found = await db
    .selectFrom('web_hooks')
    .select('id')
    .where((eb) => {
      const ors = [];
      if (scoped.length > 0) {
        const wants = eb.or(scoped.map((flag) => eb(flag, '=', true)));
        if ('projectId' in scope && event.kind !== 'member') ors.push(eb.and([eb('project_id', '=', scope.projectId), wants]));
        ors.push(eb.and([wants, groupHookCovers(scope)]));
      }
      if (system.length > 0) ors.push(eb.and([eb('type', '=', 'SystemHook'), eb.or(system.map((flag) => eb(flag, '=', true)))]));
      return eb.or(ors);
    })
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}

/** Records an event for the hooks that want it, in the writer's transaction; nothing when no hook could. */
export async function enqueueHookEvent(db: Kysely<DB>, scope: HookScope, event: HookEvent): Promise<void> {
  if (await hooksMayWant(db, scope, event)) await enqueue(db, WEB_HOOK_EVENT, { event });
}

const STATE_IDS: Record<string, number> = { opened: 1, closed: 2, merged: 3, locked: 4 };
const TIME_FIELDS = new Set(['created_at', 'updated_at', 'closed_at', 'last_edited_at', 'merged_at']);
/** Ruby's Time#to_s of a UTC time, as payloads show database times: "2021-07-22 10:04:52 UTC"; anything else as it is. */
export function rubyTime<T>(iso: T): T | string {
  if (typeof iso !== 'string' || Number.isNaN(Date.parse(iso))) return iso;
  return `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * The `changes` of an issue's or merge request's payload: each field the update set that differs
 * from the row before, as {previous, current} (a state as its state_id, times as the payloads
 * show them), with the fields every update sets.
 */
export function hookChanges(before: Record<string, unknown>, set: Record<string, unknown>): Record<string, { previous: unknown; current: unknown }> {
  const changes: Record<string, { previous: unknown; current: unknown }> = {};
  for (const [field, current] of Object.entries(set)) {
    const previous = before[field] ?? null;
    if (current === undefined || previous === current) continue;
    if (field === 'state') changes.state_id = { previous: STATE_IDS[previous as string] ?? null, current: STATE_IDS[current as string] ?? null };
    else if (TIME_FIELDS.has(field)) changes[field] = { previous: rubyTime(previous), current: rubyTime(current) };
    else changes[field] = { previous, current };
  }
  return changes;
}
