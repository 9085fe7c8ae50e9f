// Creating, updating and deleting one file, each as one commit (the platform's Files::CreateService,
// UpdateService and DeleteService): the commits service does the work; what differs is the action
// and the words for a stale last_commit_id.
import type { LoadedProject } from '../../core/access/loaders.ts';
import type { ServiceContext } from '../../core/context.ts';
import { type ActionInput, commitChange, decodeContent } from '../commits/commits.service.ts';
import type { DeleteFileBody, WriteFileBody } from './repository-files.schemas.ts';

const STALE = {
  update: 'You are attempting to update a file that has changed since you started editing it.',
  delete: 'You are attempting to delete a file that has been previously updated.',
};

function commitFile(ctx: ServiceContext, project: LoadedProject, body: DeleteFileBody, action: ActionInput, stale?: string): Promise<string> {
  return commitChange(ctx, project, {
    branch: body.branch,
    startBranch: body.start_branch,
    actions: [action],
    message: body.commit_message,
    authorName: body.author_name,
    authorEmail: body.author_email,
    staleMessage: stale === undefined ? undefined : () => stale,
  });
}

export function createFile(ctx: ServiceContext, project: LoadedProject, filePath: string, body: WriteFileBody): Promise<string> {
  const content = decodeContent(body.content, body.encoding);
  return commitFile(ctx, project, body, { action: 'create', filePath, content, executeFilemode: body.execute_filemode });
}

export function updateFile(ctx: ServiceContext, project: LoadedProject, filePath: string, body: WriteFileBody): Promise<string> {
  const content = decodeContent(body.content, body.encoding);
  return commitFile(ctx, project, body, { action: 'update', filePath, content, executeFilemode: body.execute_filemode, lastCommitId: body.last_commit_id }, STALE.update);
}

export function deleteFile(ctx: ServiceContext, project: LoadedProject, filePath: string, body: DeleteFileBody): Promise<string> {
  return commitFile(ctx, project, body, { action: 'delete', filePath, lastCommitId: body.last_commit_id }, STALE.delete);
}
