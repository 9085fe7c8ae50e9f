// Publishing a project's site from a `pages` job that succeeded (14.x Projects::UpdatePagesService):
// the `public/` directory of the job's artifacts archive is extracted into the artifacts storage,
// beside the project's other files, and becomes the project's site; the site it replaces is
// removed. Refused, in the platform's words: a job without an archive, an archive without
// `public/`, a site larger than the instance's max_pages_size, and a job whose commit is no longer
// the head of its ref (a newer pipeline publishes instead).
import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import { repositoryDir, resolveRevision } from '../../domain/project-repository.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { PAGES_JOB_NAME } from '../../jobs/pages-work.ts';
import { PermanentJobError } from '../../jobs/queue.ts';
import { projectArtifactsDir } from '../../storage/artifact-paths.ts';
import { removeArtifactFilesLater } from '../../storage/deferred-removal.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { NotAZipError, UnsafeZipError, ZipLimitError, extractZipDirectory } from '../../storage/zip-archive.ts';
import { findArtifact } from '../ci-artifacts/artifacts.finder.ts';

export const PUBLIC_DIR = 'public';
const MEGABYTE = 1024 * 1024;
/** Gitlab::Pages::MAX_SIZE: the limit when max_pages_size is 0. */
const UNLIMITED = 1024 ** 4;

/** The reasons the platform gives for not publishing, as the job's error. */
const refused = (reason: string) => new PermanentJobError(`pages: ${reason}`);

/** Whether the job's commit is still the head of its ref. */
async function latest(ctx: ServiceContext, project: { id: number; repository_storage: string }, ref: string, sha: string): Promise<boolean> {
  return (await resolveRevision(repositoryDir(ctx.config, project), ref)) === sha;
}

/** Publishes the site of the job; throws PermanentJobError with the reason when the platform would not. */
export async function deploySite(ctx: ServiceContext, buildId: number): Promise<void> {
  const job = await ctx.db
    .selectFrom('ci_builds')
    .innerJoin('ci_pipelines', 'ci_pipelines.id', 'ci_builds.pipeline_id')
    .innerJoin('projects', 'projects.id', 'ci_builds.project_id')
    .select(['ci_builds.id', 'ci_builds.name', 'ci_builds.status', 'ci_builds.ref', 'ci_pipelines.sha', 'projects.id as project_id', 'projects.repository_storage'])
    .where('ci_builds.id', '=', buildId)
    .executeTakeFirst();
  if (!job || job.name !== PAGES_JOB_NAME || job.status !== 'success') return;
  const project = { id: job.project_id, repository_storage: job.repository_storage };
  const archive = await findArtifact(ctx.db, job.id, 'archive', ctx.now());
  if (!archive) throw refused('missing pages artifacts');
  if (!(await latest(ctx, project, job.ref, job.sha))) throw refused('build SHA is outdated for this ref');

  const settings = await applicationSettings(ctx.db);
  const maxBytes = settings.max_pages_size === 0 ? UNLIMITED : settings.max_pages_size * MEGABYTE;
  const storage = artifactsStorage(ctx.config);
  const name = randomBytes(8).toString('hex');
  const scratch = `tmp/pages-${name}`;
  const directory = `${projectArtifactsDir(project.id)}/pages/${name}`;
  let extracted;
  try {
    extracted = await extractZipDirectory(storage.localPath(archive.file_path), `${PUBLIC_DIR}/`, storage.localPath(scratch), maxBytes);
  } catch (error) {
    await storage.remove(scratch);
    if (error instanceof ZipLimitError) throw refused(`artifacts for pages are too large: ${error.message}`);
    if (error instanceof NotAZipError || error instanceof UnsafeZipError) throw refused('unsupported artifacts format');
    throw error;
  }
  if (!extracted) throw refused('pages miss the public folder');
  await storage.move(scratch, directory);
  try {
    if (!(await latest(ctx, project, job.ref, job.sha))) throw refused('build SHA is outdated for this ref');
    await withTransaction(ctx, async (tx) => {
      const previous = await tx.db.deleteFrom('pages_deployments').where('project_id', '=', project.id).returning('directory').execute();
      await tx.db
        .insertInto('pages_deployments')
        .values({ project_id: project.id, ci_build_id: job.id, sha: job.sha, ref: job.ref, directory, file_count: extracted.files, size: extracted.size, created_at: tx.now().toISOString() })
        .execute();
      await removeArtifactFilesLater(tx.db, previous.map((p) => p.directory));
    });
  } catch (error) {
    await storage.remove(directory);
    throw error;
  }
}
