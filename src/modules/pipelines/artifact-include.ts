// `trigger:include: - artifact: <path> job: <name>`: a child pipeline's configuration read out of
// the archive of a job of its parent pipeline, as the platform's ArtifactFileReader does it, with
// its limit (an archive of 5 MB at most) and its messages.
import type { ServiceContext } from '../../core/context.ts';
import { CiConfigError } from '../../ci/config/index.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { openZipEntry } from '../../storage/zip-archive.ts';

const MAX_ARCHIVE_BYTES = 5 * 1024 * 1024;

export async function readParentArtifactFile(ctx: ServiceContext, parentPipelineId: number, jobName: string, path: string): Promise<string> {
  const now = ctx.now().toISOString();
  const archive = await ctx.db
    .selectFrom('ci_builds')
    .innerJoin('ci_job_artifacts', 'ci_job_artifacts.build_id', 'ci_builds.id')
    .select(['ci_job_artifacts.size', 'ci_job_artifacts.file_path'])
    .where('ci_builds.pipeline_id', '=', parentPipelineId)
    .where('ci_builds.name', '=', jobName)
    .where('ci_builds.type', '=', 'build')
    .where('ci_builds.retried', '=', false)
    .where('ci_job_artifacts.file_type', '=', 'archive')
    .where((eb) => eb.or([eb('ci_job_artifacts.expire_at', 'is', null), eb('ci_job_artifacts.expire_at', '>', now)]))
    .executeTakeFirst();
  if (!archive) throw new CiConfigError(`Job \`${jobName}\` not found in parent pipeline or does not have artifacts!`);
  if (Number(archive.size) > MAX_ARCHIVE_BYTES) throw new CiConfigError(`Artifacts archive for job \`${jobName}\` is too large: max 5 MB`);
  const entry = await openZipEntry(artifactsStorage(ctx.config).localPath(archive.file_path), path.replace(/^\/+/, ''));
  if (!entry) throw new CiConfigError(`Path \`${path}\` does not exist inside the \`${jobName}\` artifacts archive!`);
  if (entry.size > MAX_ARCHIVE_BYTES) {
    entry.stream.destroy();
    throw new CiConfigError(`Artifacts archive for job \`${jobName}\` is too large: max 5 MB`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of entry.stream) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new CiConfigError(`File \`${path}\` is empty!`);
  return text;
}
