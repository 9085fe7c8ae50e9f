// Applies a seed document: creates what it describes and is missing, and changes nothing that
// exists (users by username, groups and projects by full path, tokens by user and name, files by
// branch and path, branches by name, members by user), so that applying it again does nothing.
//
// Everything but tokens goes through the application's own API routes (app.inject, as root with
// a token issued for the seeding and deleted afterwards), so that a seeded instance holds exactly
// what the same requests from a client would have made: events, the default branch, empty_repo,
// memberships and their authorizations. A token's value cannot be chosen through the API, so
// tokens are issued by the tokens service, as `quarry create-token` does.
import type { FastifyInstance } from 'fastify';
import { systemContext } from '../core/context.ts';
import { SCOPES } from '../core/auth/scopes.ts';
import { digest } from '../core/auth/secrets.ts';
import { DomainError } from '../core/errors.ts';
import { issueToken } from '../modules/access-tokens/access-tokens.service.ts';
import { type SeedDocument, type SeedMember, accessLevelOf } from './seed-document.ts';

export interface SeedResult {
  /** What was created, one line each (`user alice`, `project acme/widgets`, …); empty when nothing was missing. */
  created: string[];
  /** `username/token name` → value, for tokens created without a value in the document (shown this once). */
  tokens: Record<string, string>;
}

/** A step the instance refused; the message names the place in the document and the answer. */
export class SeedError extends Error {
  override name = 'SeedError';
}

interface Answer {
  status: number;
  body: any;
}

const enc = encodeURIComponent;
const lastSegment = (fullPath: string) => fullPath.slice(fullPath.lastIndexOf('/') + 1);
const parentPath = (fullPath: string) => fullPath.slice(0, Math.max(0, fullPath.lastIndexOf('/')));

export async function applySeed(app: FastifyInstance, doc: SeedDocument): Promise<SeedResult> {
  const deps = app.deps;
  const ctx = systemContext(deps);
  const root = await deps.db.selectFrom('users').select(['id', 'admin']).where('id', '=', 1).executeTakeFirstOrThrow();
  const { row: seedToken, token } = await issueToken(ctx, { userId: root.id, name: 'seed', scopes: SCOPES }, root);
  const result: SeedResult = { created: [], tokens: {} };

  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: Record<string, unknown>): Promise<Answer> => {
    const send = () =>
      app.inject({
        method,
        url: `/api/v4${url}`,
        headers: { 'private-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
    let res = await send();
    // Refused by the load shedding (a busy machine): come back, as Retry-After asks, for up to a minute.
    for (let attempt = 0; res.statusCode === 503 && res.headers['retry-after'] !== undefined && attempt < 300; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      res = await send();
    }
    let parsed: unknown = null;
    try {
      parsed = res.body ? JSON.parse(res.body) : null;
    } catch {
      parsed = res.body;
    }
    return { status: res.statusCode, body: parsed };
  };
  const must = async (where: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: Record<string, unknown>): Promise<any> => {
    const answer = await call(method, url, body);
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    throw new SeedError(`${where}: ${method} /api/v4${url} answered ${answer.status} ${JSON.stringify(answer.body)}`);
  };
  const exists = async (where: string, url: string): Promise<any | null> => {
    const answer = await call('GET', url);
    if (answer.status === 404) return null;
    if (answer.status === 200) return answer.body;
    throw new SeedError(`${where}: GET /api/v4${url} answered ${answer.status} ${JSON.stringify(answer.body)}`);
  };

  const userIds = new Map<string, number>();
  const userId = async (username: string, where: string): Promise<number> => {
    const known = userIds.get(username.toLowerCase());
    if (known !== undefined) return known;
    const found = (await must(where, 'GET', `/users?username=${enc(username)}`)) as { id: number }[];
    if (found.length === 0) throw new SeedError(`${where}: no user "${username}" (list it under users)`);
    userIds.set(username.toLowerCase(), found[0].id);
    return found[0].id;
  };
  const ensureMembers = async (kind: 'groups' | 'projects', id: number, fullPath: string, members: readonly SeedMember[] | undefined, where: string) => {
    for (const [j, member] of (members ?? []).entries()) {
      const at = `${where}.members[${j}]`;
      const memberId = await userId(member.user, `${at}.user`);
      if (await exists(at, `/${kind}/${id}/members/${memberId}`)) continue;
      await must(at, 'POST', `/${kind}/${id}/members`, { user_id: memberId, access_level: accessLevelOf(member.access_level), ...(member.expires_at ? { expires_at: member.expires_at } : {}) });
      result.created.push(`member ${member.user} of ${fullPath}`);
    }
  };

  try {
    for (const [i, user] of (doc.users ?? []).entries()) {
      const where = `users[${i}]`;
      const found = (await must(where, 'GET', `/users?username=${enc(user.username)}`)) as { id: number; admin?: boolean }[];
      let id: number;
      if (found.length > 0) {
        id = found[0].id;
      } else {
        const created = await must(where, 'POST', '/users', {
          username: user.username,
          email: user.email ?? `${user.username}@example.com`,
          name: user.name ?? user.username,
          ...(user.password ? { password: user.password } : { force_random_password: true }),
          admin: user.admin ?? false,
          external: user.external ?? false,
          skip_confirmation: true,
        });
        id = created.id;
        result.created.push(`user ${user.username}`);
      }
      userIds.set(user.username.toLowerCase(), id);
      const owner = await deps.db.selectFrom('users').select(['id', 'admin']).where('id', '=', id).executeTakeFirstOrThrow();
      for (const [j, wanted] of (user.tokens ?? []).entries()) {
        const active = await deps.db
          .selectFrom('personal_access_tokens')
          .select('token_digest')
          .where('user_id', '=', id)
          .where('name', '=', wanted.name)
          .where('revoked', '=', false)
          .execute();
        const present = wanted.value === undefined ? active.length > 0 : active.some((t) => t.token_digest === digest(wanted.value as string));
        if (present) continue;
        try {
          const issued = await issueToken(ctx, { userId: id, name: wanted.name, scopes: wanted.scopes ?? ['api'], expiresAt: wanted.expires_at ?? null, secret: wanted.value }, owner);
          if (wanted.value === undefined) result.tokens[`${user.username}/${wanted.name}`] = issued.token;
        } catch (error) {
          if (error instanceof DomainError) throw new SeedError(`${where}.tokens[${j}]: ${error.fields ? JSON.stringify(error.fields) : error.message}`);
          // Another token has this value already (the digest is unique).
          throw new SeedError(`${where}.tokens[${j}]: ${(error as Error).message}`);
        }
        result.created.push(`token ${user.username}/${wanted.name}`);
      }
    }

    for (const [i, group] of (doc.groups ?? []).entries()) {
      const where = `groups[${i}]`;
      let found = await exists(where, `/groups/${enc(group.path)}`);
      if (!found) {
        const parent = parentPath(group.path);
        const parentGroup = parent ? await exists(where, `/groups/${enc(parent)}`) : null;
        if (parent && !parentGroup) throw new SeedError(`${where}.path: no group "${parent}" to hold "${group.path}" (list the parent first)`);
        found = await must(where, 'POST', '/groups', {
          name: group.name ?? lastSegment(group.path),
          path: lastSegment(group.path),
          ...(parentGroup ? { parent_id: parentGroup.id } : {}),
          ...(group.visibility ? { visibility: group.visibility } : {}),
          ...(group.description !== undefined ? { description: group.description } : {}),
        });
        result.created.push(`group ${group.path}`);
      }
      await ensureMembers('groups', found.id, group.path, group.members, where);
    }

    let instanceDefaultBranch: string | null = null;
    for (const [i, wanted] of (doc.projects ?? []).entries()) {
      const where = `projects[${i}]`;
      let project = await exists(where, `/projects/${enc(wanted.path)}`);
      if (!project) {
        const namespacePath = parentPath(wanted.path);
        const attributes = {
          name: wanted.name ?? lastSegment(wanted.path),
          path: lastSegment(wanted.path),
          initialize_with_readme: wanted.initialize_with_readme ?? true,
          ...(wanted.visibility ? { visibility: wanted.visibility } : {}),
          ...(wanted.description !== undefined ? { description: wanted.description } : {}),
          ...(wanted.default_branch ? { default_branch: wanted.default_branch } : {}),
        };
        const group = await exists(where, `/groups/${enc(namespacePath)}`);
        if (group) {
          project = await must(where, 'POST', '/projects', { ...attributes, namespace_id: group.id });
        } else if (!namespacePath.includes('/')) {
          const ownerId = await userId(namespacePath, `${where}.path`).catch(() => {
            throw new SeedError(`${where}.path: no group or user "${namespacePath}" to hold the project (list it under groups or users)`);
          });
          project = await must(where, 'POST', `/projects/user/${ownerId}`, attributes);
        } else {
          throw new SeedError(`${where}.path: no group "${namespacePath}" to hold the project (list it under groups)`);
        }
        result.created.push(`project ${wanted.path}`);
      }
      const id = project.id as number;
      const branchExists = async (branch: string) => (await exists(where, `/projects/${id}/repository/branches/${enc(branch)}`)) !== null;
      const defaultBranch = async (): Promise<string> => {
        const current = (await must(where, 'GET', `/projects/${id}`)).default_branch as string | null;
        if (current) return current;
        if (wanted.default_branch) return wanted.default_branch;
        instanceDefaultBranch ??= ((await must(where, 'GET', '/application/settings')).default_branch_name as string | null) || 'main';
        return instanceDefaultBranch;
      };
      const files = (wanted.files ?? []).map((file, j) => ({ file, j }));
      const ensureFile = async ({ file, j }: (typeof files)[number]) => {
        const at = `${where}.files[${j}]`;
        const main = await defaultBranch();
        const branch = file.branch ?? main;
        if (await exists(at, `/projects/${id}/repository/files/${enc(file.path)}?ref=${enc(branch)}`)) return;
        // A file on a branch that does not exist yet starts it from the default branch, where
        // the file may be already (then the new branch has it with this content).
        const start = branch !== main && !(await branchExists(branch)) && (await branchExists(main)) ? main : null;
        const atStart = start !== null && (await exists(at, `/projects/${id}/repository/files/${enc(file.path)}?ref=${enc(start)}`)) !== null;
        await must(at, atStart ? 'PUT' : 'POST', `/projects/${id}/repository/files/${enc(file.path)}`, {
          branch,
          content: file.content,
          commit_message: file.commit_message ?? `${atStart ? 'Update' : 'Add'} ${file.path}`,
          ...(start !== null ? { start_branch: start } : {}),
        });
        result.created.push(`file ${wanted.path}:${branch}:${file.path}`);
      };
      // Files of the default branch first, so that branches made from it hold them; then the branches; then their files.
      const main = await defaultBranch();
      for (const entry of files.filter((e) => (e.file.branch ?? main) === main)) await ensureFile(entry);
      for (const [j, branch] of (wanted.branches ?? []).entries()) {
        const at = `${where}.branches[${j}]`;
        if (await branchExists(branch.name)) continue;
        await must(at, 'POST', `/projects/${id}/repository/branches`, { branch: branch.name, ref: branch.ref ?? (await defaultBranch()) });
        result.created.push(`branch ${wanted.path}:${branch.name}`);
      }
      for (const entry of files.filter((e) => (e.file.branch ?? main) !== main)) await ensureFile(entry);
      await ensureMembers('projects', id, wanted.path, wanted.members, where);
    }
  } finally {
    await deps.db.deleteFrom('personal_access_tokens').where('id', '=', seedToken.id).execute();
  }
  return result;
}
