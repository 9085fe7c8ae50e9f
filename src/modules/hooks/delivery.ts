// Sending one payload to one hook, as the platform's WebHookService does: a JSON POST with the
// 14.x headers (Content-Type, User-Agent GitLab/<version>, X-Gitlab-Event, and X-Gitlab-Token
// when the hook has a token), credentials in the URL sent as Basic authentication, a 10 s
// timeout, the instance's rules for local addresses checked on the address that is connected to.
// Every delivery is logged with what came back (at most 8 KB of body, 50 headers); an answer of
// 4xx or 5xx, or none, is a failure.
import type { ServiceContext } from '../../core/context.ts';
import { OutboundError, checkedPost } from '../../core/outbound-http.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { WebHookLogRow, WebHookRow } from '../../db/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { REPORTED_VERSION } from '../../version.ts';

/** The platform's webhook_timeout. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
const RESPONSE_BODY_LIMIT = 8 * 1024;
const RESPONSE_HEADERS_LIMIT = 50;
const RESPONSE_HEADER_SIZE = 1024;
/** The largest answer read; a longer one is a failure. */
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** Failures in a row before a hook is held back, when automatic disabling is on. */
const FAILURE_THRESHOLD = 3;

/** X-Gitlab-Event for a hook's scope: "push_hooks" → "Push Hook"; every event of a system hook is "System Hook". */
export function eventHeader(hook: Pick<WebHookRow, 'type'>, trigger: string): string {
  if (hook.type === 'SystemHook') return 'System Hook';
  const words = trigger.replace(/_hooks$/, '_hook').split('_');
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

/** Net::HTTP's capitalized header names: content-type → Content-Type. */
const capitalized = (name: string) => name.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('-');

/** Cuts a string to at most `limit` bytes of UTF-8 without splitting a character. */
function truncateBytes(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  return bytes.subarray(0, limit).toString('utf8').replace(/\uFFFD$/, '');
}

export interface Delivery {
  log: WebHookLogRow;
  /** The HTTP status, or null when no answer came. */
  status: number | null;
  ok: boolean;
}

/** Whether the hook is held back by automatic disabling now. */
export function heldBack(ctx: ServiceContext, hook: WebHookRow): boolean {
  return ctx.config.webhookAutoDisable && hook.disabled_until !== null && Date.parse(hook.disabled_until) > ctx.now().getTime();
}

/** Sends `data` to the hook now and logs the delivery. */
export async function deliver(ctx: ServiceContext, hook: WebHookRow, trigger: string, data: unknown): Promise<Delivery> {
  const settings = await applicationSettings(ctx.db);
  const allowLocal = hook.type === 'SystemHook' ? settings.allow_local_requests_from_system_hooks : settings.allow_local_requests_from_web_hooks_and_services;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': `GitLab/${REPORTED_VERSION}`,
    'X-Gitlab-Event': eventHeader(hook, trigger),
  };
  const token = hook.token_encrypted === null ? '' : secretBox(ctx.config.dataDir).open(hook.token_encrypted);
  if (token !== '') headers['X-Gitlab-Token'] = token.replace(/\r?\n/g, '');
  const body = Buffer.from(JSON.stringify(data), 'utf8');
  let target = hook.url;
  const sent: Record<string, string> = { ...headers };
  try {
    const parsed = new URL(hook.url);
    if (parsed.username !== '' || parsed.password !== '') {
      const user = decodeURIComponent(parsed.username);
      const password = decodeURIComponent(parsed.password);
      parsed.username = '';
      parsed.password = '';
      target = parsed.href;
      sent.Authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
  } catch {
    // An unparsable URL fails below, as a delivery without an answer.
  }
  const started = performance.now();
  let status: number | null = null;
  let responseHeaders: Record<string, string> = {};
  let responseBody = '';
  let error: string | null = null;
  try {
    const response = await checkedPost(target, body, sent, { allowLocal, timeoutMs: WEBHOOK_TIMEOUT_MS, maxBytes: MAX_RESPONSE_BYTES, verifyTls: hook.enable_ssl_verification });
    status = response.status;
    responseHeaders = Object.fromEntries(
      Object.entries(response.headers)
        .slice(0, RESPONSE_HEADERS_LIMIT)
        .map(([name, value]) => [capitalized(name), truncateBytes(value, RESPONSE_HEADER_SIZE)]),
    );
    responseBody = truncateBytes(response.body.toString('utf8'), RESPONSE_BODY_LIMIT);
  } catch (caught) {
    error = caught instanceof OutboundError ? outboundMessage(caught, hook.url) : caught instanceof Error ? caught.message : String(caught);
  }
  const duration = (performance.now() - started) / 1000;
  const ok = status !== null && status < 400;
  const at = ctx.now().toISOString();
  const log = await ctx.db
    .insertInto('web_hook_logs')
    .values({
      web_hook_id: hook.id,
      trigger,
      url: hook.url,
      request_headers: JSON.stringify(headers),
      request_data: JSON.stringify(data),
      response_headers: JSON.stringify(responseHeaders),
      response_body: responseBody,
      response_status: status === null ? 'internal error' : String(status),
      execution_duration: duration,
      internal_error_message: error,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (ctx.config.webhookAutoDisable) await recordOutcome(ctx, hook, ok);
  return { log, status, ok };
}

/** The platform's words for a request that got no answer. */
function outboundMessage(error: OutboundError, url: string): string {
  switch (error.failure) {
    case 'blocked':
      return error.message;
    case 'timeout':
      return 'execution expired';
    case 'unresolved':
      return `Failed to open TCP connection to ${safeHost(url)} (getaddrinfo: Name or service not known)`;
    case 'invalid':
      return `URL '${url}' is blocked: URI is invalid`;
    case 'too_large':
      return 'The response is too large';
    default:
      return `Failed to open TCP connection to ${safeHost(url)}`;
  }
}

function safeHost(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? 443 : 80)}`;
  } catch {
    return url;
  }
}

/** Automatic disabling: a success clears the count; the third failure in a row on holds the hook back, longer each time (at most a day). */
async function recordOutcome(ctx: ServiceContext, hook: WebHookRow, ok: boolean): Promise<void> {
  if (ok) {
    if (hook.recent_failures !== 0 || hook.disabled_until !== null) await ctx.db.updateTable('web_hooks').set({ recent_failures: 0, disabled_until: null }).where('id', '=', hook.id).execute();
    return;
  }
  const failures = hook.recent_failures + 1;
  const backoff = failures >= FAILURE_THRESHOLD ? Math.min(60 * 2 ** (failures - FAILURE_THRESHOLD), 24 * 3600) : 0;
  const disabledUntil = backoff > 0 ? new Date(ctx.now().getTime() + backoff * 1000).toISOString() : null;
  await ctx.db.updateTable('web_hooks').set({ recent_failures: failures, disabled_until: disabledUntil }).where('id', '=', hook.id).execute();
}
