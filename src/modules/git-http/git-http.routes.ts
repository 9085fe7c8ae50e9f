// Git over HTTP at <external URL>/<full path>.git, for projects at any depth of groups: info/refs
// (the ref advertisement), git-upload-pack (clone, fetch) and git-receive-pack (push). Git clients
// authenticate with HTTP Basic; answers other than git's own are plain text, as the platform's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { projectAbilities } from '../../core/access/abilities.ts';
import { type LoadedProject, accessToProject, findProject } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { basicCredentials, resolveGitClient } from '../../core/auth/resolve.ts';
import { serviceContext } from '../../core/context.ts';
import { DomainError } from '../../core/errors.ts';
import { BANNED_BODY, THROTTLED_BODY, throttledHeaders } from '../../core/rate-limit.ts';
import { fieldsOf } from '../../core/params.ts';
import { pusherOf } from '../../domain/ref-protection.ts';
import { existingProjectRepository } from '../../git/repository.ts';
import {
  GIT_SERVICES,
  type GitService,
  NO_CACHE_HEADERS,
  advertiseRefs,
  advertisementType,
  gitProtocol,
  requestType,
  resultType,
  serviceRpc,
} from '../../git/smart-http.ts';
import { deployTokenReaches, findDeployTokenByCredentials } from '../deploy-tokens/index.ts';
import { MAX_ANCESTORS } from '../groups/groups.validation.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { authenticatePassword } from '../users/index.ts';
import { HIDDEN_FROM_PUSHES, openPushSession, pushRulesFor } from '../pushes/index.ts';
import { checkSnippetGitAccess, snippetRepositoryRef } from '../snippets/index.ts';
import { checkWikiGitAccess, wikiRepository } from '../wikis/index.ts';
import { GIT_ACCESS_MESSAGES, checkDeployTokenGitAccess, checkGitAccess, credentialAllows } from './git-http.access.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import { type PushedRepository, beginPush } from '../../domain/push-leases.ts';

/** Groups nest up to MAX_ANCESTORS + 1 deep, and the project comes last. */
const MAX_SEGMENTS = MAX_ANCESTORS + 2;
const GIT_SUFFIX = '.git';
const WIKI_SUFFIX = '.wiki';

/** A segment the platform's path format allows: only such paths are redirected to their `.git` form. */
const PATH_SEGMENT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;

function plain(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').send(message);
}

interface Refusal {
  status: number;
  message: string;
  /** Asks the client for credentials (WWW-Authenticate). */
  challenge?: boolean;
  headers?: Record<string, string>;
}

/** The platform's refusal of credentials, or of none where some are needed: git then asks for them. */
const ASK_FOR_CREDENTIALS: Refusal = { status: 401, message: 'HTTP Basic: Access denied\n', challenge: true };

function refuse(reply: FastifyReply, refusal: Refusal): FastifyReply {
  if (refusal.challenge) reply.header('www-authenticate', 'Basic realm="GitLab"');
  if (refusal.headers) reply.headers(refusal.headers);
  return plain(reply, refusal.status, refusal.message);
}

/** The route's path segments, in order. */
function segmentsOf(req: FastifyRequest): string[] {
  const params = fieldsOf(req.params);
  const segments: string[] = [];
  for (let i = 0; params[`s${i}`] !== undefined; i++) segments.push(String(params[`s${i}`]));
  return segments;
}

/** The project's full path of a `<full path>.git` repository path; null without the suffix. */
function fullPathOf(segments: readonly string[]): string | null {
  const path = segments.join('/');
  return path.endsWith(GIT_SUFFIX) ? path.slice(0, -GIT_SUFFIX.length) : null;
}

interface Target {
  service: GitService;
  /** The repository a push writes, which holds a lease while it runs. */
  pushed: PushedRepository;
  /** Null for a snippet's or a wiki's repository, whose pushes run no push rules and start no pipelines. */
  project: LoadedProject | null;
  gitDir: string;
  actor: Actor | null;
}

/** Rack::Attack's answer to an address it has banned. */
const BANNED: Refusal = { status: 403, message: BANNED_BODY };

/**
 * Counts the request against the git HTTP throttle of its user, or of its address when nobody
 * signed in (refused credentials included); the refusal once over the quota.
 */
async function throttled(req: FastifyRequest, actor: Actor | null): Promise<Refusal | null> {
  const name = actor ? 'throttle_authenticated_git_http' : 'throttle_unauthenticated_git_http';
  const verdict = await req.server.throttle.hit(name, actor ? `user:${actor.user.id}` : `ip:${req.ip}`);
  if (!verdict || verdict.allowed) return null;
  return { status: 429, message: THROTTLED_BODY, headers: throttledHeaders(name, verdict) };
}

type FoundProject = Awaited<ReturnType<typeof findProject>>;

/**
 * A deploy token's credentials (its username, its secret) on a project it reaches, or naming no
 * project: it fetches with read_repository and never pushes. Null when they are no such token, so
 * that the other kinds of credentials are tried (and a token of another project fails as they do).
 */
async function deployTokenAccess(req: FastifyRequest, credentials: { login: string; password: string }, found: FoundProject, command: string | undefined): Promise<Target | Refusal | null> {
  const { deps } = req.server;
  const token = await findDeployTokenByCredentials(deps.db, credentials.login, credentials.password, deps.now());
  if (!token || (found && !(await deployTokenReaches(deps.db, token, found.row)))) return null;
  const limited = await throttled(req, null);
  if (limited) return limited;
  const gitDir = found ? existingProjectRepository(deps.config.repositoryStorages, found.row) : null;
  const access = checkDeployTokenGitAccess({ readRepository: token.read_repository, command, projectExists: found !== null, repositoryExists: gitDir !== null });
  if (!access.ok) return access;
  const project = { ...(found as NonNullable<FoundProject>), ...(await accessToProject(req, (found as NonNullable<FoundProject>).row)) };
  return { service: access.service, pushed: { kind: 'project', id: project.row.id, storage: project.row.repository_storage }, project, gitDir: gitDir as string, actor: null };
}

/** The user (or token) that git credentials name; refused credentials count towards the address's ban. */
async function signIn(req: FastifyRequest, credentials: { login: string; password: string }): Promise<Actor | Refusal> {
  const { deps, throttle } = req.server;
  let actor: Actor | null;
  try {
    const passwords = (await applicationSettings(deps.db)).password_authentication_enabled_for_git;
    actor = await resolveGitClient(deps, credentials, passwords ? (login, password) => authenticatePassword(serviceContext(req), login, password) : null);
  } catch (error) {
    if (error instanceof DomainError) return (await throttled(req, null)) ?? { status: error.status, message: error.message };
    throw error;
  }
  if (actor === null) {
    await throttle.failedAuthentication(req.ip);
    return (await throttled(req, null)) ?? ASK_FOR_CREDENTIALS;
  }
  return actor;
}

/**
 * A snippet's repository (`snippets/<id>.git`, `<project>/snippets/<id>.git`): signed-in callers
 * as for projects (deploy tokens reach no snippet), then the snippet's own rules; an anonymous
 * caller fetches what anyone reads, and is asked to sign in for anything else.
 */
async function authorizeSnippet(req: FastifyRequest, ref: { projectPath: string | null; id: number }, command: string | undefined): Promise<Target | Refusal> {
  const { throttle } = req.server;
  const credentials = basicCredentials(req.headers.authorization);
  if (credentials && (await throttle.bannedFor(req.ip)) > 0) return BANNED;
  const authenticated = await authenticate(req, credentials);
  if ('status' in authenticated) return authenticated;
  const { actor } = authenticated;
  const service = command === 'git-upload-pack' || command === 'git-receive-pack' ? command : null;
  if (service === null) return { status: 403, message: GIT_ACCESS_MESSAGES.commandNotAllowed };
  if (actor === null && service === 'git-receive-pack') return ASK_FOR_CREDENTIALS;
  if (!credentialAllows(actor, service)) return { status: 403, message: service === 'git-upload-pack' ? GIT_ACCESS_MESSAGES.authDownload : GIT_ACCESS_MESSAGES.authUpload };
  req.actor = actor;
  const access = await checkSnippetGitAccess(req.server.deps, ref, actor, service);
  if (!access.ok) return actor === null && access.unreadable ? ASK_FOR_CREDENTIALS : access;
  return { service, pushed: { kind: 'snippet', id: access.snippetId }, project: null, gitDir: access.gitDir, actor };
}

/**
 * The user the credentials name (none given: null), counted against the git HTTP throttle; or the
 * refusal of credentials that name nobody.
 */
async function authenticate(req: FastifyRequest, credentials: { login: string; password: string } | null): Promise<{ actor: Actor | null } | Refusal> {
  let actor: Actor | null = null;
  if (credentials) {
    const signedIn = await signIn(req, credentials);
    if ('status' in signedIn) return signedIn;
    actor = signedIn;
  }
  return (await throttled(req, actor)) ?? { actor };
}

/**
 * Authenticates and checks access as the platform does (GitHttpClientController, GitAccess):
 * credentials that name nobody, or none where the code is not public, get 401 with a challenge;
 * a project the caller may not see is 404 to a signed-in caller; what they may not do is 403.
 * Credentials from an address banned for failing to authenticate too often are refused unread
 * (403), and refused credentials count towards that ban (the platform's git basic auth ban).
 */
async function authorize(req: FastifyRequest, fullPath: string, command: string | undefined): Promise<Target | Refusal> {
  const { deps, throttle } = req.server;
  const credentials = basicCredentials(req.headers.authorization);
  if (credentials && (await throttle.bannedFor(req.ip)) > 0) return BANNED;
  const found = await findProject(req, fullPath);
  // `<project or group>.wiki.git` is a wiki's repository, unless a project has that very path.
  if (!found && fullPath.endsWith(WIKI_SUFFIX)) return authorizeWiki(req, fullPath.slice(0, -WIKI_SUFFIX.length), command, credentials);
  if (credentials) {
    const viaDeployToken = await deployTokenAccess(req, credentials, found, command);
    if (viaDeployToken) return viaDeployToken;
  }
  const authenticated = await authenticate(req, credentials);
  if ('status' in authenticated) return authenticated;
  const { actor } = authenticated;
  if (!credentials && (command !== 'git-upload-pack' || !found || !projectAbilities(null, found.row, 0).has('download_code'))) {
    return ASK_FOR_CREDENTIALS;
  }
  req.actor = actor;
  const project = found ? { ...found, ...(await accessToProject(req, found.row)) } : null;
  // A project's token works for its own project only.
  if (actor?.user.user_type === 'project_bot' && (project?.access ?? 0) === 0) return ASK_FOR_CREDENTIALS;
  const gitDir = project ? existingProjectRepository(deps.config.repositoryStorages, project.row) : null;
  const access = checkGitAccess({ actor, command, project, repositoryExists: gitDir !== null });
  if (!access.ok) return access;
  return { service: access.service, pushed: { kind: 'project', id: (project as LoadedProject).row.id, storage: (project as LoadedProject).row.repository_storage }, project: project as LoadedProject, gitDir: gitDir as string, actor };
}

/**
 * A wiki's repository (the wikis module decides, for SSH too): over the same credentials as
 * projects' repositories; an anonymous caller fetches what anyone reads, and is asked to sign in
 * for anything else.
 */
async function authorizeWiki(req: FastifyRequest, containerPath: string, command: string | undefined, credentials: { login: string; password: string } | null): Promise<Target | Refusal> {
  const service = command === 'git-upload-pack' || command === 'git-receive-pack' ? command : null;
  const authenticated = await authenticate(req, credentials);
  if ('status' in authenticated) return authenticated;
  const { actor } = authenticated;
  req.actor = actor;
  if (actor === null && service !== 'git-upload-pack') return ASK_FOR_CREDENTIALS;
  if (service !== null && !credentialAllows(actor, service)) {
    return { status: 403, message: service === 'git-upload-pack' ? GIT_ACCESS_MESSAGES.authDownload : GIT_ACCESS_MESSAGES.authUpload };
  }
  if (service === null) return { status: 403, message: GIT_ACCESS_MESSAGES.commandNotAllowed };
  const access = await checkWikiGitAccess(serviceContext(req), { actor }, containerPath, service);
  if (!access.ok) return actor === null && access.unreadable ? ASK_FOR_CREDENTIALS : access;
  return { service, pushed: wikiRepository(access.container), gitDir: access.gitDir, actor, project: null };
}

export const gitHttpRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { deps } = app;
  // Request bodies stream into git as they come.
  app.addContentTypeParser(GIT_SERVICES.map(requestType), (_req, _payload, done) => done(null));
  // Git authenticates with HTTP Basic itself (authorize), and answers in git's formats or plain text.
  const config = { auth: 'none', json: false } as const;

  async function infoRefs(req: FastifyRequest, reply: FastifyReply) {
    if (req.method === 'HEAD') return reply.code(403).send();
    const segments = segmentsOf(req);
    const fullPath = fullPathOf(segments);
    if (fullPath === null) {
      // Cloning without `.git` works: git follows the redirect of its first request.
      const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
      if (!segments.every((s) => PATH_SEGMENT.test(s)) || !/^(service=git-(upload|receive)-pack)?$/.test(query)) return reply.callNotFound();
      return reply.redirect(`/${segments.join('/')}${GIT_SUFFIX}/info/refs${query ? `?${query}` : ''}`, 301);
    }
    const { service } = fieldsOf(req.query);
    const command = typeof service === 'string' ? service : undefined;
    const snippet = snippetRepositoryRef(fullPath);
    const target = snippet ? await authorizeSnippet(req, snippet, command) : await authorize(req, fullPath, command);
    if ('status' in target) return refuse(reply, target);
    const config = target.service === 'git-receive-pack' && target.project ? HIDDEN_FROM_PUSHES : [];
    const session = advertiseRefs(target.gitDir, target.service, { protocol: gitProtocol(req.headers['git-protocol']), config });
    const output = await session.output;
    if (!output) {
      req.log.error({ stderr: (await session.done).stderr }, 'git could not advertise refs');
      return plain(reply, 500, 'The repository could not be read.');
    }
    return reply.code(200).headers(NO_CACHE_HEADERS).type(advertisementType(target.service)).send(output);
  }

  function rpc(service: GitService) {
    return async (req: FastifyRequest, reply: FastifyReply) => {
      const fullPath = fullPathOf(segmentsOf(req));
      if (fullPath === null) return reply.callNotFound();
      const snippet = snippetRepositoryRef(fullPath);
      const target = snippet ? await authorizeSnippet(req, snippet, service) : await authorize(req, fullPath, service);
      if ('status' in target) return refuse(reply, target);
      if (req.headers['content-type'] !== requestType(service)) return plain(reply, 415, 'Unsupported Media Type');
      const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
      if (!['identity', 'gzip', 'x-gzip'].includes(encoding)) return plain(reply, 415, 'Unsupported Media Type');
      const maxBytes = service === 'git-receive-pack' ? deps.config.gitMaxPushBytes : deps.config.bodyLimit;
      if (Number(req.headers['content-length'] ?? 0) > maxBytes) return plain(reply, 413, 'Request Entity Too Large');

      const { project, gitDir, actor } = target;
      // A push holds a lease on its repository until it is over, which storage moves on every node wait for.
      const lease = service === 'git-receive-pack' ? await beginPush(deps, target.pushed) : null;
      if (service === 'git-receive-pack' && lease === null) return plain(reply, 403, REPOSITORY_READ_ONLY_MESSAGE);
      let session: ReturnType<typeof serviceRpc>;
      try {
        const push =
          service === 'git-receive-pack' && actor && project
            ? await openPushSession(deps.config, await pushRulesFor(deps, project, pusherOf(project, actor)), { projectId: project.row.id, userId: actor.user.id })
            : null;
        session = serviceRpc(
          gitDir,
          service,
          { body: req.raw, gzip: encoding !== 'identity', maxBytes },
          {
            protocol: gitProtocol(req.headers['git-protocol']),
            config: push?.config,
            env: push?.env,
            // What the push changed is recorded before the client hears that it is done.
            beforeEnd: async () => {
              try {
                await push?.finish(serviceContext(req), req.log);
              } finally {
                await lease?.release();
              }
            },
          },
        );
      } catch (error) {
        await lease?.release();
        throw error;
      }
      const output = await session.output;
      if (output) return reply.code(200).headers(NO_CACHE_HEADERS).type(resultType(service)).send(output);
      const exit = await session.done;
      if (exit.inputCut === 'too_large') return plain(reply, 413, 'Request Entity Too Large');
      if (exit.exitCode === 0) return reply.code(200).headers(NO_CACHE_HEADERS).type(resultType(service)).send('');
      if (exit.timedOut) return plain(reply, 503, 'The git operation timed out.');
      req.log.warn({ exitCode: exit.exitCode, inputCut: exit.inputCut, stderr: exit.stderr }, `git ${service} refused the request`);
      return plain(reply, 400, 'Bad Request');
    };
  }

  // One segment is a top-level group's wiki (`<group>.wiki.git`); projects have two or more.
  for (let depth = 1; depth <= MAX_SEGMENTS; depth++) {
    const base = Array.from({ length: depth }, (_, i) => `/:s${i}`).join('');
    app.get(`${base}/info/refs`, { config }, infoRefs);
    for (const service of GIT_SERVICES) app.post(`${base}/${service}`, { config }, rpc(service));
  }
};
