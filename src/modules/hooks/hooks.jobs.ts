// The background work of webhooks: an event recorded by a writer (jobs/web-hooks.ts) is turned
// into its payload and fanned out to every hook that asks for it — the project's, its groups'
// and, for pushes, tag pushes, merge requests and repository updates, the instance's — each
// delivery its own job, so that a slow or failing receiver holds up no other. A delivery that
// fails is logged; it is tried again only when the instance asks for retries.
import { Type } from '@sinclair/typebox';
import type { Expression, Kysely, SqlBool } from 'kysely';
import type { Config } from '../../config.ts';
import type { ServiceContext } from '../../core/context.ts';
import type { DB, WebHookRow } from '../../db/schema.ts';
import { matchesProtectedName } from '../../domain/ref-protection.ts';
import { type JobDeclaration, defineJobKind, enqueueMany } from '../../jobs/queue.ts';
import { type HookEvent, WEB_HOOK_EVENT, groupHookCovers } from '../../jobs/web-hooks.ts';
import { deliver, heldBack } from './delivery.ts';
import {
  type Json,
  issuableData,
  issueAttrs,
  jobData,
  loadSubject,
  loadUser,
  memberData,
  mergeRequestAttrs,
  noteData,
  pipelineData,
  pushData,
  releaseData,
  repositoryUpdateData,
  wikiPageData,
} from './hook-data.ts';

/** A hook scope's flag. */
const FLAG_OF: Record<string, keyof WebHookRow> = {
  push_hooks: 'push_events',
  tag_push_hooks: 'tag_push_events',
  issue_hooks: 'issues_events',
  confidential_issue_hooks: 'confidential_issues_events',
  note_hooks: 'note_events',
  confidential_note_hooks: 'confidential_note_events',
  merge_request_hooks: 'merge_requests_events',
  job_hooks: 'job_events',
  pipeline_hooks: 'pipeline_events',
  release_hooks: 'releases_events',
  member_hooks: 'member_events',
  repository_update_hooks: 'repository_update_events',
  wiki_page_hooks: 'wiki_page_events',
};

/** Scopes system hooks receive. */
const SYSTEM_SCOPES = new Set(['push_hooks', 'tag_push_hooks', 'merge_request_hooks', 'repository_update_hooks']);

export interface Built {
  trigger: string;
  data: Json;
  scope: { projectId: number } | { groupId: number };
  /** For push hooks: the branch the filter is matched against. */
  branch?: string;
}

/** The payload of an event and where it goes; null when what it is about is gone. */
export async function buildEvent(db: Kysely<DB>, config: Config, event: HookEvent): Promise<Built | null> {
  switch (event.kind) {
    case 'push': {
      const [subject, user] = await Promise.all([loadSubject(db, event.projectId), loadUser(db, event.userId)]);
      if (!subject || !user) return null;
      const data = await pushData(config, subject, user, event, user.public_email || '');
      const tag = event.ref.startsWith('refs/tags/');
      return { trigger: tag ? 'tag_push_hooks' : 'push_hooks', data, scope: { projectId: event.projectId }, ...(tag ? {} : { branch: event.ref.slice('refs/heads/'.length) }) };
    }
    case 'repository_update': {
      const [subject, user] = await Promise.all([loadSubject(db, event.projectId), loadUser(db, event.userId)]);
      if (!subject || !user) return null;
      return { trigger: 'repository_update_hooks', data: repositoryUpdateData(config, subject, user, user.public_email || '', event.updates), scope: { projectId: event.projectId } };
    }
    case 'issue': {
      const [found, user] = await Promise.all([issueAttrs(db, config, event.issueId), loadUser(db, event.userId)]);
      if (!found || !user) return null;
      const data = await issuableData(db, config, 'issue', found, user, event.action, event.changes ?? {});
      return data && { trigger: found.confidential ? 'confidential_issue_hooks' : 'issue_hooks', data, scope: { projectId: found.projectId } };
    }
    case 'merge_request': {
      const [found, user] = await Promise.all([mergeRequestAttrs(db, config, event.mergeRequestId), loadUser(db, event.userId)]);
      if (!found || !user) return null;
      const data = await issuableData(db, config, 'merge_request', found, user, event.action, event.changes ?? {}, event.oldrev);
      return data && { trigger: 'merge_request_hooks', data, scope: { projectId: found.projectId } };
    }
    case 'note': {
      const user = await loadUser(db, event.userId);
      const found = user && (await noteData(db, config, event.noteId, user));
      if (!found) return null;
      return { trigger: found.confidential ? 'confidential_note_hooks' : 'note_hooks', data: found.data, scope: { projectId: found.projectId } };
    }
    case 'pipeline': {
      const found = await pipelineData(db, config, event.pipelineId);
      return found && { trigger: 'pipeline_hooks', data: found.data, scope: { projectId: found.projectId } };
    }
    case 'job': {
      const found = await jobData(db, config, event.buildId);
      return found && { trigger: 'job_hooks', data: found.data, scope: { projectId: found.projectId } };
    }
    case 'release': {
      const found = await releaseData(db, config, event.releaseId, event.action);
      return found && { trigger: 'release_hooks', data: found.data, scope: { projectId: found.projectId } };
    }
    case 'member': {
      const data = await memberData(db, event);
      return data && { trigger: 'member_hooks', data, scope: { groupId: event.groupId } };
    }
    case 'wiki_page': {
      const data = await wikiPageData(db, config, event);
      return data && { trigger: 'wiki_page_hooks', data, scope: { projectId: event.projectId } };
    }
  }
}

/** The hooks that want a built event: the project's, those of its groups and their ancestors, and the instance's where it receives the scope. */
export async function hooksFor(db: Kysely<DB>, built: Built): Promise<WebHookRow[]> {
  const flag = FLAG_OF[built.trigger] as 'push_events';
  const projectId = 'projectId' in built.scope ? built.scope.projectId : null;
  const hooks = await db
    .selectFrom('web_hooks')
    .selectAll()
    .where(flag, '=', true)
    .where((eb) => {
      const ors: Expression<SqlBool>[] = [groupHookCovers(built.scope)];
      if (projectId !== null && built.trigger !== 'member_hooks') ors.push(eb.and([eb('type', '=', 'ProjectHook'), eb('project_id', '=', projectId)]));
      if (SYSTEM_SCOPES.has(built.trigger)) ors.push(eb('type', '=', 'SystemHook'));
      return eb.or(ors);
    })
    .orderBy('id')
    .execute();
  // ActiveHookFilter: a push reaches a hook whose branch filter is blank, the branch, or a wildcard that covers it.
  return hooks.filter((hook) => built.branch === undefined || hook.type === 'SystemHook' || !hook.push_events_branch_filter?.trim() || matchesProtectedName(hook.push_events_branch_filter, built.branch));
}

const DeliverPayload = Type.Object({ hookId: Type.Integer(), trigger: Type.String(), data: Type.Unknown() }, { additionalProperties: false });
const WEB_HOOK_DELIVER: JobDeclaration<typeof DeliverPayload> = { name: 'web_hooks.deliver', payload: DeliverPayload, maxAttempts: 10 };

export const hookEventJob = defineJobKind({
  ...WEB_HOOK_EVENT,
  async run(ctx, { event }) {
    const built = await buildEvent(ctx.db, ctx.config, event);
    if (!built) return;
    const hooks = await hooksFor(ctx.db, built);
    await enqueueMany(ctx.db, WEB_HOOK_DELIVER, hooks.map((hook) => ({ payload: { hookId: hook.id, trigger: built.trigger, data: built.data } })));
  },
});

export class DeliveryFailed extends Error {}

export const hookDeliveryJob = defineJobKind({
  ...WEB_HOOK_DELIVER,
  // A receiver has 10 s; the claim outlasts that.
  lockSeconds: 120,
  async run(ctx: ServiceContext, { hookId, trigger, data }, job) {
    const hook = await ctx.db.selectFrom('web_hooks').selectAll().where('id', '=', hookId).executeTakeFirst();
    if (!hook || heldBack(ctx, hook)) return;
    const delivery = await deliver(ctx, hook, trigger, data);
    // Retried only when the instance asks for retries (14.x sends once).
    if (!delivery.ok && job.attempt < ctx.config.webhookAttempts) throw new DeliveryFailed(`webhook ${hook.id} answered ${delivery.log.response_status}`);
  },
});
