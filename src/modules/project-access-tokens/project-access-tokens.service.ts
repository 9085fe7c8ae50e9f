// Creating and revoking project access tokens. A token is a bot user (user_type project_bot), a
// member of the project at the chosen level, and a personal access token of that bot; revoking
// deletes the bot, and its membership and tokens with it. Failures are the platform's 400s with
// the reason in the message.
import { randomBytes } from 'node:crypto';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { LoadedProject as Loaded } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
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
  deps: ServiceContext,
  project: LoadedProject,
  actor: Actor,
  body: CreateProjectTokenBody,
): Promise<{ row: PersonalAccessTokenRow; token: string; accessLevel: number }> {
  if (!project.can.has('create_project_access_token')) throw badRequest('User does not have permission to create project access token');
  const { db } = deps;
  const now = deps.now();
  const source = projectSource(project.row, project.namespace);
  const username = botUsername(project.row.id);
  const email = `${username}@noreply.${new URL(deps.config.externalUrl).hostname}`;
  const accessLevel = body.access_level ?? ACCESS.MAINTAINER;
  const expiresAt = body.expires_at ?? null;

  // Everything that would fail after the bot exists is checked before, in the platform's order:
  // the bot user, its membership, its token.
  const userErrors = validateUser({ name: body.name, username, email }, true);
  if (Object.keys(userErrors).length > 0) throw badRequest(fullMessagesSentence(userErrors));
  if (await membershipErrors(db, source, { userId: 0, userType: 'project_bot', accessLevel, expiresAt }, now, false)) {
    throw badRequest('Could not provision maintainer access to project access token');
  }
  const scopes = [...new Set(body.scopes)];
  const scopeErrors = tokenErrors({ name: body.name, scopes }, { admin: false });
  if (scopeErrors) throw badRequest(fullMessagesSentence(scopeErrors));

  // The bot, its membership and its token are one unit: none exists without the others.
  return withTransaction(deps, async (tx) => {
    const bot = await createUser(
      tx,
      { username, email, name: body.name, force_random_password: true, skip_confirmation: true },
      { userType: 'project_bot', createdById: actor.user.id },
    );
    await insertMembership(tx.db, source, { userId: bot.id, accessLevel, expiresAt }, null, now);
    const issued = await issueToken(tx.db, { userId: bot.id, name: body.name, scopes, expiresAt }, bot, now);
    return { ...issued, accessLevel };
  });
}

export function tokenNotFound(rawId: string) {
  return notFound(`Could not find project access token with token_id: ${rawId}`);
}

export async function findTokenOrFail(deps: ServiceContext, projectId: number, rawId: string): Promise<ProjectTokenRow> {
  const row = await findProjectToken(deps.db, projectId, rawId);
  if (!row) throw tokenNotFound(rawId);
  return row;
}

/** Revoking takes the bot away: the user, its membership and its tokens. */
export async function revokeProjectAccessToken(deps: ServiceContext, project: LoadedProject, actor: Actor, rawId: string): Promise<void> {
  const row = await findTokenOrFail(deps, project.row.id, rawId);
  if (!project.can.has('admin_project')) throw badRequest(`${actor.user.name} cannot delete ${row.bot_name}`);
  await deleteUser(deps, row.user_id);
}
