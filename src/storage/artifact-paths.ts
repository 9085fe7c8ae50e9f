// Where job artifacts are kept under the artifacts storage: by project (a hashed path, as the
// platform keeps them, so that no directory gathers every project), then pipeline, then job, so
// that deleting a project or a pipeline removes one directory. Each file has a name of its own
// (its type and a random part): a file is in place before the row that names it is committed, and
// an upload that loses a race never overwrites the winner's file.
import { createHash, randomBytes } from 'node:crypto';

export function projectArtifactsDir(projectId: number): string {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return `${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`;
}

/** A group's stored files (its export archives, an archive waiting to be imported into it). */
export function groupFilesDir(groupId: number): string {
  const hash = createHash('sha256').update(`group-${groupId}`).digest('hex');
  return `groups/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`;
}

export const pipelineArtifactsDir = (projectId: number, pipelineId: number) => `${projectArtifactsDir(projectId)}/${pipelineId}`;

export function newJobArtifactPath(job: { project_id: number; pipeline_id: number; id: number }, fileType: string): string {
  return `${pipelineArtifactsDir(job.project_id, job.pipeline_id)}/${job.id}/${fileType}-${randomBytes(6).toString('hex')}`;
}

/** A package file's path under the packages storage: by project, then package, with a name of its own. */
export function newPackageFilePath(projectId: number, packageId: number): string {
  return `${projectArtifactsDir(projectId)}/${packageId}/${randomBytes(8).toString('hex')}`;
}
