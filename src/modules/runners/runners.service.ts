// Runners registering, verifying and removing themselves, and their heartbeat. A runner registers
// with a registration token, which says where it serves: the instance's (every project with shared
// runners), a group's (the group's projects) or a project's. It receives a token of its own, kept
// here as a digest only.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import { digest } from '../../core/auth/secrets.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiRunnerRow, DB, NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { groupRunnersToken } from '../../domain/settings/namespace-settings.ts';
import { newRunnersToken as newGroupRunnersToken } from '../groups/groups.service.ts';
import { newRunnersToken as newProjectRunnersToken } from '../projects/projects.service.ts';
import type { RegisterRunnerBody, UpdateRunnerBody } from './runners.schemas.ts';

/** The instance's registration token, in instance_secrets under this name. */
const INSTANCE_TOKEN = 'runners_registration_token';

/** A runner's authentication token: 20 URL-safe characters, as the platform's 14.x makes them. */
export const newRunnerToken = () => randomBytes(15).toString('base64url');

/** The instance's runner registration token, made on first use. The API never shows it (`quarry runner-token` does). */
export async function instanceRegistrationToken(ctx: ServiceContext): Promise<string> {
  const box = secretBox(ctx.config.dataDir);
  const stored = await ctx.db.selectFrom('instance_secrets').select('value_encrypted').where('name', '=', INSTANCE_TOKEN).executeTakeFirst();
  if (stored) return box.open(stored.value_encrypted);
  const token = `GR1348941${randomBytes(10).toString('base64url')}`;
  await ctx.db
    .insertInto('instance_secrets')
    .values({ name: INSTANCE_TOKEN, value_encrypted: box.seal(token), digest: digest(token), updated_at: ctx.now().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  // Another process may have made one first: the stored token is the instance's.
  const row = await ctx.db.selectFrom('instance_secrets').select('value_encrypted').where('name', '=', INSTANCE_TOKEN).executeTakeFirstOrThrow();
  return box.open(row.value_encrypted);
}

/** Replaces the instance's registration token (runners registered with the old one keep working); returns the new one. */
export async function resetInstanceRegistrationToken(ctx: ServiceContext): Promise<string> {
  await ctx.db.deleteFrom('instance_secrets').where('name', '=', INSTANCE_TOKEN).execute();
  return instanceRegistrationToken(ctx);
}

/** Replaces a project's registration token; returns the new one. */
export async function resetProjectRegistrationToken(ctx: ServiceContext, project: ProjectRow): Promise<string> {
  const sealed = newProjectRunnersToken(ctx.config);
  await ctx.db.updateTable('projects').set(sealed).where('id', '=', project.id).execute();
  return secretBox(ctx.config.dataDir).open(sealed.runners_token_encrypted);
}

/** Replaces a group's registration token; returns the new one. */
export async function resetGroupRegistrationToken(ctx: ServiceContext, group: NamespaceRow): Promise<string> {
  const box = secretBox(ctx.config.dataDir);
  // Makes the group's settings row (and a first token) when it has none yet.
  await groupRunnersToken(ctx.db, box, group.id, newGroupRunnersToken);
  const token = newGroupRunnersToken();
  await ctx.db
    .updateTable('namespace_settings')
    .set({ runners_token_encrypted: box.seal(token), runners_token_digest: digest(token) })
    .where('namespace_id', '=', group.id)
    .execute();
  return token;
}

type Scope = { type: 'instance_type' } | { type: 'group_type'; namespaceId: number } | { type: 'project_type'; projectId: number };

/** Where a registration token registers a runner; null when it is nobody's. */
async function registrationScope(db: Kysely<DB>, token: string): Promise<Scope | null> {
  const hash = digest(token);
  const instance = await db.selectFrom('instance_secrets').select('name').where('name', '=', INSTANCE_TOKEN).where('digest', '=', hash).executeTakeFirst();
  if (instance) return { type: 'instance_type' };
  const project = await db.selectFrom('projects').select('id').where('runners_token_digest', '=', hash).executeTakeFirst();
  if (project) return { type: 'project_type', projectId: project.id };
  const group = await db.selectFrom('namespace_settings').select('namespace_id').where('runners_token_digest', '=', hash).executeTakeFirst();
  if (group) return { type: 'group_type', namespaceId: group.namespace_id as number };
  return null;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value.slice(0, 255) : null);

/** What a runner's `info` tells about it, as columns. */
function infoColumns(info: Record<string, unknown> | undefined) {
  if (!info) return {};
  const features = info.features && typeof info.features === 'object' ? JSON.stringify(info.features) : null;
  return {
    name: text(info.name),
    version: text(info.version),
    revision: text(info.revision),
    platform: text(info.platform),
    architecture: text(info.architecture),
    executor_type: text(info.executor),
    ...(features ? { features } : {}),
  };
}

/** The distinct tags, trimmed and sorted, as the platform keeps a tag list. */
export const normalTags = (tags: readonly string[] | undefined) => [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))].sort();

/** Registers a runner; null when the registration token is unknown (the route answers 403). */
export async function registerRunner(ctx: ServiceContext, body: RegisterRunnerBody, ip: string | null): Promise<{ id: number; token: string } | null> {
  const scope = await registrationScope(ctx.db, body.token);
  if (!scope) return null;
  const token = newRunnerToken();
  const now = ctx.now().toISOString();
  const active = body.paused !== undefined ? !body.paused : (body.active ?? true);
  return withTransaction(ctx, async (tx) => {
    const runner = await tx.db
      .insertInto('ci_runners')
      .values({
        token_digest: digest(token),
        runner_type: scope.type,
        description: body.description ?? '',
        maintenance_note: body.maintenance_note ?? body.maintainer_note ?? null,
        active,
        locked: body.locked ?? false,
        run_untagged: body.run_untagged ?? true,
        access_level: body.access_level ?? 'not_protected',
        maximum_timeout: body.maximum_timeout ?? null,
        tag_list: JSON.stringify(normalTags(body.tag_list)),
        ...infoColumns(body.info),
        ip_address: ip,
        contacted_at: now,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (scope.type === 'project_type') await tx.db.insertInto('ci_runner_projects').values({ runner_id: runner.id, project_id: scope.projectId, created_at: now }).execute();
    if (scope.type === 'group_type') await tx.db.insertInto('ci_runner_namespaces').values({ runner_id: runner.id, namespace_id: scope.namespaceId }).execute();
    return { id: runner.id, token };
  });
}

/** The runner a token authenticates; null when unknown. */
export async function findRunnerByToken(db: Kysely<DB>, token: string | undefined): Promise<CiRunnerRow | null> {
  if (!token) return null;
  return (await db.selectFrom('ci_runners').selectAll().where('token_digest', '=', digest(token)).executeTakeFirst()) ?? null;
}

/** How often a runner's contact is written: a runner polls every few seconds, the time shown need not be finer. */
const HEARTBEAT_EVERY_MS = 60_000;

/** Records that the runner called, with what it says about itself; at most once a minute. */
export async function heartbeat(ctx: ServiceContext, runner: CiRunnerRow, info: Record<string, unknown> | undefined, ip: string | null): Promise<void> {
  const now = ctx.now();
  if (runner.contacted_at && now.getTime() - Date.parse(runner.contacted_at) < HEARTBEAT_EVERY_MS) return;
  await ctx.db
    .updateTable('ci_runners')
    .set({ contacted_at: now.toISOString(), ip_address: ip, ...infoColumns(info) })
    .where('id', '=', runner.id)
    .execute();
}

export async function deleteRunner(ctx: ServiceContext, runnerId: number): Promise<void> {
  await ctx.db.deleteFrom('ci_runners').where('id', '=', runnerId).execute();
}

/** The platform's model errors of a runner (14.x Ci::Runner validations), by field; null when valid. */
function runnerErrors(runner: Pick<CiRunnerRow, 'tag_list' | 'run_untagged' | 'maximum_timeout'>): Record<string, string[]> | null {
  const errors: Record<string, string[]> = {};
  if (!runner.run_untagged && (JSON.parse(runner.tag_list) as string[]).length === 0) errors.tags_list = ['can not be empty when runner is not allowed to pick untagged jobs'];
  if (runner.maximum_timeout !== null && runner.maximum_timeout < 600) errors.maximum_timeout = ['needs to be at least 10 minutes'];
  return Object.keys(errors).length ? errors : null;
}

/** PUT /runners/:id: the runner as changed, or its model errors (nothing is written then). */
export async function updateRunner(ctx: ServiceContext, runner: CiRunnerRow, body: UpdateRunnerBody): Promise<{ runner: CiRunnerRow } | { errors: Record<string, string[]> }> {
  const changes = {
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.active !== undefined ? { active: body.active } : {}),
    ...(body.tag_list !== undefined ? { tag_list: JSON.stringify(normalTags(body.tag_list)) } : {}),
    ...(body.run_untagged !== undefined ? { run_untagged: body.run_untagged } : {}),
    ...(body.locked !== undefined ? { locked: body.locked } : {}),
    ...(body.access_level !== undefined ? { access_level: body.access_level } : {}),
    ...(body.maximum_timeout !== undefined ? { maximum_timeout: body.maximum_timeout } : {}),
  };
  const changed = { ...runner, ...changes };
  const errors = runnerErrors(changed);
  if (errors) return { errors };
  const updated = await ctx.db
    .updateTable('ci_runners')
    .set({ ...changes, updated_at: ctx.now().toISOString() })
    .where('id', '=', runner.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { runner: updated };
}

/**
 * POST /projects/:id/runners: the runner serves the project too. An instance runner (only
 * administrators get this far with one) becomes a project runner, as 14.x's `assign_to` makes it.
 * False when it already serves the project.
 */
export async function assignRunner(ctx: ServiceContext, runner: CiRunnerRow, project: ProjectRow): Promise<boolean> {
  return withTransaction(ctx, async (tx) => {
    const inserted = await tx.db
      .insertInto('ci_runner_projects')
      .values({ runner_id: runner.id, project_id: project.id, created_at: ctx.now().toISOString() })
      .onConflict((oc) => oc.columns(['runner_id', 'project_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return false;
    if (runner.runner_type === 'instance_type') await tx.db.updateTable('ci_runners').set({ runner_type: 'project_type', updated_at: ctx.now().toISOString() }).where('id', '=', runner.id).execute();
    return true;
  });
}

/** DELETE /projects/:id/runners/:runner_id: the runner no longer serves the project. */
export async function unassignRunner(ctx: ServiceContext, runnerId: number, projectId: number): Promise<void> {
  await ctx.db.deleteFrom('ci_runner_projects').where('runner_id', '=', runnerId).where('project_id', '=', projectId).execute();
}
