// Which pending job a runner gets (notes gitlab-ci.md §1.3.1), and handing it out exactly once.
// Candidates are the oldest pending jobs of the projects the runner serves: an instance runner,
// those with shared runners enabled; a group runner, those of its groups and their subgroups; a
// project runner, its projects. A `ref_protected` runner takes only jobs of protected refs; a job's
// tags must all be among the runner's; an untagged job needs `run_untagged`. A runner takes a job
// by deleting its pending row: of several runners (on any node) only one deletes it. Before the job
// runs, the platform's pre-assignment checks may fail it instead (a dependency's artifacts are
// gone, the job needs a feature the runner lacks), and the runner goes on to the next job.
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import { digest } from '../../core/auth/secrets.ts';
import { JOB_TOKEN_PREFIX } from '../../core/auth/job-tokens.ts';
import type { CiBuildRow, CiRunnerRow, DB } from '../../db/schema.ts';
import { escapeLike } from '../../core/search.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { processLater } from '../pipelines/index.ts';
import { dropJob } from './drop-job.ts';
import { type Dependency, dependenciesValid, dependencyJobs } from './job-dependencies.ts';

/** Candidates read per attempt: enough that tags filtered in memory rarely exhaust them. */
const CANDIDATES = 100;

interface Candidate {
  build_id: number;
  tag_list: string;
  protected: boolean;
}

async function candidates(db: Kysely<DB>, runner: CiRunnerRow, afterId: number): Promise<Candidate[]> {
  let query = db.selectFrom('ci_pending_builds as pb').select(['pb.build_id', 'pb.tag_list', 'pb.protected']).where('pb.build_id', '>', afterId);
  if (runner.runner_type === 'instance_type') {
    query = query.where((eb) =>
      eb.exists(eb.selectFrom('project_ci_cd_settings as s').select('s.project_id').whereRef('s.project_id', '=', 'pb.project_id').where('s.shared_runners_enabled', '=', true)),
    );
  } else if (runner.runner_type === 'project_type') {
    query = query.where((eb) => eb.exists(eb.selectFrom('ci_runner_projects as rp').select('rp.id').whereRef('rp.project_id', '=', 'pb.project_id').where('rp.runner_id', '=', runner.id)));
  } else {
    const groups = await db
      .selectFrom('ci_runner_namespaces as rn')
      .innerJoin('namespaces as n', 'n.id', 'rn.namespace_id')
      .select('n.traversal_path')
      .where('rn.runner_id', '=', runner.id)
      .execute();
    if (groups.length === 0) return [];
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('projects as p')
          .innerJoin('namespaces as pn', 'pn.id', 'p.namespace_id')
          .select('p.id')
          .whereRef('p.id', '=', 'pb.project_id')
          .where((inner) => inner.or(groups.map((g) => inner('pn.traversal_path', 'like', `${escapeLike(g.traversal_path)}%`)))),
      ),
    );
  }
  if (runner.access_level === 'ref_protected') query = query.where('pb.protected', '=', true);
  return query.orderBy('pb.build_id').limit(CANDIDATES).execute();
}

/** Whether the runner's tags and settings let it take a job with these tags. */
export function runnerMatchesTags(runner: Pick<CiRunnerRow, 'tag_list' | 'run_untagged'>, jobTags: readonly string[]): boolean {
  if (jobTags.length === 0) return runner.run_untagged;
  const tags = new Set(JSON.parse(runner.tag_list) as string[]);
  return jobTags.every((t) => tags.has(t));
}

/**
 * The runners among `runners` that serve each of these projects (instance runners where shared
 * runners are on, project runners on theirs, group runners in their groups and subgroups): three
 * queries at most, however many runners and projects.
 */
export async function runnersServing(db: Kysely<DB>, runners: readonly CiRunnerRow[], projectIds: readonly number[]): Promise<Map<number, CiRunnerRow[]>> {
  const serving = new Map<number, CiRunnerRow[]>();
  const byId = new Map(runners.map((r) => [r.id, r]));
  const add = (projectId: number, runner: CiRunnerRow | undefined) => {
    if (!runner) return;
    const list = serving.get(projectId);
    if (list) list.push(runner);
    else serving.set(projectId, [runner]);
  };
  const ofType = (type: string) => runners.filter((r) => r.runner_type === type);
  if (projectIds.length === 0) return serving;
  const instance = ofType('instance_type');
  if (instance.length > 0) {
    const shared = await db.selectFrom('project_ci_cd_settings').select('project_id').where('project_id', 'in', projectIds).where('shared_runners_enabled', '=', true).execute();
    for (const { project_id } of shared) for (const runner of instance) add(project_id, runner);
  }
  if (ofType('project_type').length > 0) {
    const pairs = await db.selectFrom('ci_runner_projects').select(['runner_id', 'project_id']).where('project_id', 'in', projectIds).execute();
    for (const pair of pairs) add(pair.project_id, byId.get(pair.runner_id));
  }
  if (ofType('group_type').length > 0) {
    // A group's subtree is the range [path, path || '~') of traversal paths (migration 0002).
    const pairs = await db
      .selectFrom('projects as p')
      .innerJoin('namespaces as pn', 'pn.id', 'p.namespace_id')
      .innerJoin('namespaces as n', (join) => join.onRef('pn.traversal_path', '>=', 'n.traversal_path').on('pn.traversal_path', '<', sql<string>`n.traversal_path || '~'`))
      .innerJoin('ci_runner_namespaces as rn', 'rn.namespace_id', 'n.id')
      .select(['p.id as project_id', 'rn.runner_id'])
      .where('p.id', 'in', projectIds)
      .execute();
    for (const pair of pairs) add(pair.project_id, byId.get(pair.runner_id));
  }
  return serving;
}

export interface Assignment {
  build: CiBuildRow;
  /** The job token, shown to the runner once. */
  token: string;
  /** The jobs whose artifacts and dotenv variables it receives. */
  dependencies: Dependency[];
}

const newJobToken = () => `${JOB_TOKEN_PREFIX}${randomBytes(15).toString('base64url')}`;

/** What the runner says it can do: its request's `info.features` (a feature counts unless false or absent). */
export type RunnerFeatures = Readonly<Record<string, unknown>> | undefined;

interface FeatureOptions {
  artifacts?: { reports?: Record<string, unknown>; exclude?: unknown[] } | null;
  release?: Record<string, unknown> | null;
  allow_failure_criteria?: { exit_codes?: unknown[] } | null;
}

const nonEmpty = (value: object | null | undefined) => value !== null && value !== undefined && Object.keys(value).length > 0;

/** The runner features a job needs, as the platform's Ci::Build::RUNNER_FEATURES (14.x) names and decides them. */
const RUNNER_FEATURES: Record<string, (options: FeatureOptions, ref: string) => boolean> = {
  upload_multiple_artifacts: (o) => nonEmpty(o.artifacts?.reports),
  refspecs: (_o, ref) => ref.startsWith('refs/merge-requests/'),
  artifacts_exclude: (o) => nonEmpty(o.artifacts?.exclude),
  multi_build_steps: (o) => nonEmpty(o.release),
  return_exit_code: (o) => nonEmpty(o.allow_failure_criteria?.exit_codes),
};

/** Whether the runner advertised every feature the job needs (supported_runner?). */
function supportsJob(features: RunnerFeatures, build: Pick<CiBuildRow, 'options' | 'ref'>): boolean {
  const options = JSON.parse(build.options) as FeatureOptions;
  return Object.entries(RUNNER_FEATURES).every(([name, needed]) => !needed(options, build.ref) || (features?.[name] ?? false) !== false);
}

/** Why the job may not run (pre_assign_runner_checks), or null when it may. */
async function preAssignFailure(ctx: ServiceContext, build: CiBuildRow, dependencies: readonly Dependency[], features: RunnerFeatures): Promise<string | null> {
  if (dependencies.length > 0) {
    const pipeline = await ctx.db.selectFrom('ci_pipelines').select('locked').where('id', '=', build.pipeline_id).executeTakeFirstOrThrow();
    if (!dependenciesValid(dependencies, pipeline.locked, ctx.now())) return 'missing_dependency_failure';
  }
  if (!supportsJob(features, build)) return 'runner_unsupported';
  return null;
}

/** Takes the oldest pending job this runner may run, moving it to running; null when there is none. */
export async function assignJob(ctx: ServiceContext, runner: CiRunnerRow, features: RunnerFeatures): Promise<Assignment | null> {
  let afterId = 0;
  for (;;) {
    const batch = await candidates(ctx.db, runner, afterId);
    for (const candidate of batch) {
      if (!runnerMatchesTags(runner, JSON.parse(candidate.tag_list) as string[])) continue;
      const taken = await take(ctx, runner, candidate.build_id, features);
      if (taken) return taken;
    }
    if (batch.length < CANDIDATES) return null;
    afterId = batch[batch.length - 1].build_id;
  }
}

/** The timeout of a job: its own, else the project's, lowered to the runner's maximum (build.rb update_timeout_state). */
function jobTimeout(options: { job_timeout?: number | null }, projectTimeout: number, runner: CiRunnerRow): { timeout: number; source: string } {
  let timeout = options.job_timeout ?? projectTimeout;
  let source = options.job_timeout ? 'job_timeout_source' : 'project_timeout_source';
  if (runner.maximum_timeout !== null && runner.maximum_timeout < timeout) {
    timeout = runner.maximum_timeout;
    source = 'runner_timeout_source';
  }
  return { timeout, source };
}

/** Takes the job for the runner, or fails it when a pre-assignment check says so; null when the runner did not get it. */
async function take(ctx: ServiceContext, runner: CiRunnerRow, buildId: number, features: RunnerFeatures): Promise<Assignment | null> {
  const token = newJobToken();
  return withTransaction(ctx, async (tx) => {
    const removed = await sql<{ build_id: number }>`delete from ci_pending_builds where build_id = ${buildId} returning build_id`.execute(tx.db);
    if (removed.rows.length === 0) return null; // another runner took it
    const build = await tx.db.selectFrom('ci_builds').selectAll().where('id', '=', buildId).executeTakeFirst();
    if (!build || build.status !== 'pending') return null;
    const dependencies = await dependencyJobs(tx.db, build);
    const failure = await preAssignFailure(tx, build, dependencies, features);
    if (failure) {
      await dropJob(tx, build, failure, runner.id);
      return null;
    }
    const settings = await tx.db.selectFrom('project_ci_cd_settings').select('build_timeout').where('project_id', '=', build.project_id).executeTakeFirst();
    const { timeout, source } = jobTimeout(JSON.parse(build.options) as { job_timeout?: number | null }, Number(settings?.build_timeout ?? 3600), runner);
    const now = ctx.now().toISOString();
    const running = { status: 'running', runner_id: runner.id, token_digest: digest(token), started_at: now, updated_at: now, timeout, timeout_source: source };
    await tx.db.updateTable('ci_builds').set(running).where('id', '=', buildId).execute();
    await enqueueHookEvent(tx.db, { projectId: build.project_id }, { kind: 'job', buildId });
    await processLater(tx.db, build.pipeline_id);
    return { build: { ...build, ...running }, token, dependencies };
  });
}
