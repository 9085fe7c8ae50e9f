// Where job artifacts are kept under the artifacts storage: by project, then pipeline, then job,
// so that deleting a project or a pipeline removes one directory. Each file has a name of its own
// (its type and a random part): a file is in place before the row that names it is committed, and
// an upload that loses a race never overwrites the winner's file.
import { randomBytes } from 'node:crypto';

export const projectArtifactsDir = (projectId: number) => String(projectId);
export const pipelineArtifactsDir = (projectId: number, pipelineId: number) => `${projectId}/${pipelineId}`;

export function newJobArtifactPath(job: { project_id: number; pipeline_id: number; id: number }, fileType: string): string {
  return `${pipelineArtifactsDir(job.project_id, job.pipeline_id)}/${job.id}/${fileType}-${randomBytes(6).toString('hex')}`;
}
