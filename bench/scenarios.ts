// The load scenarios: what each sends, as whom, and the figures it should reach on SQLite.
import { fixtureDirectory, fixtureFile } from './repository.ts';

export type ScenarioKey =
  | 'liveness'
  | 'user-by-id'
  | 'users-list'
  | 'users-list-member'
  | 'current-user'
  | 'projects-admin'
  | 'projects-member'
  | 'projects-anonymous'
  | 'projects-keyset-member'
  | 'projects-page-50-member'
  | 'project-by-id-member'
  | 'namespaces-search-member'
  | 'namespaces-search-admin'
  | 'branches-list'
  | 'branches-search'
  | 'branch-by-name'
  | 'tags-list'
  | 'file-show'
  | 'file-raw'
  | 'tree-root'
  | 'tree-directory'
  | 'commits-page-1'
  | 'commits-page-10'
  | 'commits-path'
  | 'commit-by-sha'
  | 'commit-stats'
  | 'commits-path-walk'
  | 'archive'
  | 'create-user';

/** What the load worker needs to know about the seeded server. */
export interface LoadJob {
  url: string;
  scenario: ScenarioKey;
  adminToken: string;
  /** The regular user who is a member of 50 groups. */
  userToken: string;
  maxUserId: number;
  /** Projects the member may read, spread over the id range. */
  memberProjectIds: number[];
  /** Words that some group paths and names contain. */
  searchTerms: string[];
  /** The project holding the fixture repository (1,000 branches and tags), once pushed. */
  repositoryProjectId: number | null;
  /** The newest commits of its default branch. */
  repositoryCommitIds: string[];
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

/** The subset of autocannon's request object the scenarios set. */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Scenario {
  key: ScenarioKey;
  label: string;
  expectedStatus: number;
  /** Targets hold for the embedded SQLite database only. */
  target?: Target;
  /** A new request each call, so ids and usernames vary over the run. */
  next(job: LoadJob, counter: number, tag: string): LoadRequest;
}

export interface Target {
  rps?: number;
  p99Ms?: number;
  /** Also met, on a slower host, at no less than this fraction of another scenario's req/s in the same run. */
  orShareOf?: { key: ScenarioKey; share: number };
}

const json = { 'content-type': 'application/json' };
const LIST_TARGET = { rps: 1500, p99Ms: 30 };
const REPOSITORY_TARGET = { rps: 500, p99Ms: 50 };
/** Reads of the repository through the object readers: memory speed, or at least half of GET /projects/:id. */
const GIT_READ_TARGET: Target = { rps: 1000, p99Ms: 30, orShareOf: { key: 'project-by-id-member', share: 0.5 } };

/** A repository scenario: as the administrator, on the fixture's project; `null`: measured, no target. */
function onRepository(key: ScenarioKey, label: string, path: (counter: number, job: LoadJob, tag: string) => string, target: Target | null = REPOSITORY_TARGET): Scenario {
  return {
    key,
    label,
    expectedStatus: 200,
    ...(target ? { target } : {}),
    next: (job, counter, tag) => ({
      method: 'GET',
      path: `/api/v4/projects/${job.repositoryProjectId ?? 0}/repository/${path(counter, job, tag)}`,
      headers: { 'private-token': job.adminToken },
    }),
  };
}

const encoded = (k: number) => encodeURIComponent(fixtureFile(k));

const branch = (k: number) => `feature/branch-${String(k % 1000).padStart(4, '0')}`;

export const SCENARIOS: readonly Scenario[] = [
  {
    // No database, no authentication: what the machine allows an HTTP round trip in this run, the
    // yardstick for every other figure (this machine's speed varies from one run to the next).
    key: 'liveness',
    label: 'GET /-/liveness (no database, no authentication: the ceiling of this run)',
    expectedStatus: 200,
    next: () => ({ method: 'GET', path: '/-/liveness' }),
  },
  {
    key: 'user-by-id',
    label: 'GET /api/v4/users/:id (ids spread over 10,002 users, regular user)',
    expectedStatus: 200,
    target: { rps: 5000, p99Ms: 20 },
    next: (job) => ({
      method: 'GET',
      path: `/api/v4/users/${1 + Math.floor(Math.random() * job.maxUserId)}`,
      headers: { 'private-token': job.userToken },
    }),
  },
  {
    key: 'users-list',
    label: 'GET /api/v4/users?per_page=20 (admin)',
    expectedStatus: 200,
    target: { rps: 2000 },
    next: (job) => ({ method: 'GET', path: '/api/v4/users?per_page=20', headers: { 'private-token': job.adminToken } }),
  },
  {
    // Others' lists leave external users out: the count runs over an index, not the table's row count.
    key: 'users-list-member',
    label: 'GET /api/v4/users?per_page=20 (regular user)',
    expectedStatus: 200,
    target: { rps: 2000 },
    next: (job) => ({ method: 'GET', path: '/api/v4/users?per_page=20', headers: { 'private-token': job.userToken } }),
  },
  {
    key: 'current-user',
    label: 'GET /api/v4/user (regular user)',
    expectedStatus: 200,
    next: (job) => ({ method: 'GET', path: '/api/v4/user', headers: { 'private-token': job.userToken } }),
  },
  {
    key: 'projects-admin',
    label: 'GET /api/v4/projects?per_page=20 (admin)',
    expectedStatus: 200,
    target: LIST_TARGET,
    next: (job) => ({ method: 'GET', path: '/api/v4/projects?per_page=20', headers: { 'private-token': job.adminToken } }),
  },
  {
    key: 'projects-member',
    label: 'GET /api/v4/projects?per_page=20 (member of 50 groups)',
    expectedStatus: 200,
    target: LIST_TARGET,
    next: (job) => ({ method: 'GET', path: '/api/v4/projects?per_page=20', headers: { 'private-token': job.userToken } }),
  },
  {
    key: 'projects-anonymous',
    label: 'GET /api/v4/projects?per_page=20 (anonymous)',
    expectedStatus: 200,
    target: LIST_TARGET,
    next: () => ({ method: 'GET', path: '/api/v4/projects?per_page=20' }),
  },
  {
    key: 'projects-keyset-member',
    label: 'GET /api/v4/projects?pagination=keyset&order_by=id&sort=desc&per_page=20 (member)',
    expectedStatus: 200,
    target: LIST_TARGET,
    next: (job) => ({
      method: 'GET',
      path: '/api/v4/projects?pagination=keyset&order_by=id&sort=desc&per_page=20',
      headers: { 'private-token': job.userToken },
    }),
  },
  {
    key: 'projects-page-50-member',
    label: 'GET /api/v4/projects?per_page=20&page=50 (member)',
    expectedStatus: 200,
    target: LIST_TARGET,
    next: (job) => ({ method: 'GET', path: '/api/v4/projects?per_page=20&page=50', headers: { 'private-token': job.userToken } }),
  },
  {
    key: 'project-by-id-member',
    label: 'GET /api/v4/projects/:id (member; ids spread over the projects it may read)',
    expectedStatus: 200,
    next: (job) => ({
      method: 'GET',
      path: `/api/v4/projects/${job.memberProjectIds[Math.floor(Math.random() * job.memberProjectIds.length)]}`,
      headers: { 'private-token': job.userToken },
    }),
  },
  {
    key: 'namespaces-search-member',
    label: 'GET /api/v4/namespaces?search=<subgroup word> (member)',
    expectedStatus: 200,
    target: LIST_TARGET,
    next: (job, counter) => ({
      method: 'GET',
      path: `/api/v4/namespaces?search=${job.searchTerms[counter % job.searchTerms.length]}`,
      headers: { 'private-token': job.userToken },
    }),
  },
  {
    key: 'namespaces-search-admin',
    label: 'GET /api/v4/namespaces?search=<subgroup word> (admin; each word in 100 of 11,002 namespaces)',
    expectedStatus: 200,
    target: LIST_TARGET,
    next: (job, counter) => ({
      method: 'GET',
      path: `/api/v4/namespaces?search=${job.searchTerms[counter % job.searchTerms.length]}`,
      headers: { 'private-token': job.adminToken },
    }),
  },
  onRepository('branches-list', 'GET /projects/:id/repository/branches?per_page=20 (1,000 branches)', () => 'branches?per_page=20'),
  onRepository('branches-search', 'GET /projects/:id/repository/branches?search=<term> (1,000 branches)', (k) => `branches?per_page=20&search=branch-${k % 10}`),
  onRepository('branch-by-name', 'GET /projects/:id/repository/branches/:branch', (k) => `branches/${encodeURIComponent(branch(k * 7))}`, GIT_READ_TARGET),
  onRepository('tags-list', 'GET /projects/:id/repository/tags?per_page=20 (1,000 tags)', () => 'tags?per_page=20'),
  onRepository('file-show', 'GET /projects/:id/repository/files/:path?ref=main (500 files)', (k) => `files/${encoded(k)}?ref=main`, GIT_READ_TARGET),
  onRepository('file-raw', 'GET /projects/:id/repository/files/:path/raw?ref=main (500 files)', (k) => `files/${encoded(k)}/raw?ref=main`, GIT_READ_TARGET),
  onRepository('tree-root', 'GET /projects/:id/repository/tree?per_page=20 (root: 50 directories)', () => 'tree?per_page=20', GIT_READ_TARGET),
  onRepository('tree-directory', 'GET /projects/:id/repository/tree?path=<dir>&per_page=20 (50 directories)', (k) => `tree?per_page=20&path=${fixtureDirectory(k)}`, GIT_READ_TARGET),
  onRepository('commits-page-1', 'GET /projects/:id/repository/commits?per_page=20 (5,000 commits)', () => 'commits?per_page=20', GIT_READ_TARGET),
  onRepository('commits-page-10', 'GET /projects/:id/repository/commits?per_page=20&page=10', () => 'commits?per_page=20&page=10', GIT_READ_TARGET),
  onRepository('commits-path', 'GET /projects/:id/repository/commits?path=<dir>&per_page=20 (50 directories)', (k) => `commits?per_page=20&path=${fixtureDirectory(k)}`, GIT_READ_TARGET),
  onRepository('commit-by-sha', 'GET /projects/:id/repository/commits/:sha (100 commits)', (k, job) => `commits/${job.repositoryCommitIds[k % job.repositoryCommitIds.length] ?? 'main'}`, GIT_READ_TARGET),
  // What still starts a git process, measured without a target: a commit's diff stats (one
  // `diff-tree` walk per commit, then cached by its id) and an archive (one `git archive` per
  // request, streamed).
  onRepository('commit-stats', 'GET /projects/:id/repository/commits/:sha?stats=true (100 commits; diff-tree once per commit)', (k, job) => `commits/${job.repositoryCommitIds[k % job.repositoryCommitIds.length] ?? 'main'}?stats=true`, null),
  // A path's history not asked before: one rev-list per request (then cached by commit and path).
  // The warm-up walks pairs of its own, so that the measured requests find none cached.
  onRepository(
    'commits-path-walk',
    'GET /projects/:id/repository/commits?ref_name=<commit>&path=<file> (each pair new; rev-list per request)',
    (k, job, tag) => {
      const pair = k + (tag.endsWith('m') ? 0 : 25_000);
      const commits = Math.max(1, job.repositoryCommitIds.length);
      return `commits?per_page=20&ref_name=${job.repositoryCommitIds[pair % commits] ?? 'main'}&path=${fixtureFile(Math.floor(pair / commits))}`;
    },
    null,
  ),
  onRepository('archive', 'GET /projects/:id/repository/archive.tar.gz?sha=<commit> (500 files; git archive per request)', (k, job) => `archive.tar.gz?sha=${job.repositoryCommitIds[k % job.repositoryCommitIds.length] ?? 'main'}`, null),
  {
    // Last, because it adds users that the list scenario would otherwise count.
    key: 'create-user',
    label: 'POST /api/v4/users (admin; scrypt password hash per request)',
    expectedStatus: 201,
    next: (job, counter, tag) => {
      const username = `load-${tag}-${counter}`;
      return {
        method: 'POST',
        path: '/api/v4/users',
        headers: { ...json, 'private-token': job.adminToken },
        body: JSON.stringify({
          username,
          name: `Load ${counter}`,
          email: `${username}@bench.example.com`,
          password: 'bench-password-1',
          skip_confirmation: true,
        }),
      };
    },
  },
];

export function scenario(key: string): Scenario {
  const found = SCENARIOS.find((s) => s.key === key);
  if (!found) throw new Error(`unknown scenario "${key}"`);
  return found;
}
