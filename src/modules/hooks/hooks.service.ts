// Adding, changing and removing webhooks (the platform's WebHook model rules): the URL must be an
// http(s) URL that the instance's rules for local requests let through (422 "Invalid url given"),
// the push events' branch filter a branch name where `*` may stand for anything (422 "Invalid
// branch filter given"), the token free of line breaks; the token is kept sealed. Testing a hook
// and resending a logged delivery send at once and answer what the receiver said.
import { type ServiceContext } from '../../core/context.ts';
import { apiError, notFound } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { WebHookLogRow, WebHookRow } from '../../db/schema.ts';
import { validBranchName } from '../../git/args.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { blockedPublicUrlMessage } from '../../domain/url-blocker.ts';
import { type Delivery, deliver } from './delivery.ts';
import type { HookOwner } from './hooks.finder.ts';
import type { HookBody } from './hooks.schemas.ts';

const FLAGS = [
  'push_events',
  'tag_push_events',
  'merge_requests_events',
  'repository_update_events',
  'enable_ssl_verification',
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'confidential_note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
  'deployment_events',
  'releases_events',
  'subgroup_events',
  'member_events',
] as const;

const MAX_BRANCH_FILTER = 4000;

/** BranchFilterValidator: blank passes; otherwise a valid branch name once each `*` reads as a letter, at most 4,000 characters. */
export function validBranchFilter(filter: string): boolean {
  const value = filter.trim();
  if (value === '') return true;
  return validBranchName(value.replaceAll('*', 'x')) && value.length <= MAX_BRANCH_FILTER;
}

async function checkUrl(ctx: ServiceContext, owner: HookOwner, url: string): Promise<void> {
  const settings = await applicationSettings(ctx.db);
  const allowLocal = owner.type === 'SystemHook' ? settings.allow_local_requests_from_system_hooks : settings.allow_local_requests_from_web_hooks_and_services;
  if (url.trim() === '' || (await blockedPublicUrlMessage(url.trim(), { allowLocal })) !== null) throw apiError(422, 'Invalid url given');
}

function checkToken(owner: HookOwner, token: string | undefined): void {
  // The model's error, which the API answers as a missing hook with the errors in its words.
  const what = owner.type === 'ProjectHook' ? 'Project hook' : owner.type === 'GroupHook' ? 'Group hook' : 'System hook';
  if (token !== undefined && token.includes('\n')) throw notFound(`${what} {:token=>["is invalid"]}`);
}

function flagsOf(body: HookBody): Partial<Record<(typeof FLAGS)[number], boolean>> {
  const flags: Partial<Record<(typeof FLAGS)[number], boolean>> = {};
  for (const flag of FLAGS) if (body[flag as keyof HookBody] !== undefined) flags[flag] = body[flag as keyof HookBody] as boolean;
  return flags;
}

async function validate(ctx: ServiceContext, owner: HookOwner, body: HookBody): Promise<void> {
  await checkUrl(ctx, owner, body.url ?? '');
  if (body.push_events_branch_filter !== undefined && !validBranchFilter(body.push_events_branch_filter)) throw apiError(422, 'Invalid branch filter given');
  checkToken(owner, body.token);
}

/** A system hook's defaults: push events off, repository update events on. */
const SYSTEM_DEFAULTS = { push_events: false, repository_update_events: true };

export async function createHook(ctx: ServiceContext, owner: HookOwner, body: HookBody): Promise<WebHookRow> {
  await validate(ctx, owner, body);
  const at = ctx.now().toISOString();
  return ctx.db
    .insertInto('web_hooks')
    .values({
      type: owner.type,
      project_id: owner.type === 'ProjectHook' ? owner.projectId : null,
      group_id: owner.type === 'GroupHook' ? owner.groupId : null,
      url: (body.url as string).trim(),
      token_encrypted: body.token ? secretBox(ctx.config.dataDir).seal(body.token) : null,
      push_events_branch_filter: body.push_events_branch_filter?.trim() ?? null,
      ...(owner.type === 'SystemHook' ? SYSTEM_DEFAULTS : {}),
      ...flagsOf(body),
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateHook(ctx: ServiceContext, owner: HookOwner, hook: WebHookRow, body: HookBody): Promise<WebHookRow> {
  await validate(ctx, owner, body);
  return ctx.db
    .updateTable('web_hooks')
    .set({
      url: (body.url as string).trim(),
      ...(body.token !== undefined ? { token_encrypted: body.token ? secretBox(ctx.config.dataDir).seal(body.token) : null } : {}),
      ...(body.push_events_branch_filter !== undefined ? { push_events_branch_filter: body.push_events_branch_filter.trim() } : {}),
      ...flagsOf(body),
      // A changed hook is given another chance.
      recent_failures: 0,
      disabled_until: null,
      updated_at: ctx.now().toISOString(),
    })
    .where('id', '=', hook.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteHook(ctx: ServiceContext, hook: WebHookRow): Promise<void> {
  await ctx.db.deleteFrom('web_hooks').where('id', '=', hook.id).execute();
}

/** Sends a logged delivery's payload again, now, under its trigger. */
export async function resendHookEvent(ctx: ServiceContext, hook: WebHookRow, log: WebHookLogRow): Promise<Delivery> {
  let data: unknown;
  try {
    data = JSON.parse(log.request_data);
  } catch {
    data = {};
  }
  return deliver(ctx, hook, log.trigger, data);
}

/** Sends a payload now (a test), whatever automatic disabling holds. */
export function sendNow(ctx: ServiceContext, hook: WebHookRow, trigger: string, data: unknown): Promise<Delivery> {
  return deliver(ctx, hook, trigger, data);
}
