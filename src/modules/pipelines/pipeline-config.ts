// Where a pipeline's configuration comes from, and what its includes read: the project's
// `ci_config_path` (empty: `.gitlab-ci.yml`; `file.yml@group/project[:ref]`: another project's
// file) at the pipeline's commit; `include:local` from the same commit; `include:project` from a
// project of this instance the user may read; `include:remote` over HTTP(S), refused for local
// addresses unless the instance allows them, as webhooks are, and fetched from the address checked.
import type { Kysely } from 'kysely';
import { projectAbilities } from '../../core/access/abilities.ts';
import { projectAccessLevel } from '../../core/access/authorizations.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { type OutboundResponse, OutboundError, checkedGet } from '../../core/outbound-http.ts';
import type { ServiceContext } from '../../core/context.ts';
import type { DB, ProjectRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { readBlob } from '../../git/commits.ts';
import { resolveCommit } from '../../git/refs.ts';
import { CiConfigError, type IncludeRef } from '../../ci/config/index.ts';
import { readParentArtifactFile } from './artifact-include.ts';

/** The platform's `max_yaml_size_bytes` default: a larger file is a configuration error. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
export const DEFAULT_CONFIG_PATH = '.gitlab-ci.yml';
const REMOTE_TIMEOUT_MS = 10_000;

export interface ConfigSource {
  /** The path as CI_CONFIG_PATH shows it. */
  path: string;
  content: string;
}

/** Reads a file of a project at a revision; null when the project, the revision or the file is missing. */
async function readProjectFile(ctx: ServiceContext, project: ProjectRow, revision: string, path: string): Promise<string | null> {
  const dir = repositoryDir(ctx.config, project);
  if (dir === null) return null;
  const blob = await readBlob(dir, revision, path, { maxBytes: MAX_CONFIG_BYTES + 1 });
  if (!blob) return null;
  if (blob.content.length > MAX_CONFIG_BYTES) throw new CiConfigError(`The parsed YAML is too big`);
  return blob.content.toString('utf8');
}

async function projectByPath(db: Kysely<DB>, fullPath: string): Promise<ProjectRow | null> {
  return (await db.selectFrom('projects').selectAll().where((eb) => eb(eb.fn('lower', ['full_path']), '=', fullPath.toLowerCase())).executeTakeFirst()) ?? null;
}

/** Whether the user may read a project's code. */
async function mayReadCode(db: Kysely<DB>, actor: Actor | null, project: ProjectRow): Promise<boolean> {
  const access = actor ? await projectAccessLevel(db, actor.user.id, project.id) : 0;
  return projectAbilities(actor, project, access).has('download_code');
}

/** The configuration of a pipeline of `project` at `sha`; null when there is none. */
export async function readPipelineConfig(ctx: ServiceContext, project: ProjectRow, sha: string, configuredPath: string | null): Promise<ConfigSource | null> {
  const configPath = configuredPath || DEFAULT_CONFIG_PATH;
  const external = /^(?<file>[^@]+)@(?<project>[^:]+)(?::(?<ref>.+))?$/.exec(configPath);
  if (!external?.groups) {
    const content = await readProjectFile(ctx, project, sha, configPath);
    return content === null ? null : { path: configPath, content };
  }
  const other = await projectByPath(ctx.db, external.groups.project);
  if (!other || !(await mayReadCode(ctx.db, ctx.actor, other))) return null;
  const content = await readProjectFile(ctx, other, external.groups.ref ?? other.default_branch ?? 'HEAD', external.groups.file);
  return content === null ? null : { path: configPath, content };
}

/**
 * Reads what the configuration includes, for the compiler; without a project (`POST /ci/lint`),
 * local files are an error; artifacts only for a child pipeline, from its parent's jobs.
 */
export function includeResolver(ctx: ServiceContext, project: ProjectRow | null, sha: string | null, parentPipelineId: number | null = null): (ref: IncludeRef) => Promise<string> {
  return async (ref) => {
    switch (ref.type) {
      case 'local': {
        if (project === null || sha === null) throw new CiConfigError(`Local file \`${ref.location}\` does not have project!`);
        const content = await readProjectFile(ctx, project, sha, ref.path.replace(/^\/+/, ''));
        if (content === null) throw new CiConfigError(`Local file \`${ref.path}\` does not exist!`);
        return content;
      }
      case 'project': {
        const other = await projectByPath(ctx.db, ref.project);
        if (!other || !(await mayReadCode(ctx.db, ctx.actor, other))) {
          throw new CiConfigError(`Project \`${ref.project}\` not found or access denied! Make sure any includes in the pipeline configuration are correctly defined.`);
        }
        const revision = ref.ref ?? other.default_branch ?? 'HEAD';
        const dir = repositoryDir(ctx.config, other);
        const commit = dir === null ? null : await resolveCommit(dir, revision);
        const content = commit === null ? null : await readProjectFile(ctx, other, commit, ref.file.replace(/^\/+/, ''));
        if (content === null) throw new CiConfigError(`Project \`${ref.project}\` file \`${ref.file}\` does not exist!`);
        return content;
      }
      case 'remote':
        return fetchRemote(ctx, ref.url);
      case 'artifact':
        if (parentPipelineId === null) throw new CiConfigError('Including configs from artifacts is only allowed when triggering child pipelines');
        return readParentArtifactFile(ctx, parentPipelineId, ref.job, ref.path);
      default:
        throw new CiConfigError(`Included file \`${JSON.stringify(ref)}\` could not be read`);
    }
  };
}

/** An `include:remote` file, fetched with the address protections of webhooks (core/outbound-http). */
async function fetchRemote(ctx: ServiceContext, url: string): Promise<string> {
  const settings = await applicationSettings(ctx.db);
  let response: OutboundResponse;
  try {
    response = await checkedGet(url, { allowLocal: settings.allow_local_requests_from_web_hooks_and_services, timeoutMs: REMOTE_TIMEOUT_MS, maxBytes: MAX_CONFIG_BYTES });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    switch (error.failure) {
      case 'invalid':
        throw new CiConfigError(`Remote file \`${url}\` does not have a valid address!`);
      case 'blocked':
        throw new CiConfigError(`Remote file could not be fetched because ${error.message}!`);
      case 'timeout':
        throw new CiConfigError(`Remote file \`${url}\` could not be fetched because of a timeout error!`);
      case 'too_large':
        throw new CiConfigError('The parsed YAML is too big');
      default:
        throw new CiConfigError(`Remote file \`${url}\` could not be fetched because of a socket error!`);
    }
  }
  if (response.status >= 400) throw new CiConfigError(`Remote file \`${url}\` could not be fetched because of HTTP code \`${response.status}\` error!`);
  return response.body.toString('utf8');
}
