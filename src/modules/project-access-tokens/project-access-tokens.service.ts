// Creating and revoking project access tokens. A token is a bot user (user_type project_bot), a
// member of the project at the chosen level, and a personal access token of that bot; revoking
// deletes the bot, and its membership and tokens with it. Failures are the platform's 400s with
// the reason in the message.
import { randomBytes } from 'node:crypto';
import { type ServiceContext, atTime, requireActor, withTransaction } from '../../core/context.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { LoadedProject as Loaded } from '../../core/access/loaders.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import type { PersonalAccessTokenRow } from '../../db/schema.ts';
import { fullMessagesSentence } from '../../domain/validation.ts';
import { issueToken, tokenErrors } from '../access-tokens/access-tokens.service.ts';
import { projectSource } from '../members/members.finder.ts';
import { insertMembership, membershipErrors } from '../members/members.service.ts';
import { createUser, deleteUser } from '../users/users.service.ts';
import { validateUser } from '../users/users.validation.ts';
import { type ProjectTokenRow, findProjectToken } from './project-access-tokens.finder.ts';
import type { CreateProjectTokenBody } from './project-access-tokens.schemas.ts';

type LoadedProject = Pick<Loaded, 'row' | 'namespace' | 'can'>;

function botUsername(projectId: number): string {
  return `project_${projectId}_bot_${randomBytes(16).toString('hex')}`;
}

export async function createProjectAccessToken(
  ctx: ServiceContext,
  project: LoadedProject,
  body: CreateProjectTokenBody,
): Promise<{ row: PersonalAccessTokenRow; token: string; accessLevel: number }> {
  if (!project.can.has('create_project_access_token')) throw badRequest('User does not have permission to create project access token');
  const source = projectSource(project.row, project.namespace);
  const username = botUsername(project.row.id);
  const email = `${username}@noreply.${new URL(ctx.config.externalUrl).hostname}`;
  const accessLevel = body.access_level ?? ACCESS.MAINTAINER;
  const expiresAt = body.expires_at ?? null;

  // Everything that would fail after the bot exists is checked before, in the platform's order:
  // the bot user, its membership, its token.
  const userErrors = validateUser({ name: body.name, username, email }, true);
  if (Object.keys(userErrors).length > 0) throw badRequest(fullMessagesSentence(userErrors));
  if (await membershipErrors(ctx, source, { userId: 0, userType: 'project_bot', accessLevel, expiresAt }, false)) {
    throw badRequest('Could not provision maintainer access to project access token');
  }
  const scopes = [...new Set(body.scopes)];
  const scopeErrors = tokenErrors({ name: body.name, scopes }, { admin: false });
  if (scopeErrors) throw badRequest(fullMessagesSentence(scopeErrors));

  // The bot (created by the request's user), its membership and its token are one unit, of one
  // time: none exists without the others.
  return withTransaction(atTime(ctx, ctx.now()), async (tx) => {
    const bot = await createUser(tx, { username, email, name: body.name, force_random_password: true, skip_confirmation: true }, { userType: 'project_bot' });
    await insertMembership(tx, source, { userId: bot.id, accessLevel, expiresAt }, null);
    const issued = await issueToken(tx, { userId: bot.id, name: body.name, scopes, expiresAt }, bot);
    return { ...issued, accessLevel };
  });
}

export function tokenNotFound(rawId: string) {
  return notFound(`Could not find project access token with token_id: ${rawId}`);
}

export async function findTokenOrFail(ctx: ServiceContext, projectId: number, rawId: string): Promise<ProjectTokenRow> {
  const row = await findProjectToken(ctx.db, projectId, rawId);
  if (!row) throw tokenNotFound(rawId);
  return row;
}

/** Revoking takes the bot away: the user, its membership and its tokens. */
export async function revokeProjectAccessToken(ctx: ServiceContext, project: LoadedProject, rawId: string): Promise<void> {
  const actor = requireActor(ctx);
  const row = await findTokenOrFail(ctx, project.row.id, rawId);
  if (!project.can.has('admin_project')) throw badRequest(`${actor.user.name} cannot delete ${row.bot_name}`);
  await deleteUser(ctx, row.user_id);
}
