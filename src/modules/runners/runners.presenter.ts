// Runner rows → Entities::Ci::Runner and RunnerDetails (14.x `lib/api/entities/ci/runner.rb`,
// `runner_details.rb`). The jobs API shows the same Runner entity.
import type { CiRunnerRow, NamespaceRow } from '../../db/schema.ts';
import { groupWebUrl } from '../../domain/urls.ts';
import type { ProjectSimple } from '../projects/projects.schemas.ts';
import type { Runner, RunnerDetails } from './runners.schemas.ts';

/** A runner is online while it called within the last two hours (14.x ONLINE_CONTACT_TIMEOUT). */
export const ONLINE_MS = 2 * 60 * 60 * 1000;

export const isOnline = (runner: Pick<CiRunnerRow, 'contacted_at'>, now: Date) =>
  runner.contacted_at !== null && now.getTime() - Date.parse(runner.contacted_at) < ONLINE_MS;

/** 14.x Ci::Runner#status: never contacted first, then paused, then online or offline. */
function status(runner: CiRunnerRow, online: boolean): string {
  if (runner.contacted_at === null) return 'not_connected';
  if (!runner.active) return 'paused';
  return online ? 'online' : 'offline';
}

export function presentRunner(runner: CiRunnerRow, now: Date): Runner {
  const online = isOnline(runner, now);
  return {
    id: runner.id,
    description: runner.description,
    ip_address: runner.ip_address,
    active: runner.active,
    is_shared: runner.runner_type === 'instance_type',
    runner_type: runner.runner_type,
    name: runner.name,
    online,
    status: status(runner, online),
  };
}

export interface RunnerDetailsParts {
  /** The runner's projects the viewer may see (all of them for administrators), presented. */
  projects: ProjectSimple[];
  /** The runner's groups the viewer may see. */
  groups: Pick<NamespaceRow, 'id' | 'name' | 'full_path'>[];
  baseUrl: string;
  now: Date;
}

export function presentRunnerDetails(runner: CiRunnerRow, parts: RunnerDetailsParts): RunnerDetails {
  return {
    ...presentRunner(runner, parts.now),
    tag_list: JSON.parse(runner.tag_list) as string[],
    run_untagged: runner.run_untagged,
    locked: runner.locked,
    maximum_timeout: runner.maximum_timeout,
    access_level: runner.access_level,
    version: runner.version,
    revision: runner.revision,
    platform: runner.platform,
    architecture: runner.architecture,
    contacted_at: runner.contacted_at,
    projects: parts.projects,
    groups: parts.groups.map((g) => ({ id: g.id, web_url: groupWebUrl(parts.baseUrl, g.full_path), name: g.name })),
  };
}
