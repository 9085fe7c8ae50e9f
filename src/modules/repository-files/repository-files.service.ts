// Creating, updating and deleting one file, each as one commit (the platform's Files::CreateService,
// UpdateService and DeleteService): the commits service does the work; what differs is the action
// and the words for a stale last_commit_id.
import type { Deps } from '../../core/deps.ts';
import { type ActionInput, type Writer, commitChange, decodeContent } from '../commits/commits.service.ts';
import type { DeleteFileBody, WriteFileBody } from './repository-files.schemas.ts';

const STALE = {
  update: 'You are attempting to update a file that has changed since you started editing it.',
  delete: 'You are attempting to delete a file that has been previously updated.',
};

function commitFile(deps: Deps, writer: Writer, body: DeleteFileBody, action: ActionInput, stale?: string): Promise<string> {
  return commitChange(deps, writer, {
    branch: body.branch,
    startBranch: body.start_branch,
    actions: [action],
    message: body.commit_message,
    authorName: body.author_name,
    authorEmail: body.author_email,
    staleMessage: stale === undefined ? undefined : () => stale,
  });
}

export function createFile(deps: Deps, writer: Writer, filePath: string, body: WriteFileBody): Promise<string> {
  const content = decodeContent(body.content, body.encoding);
  return commitFile(deps, writer, body, { action: 'create', filePath, content, executeFilemode: body.execute_filemode });
}

export function updateFile(deps: Deps, writer: Writer, filePath: string, body: WriteFileBody): Promise<string> {
  const content = decodeContent(body.content, body.encoding);
  return commitFile(deps, writer, body, { action: 'update', filePath, content, executeFilemode: body.execute_filemode, lastCommitId: body.last_commit_id }, STALE.update);
}

export function deleteFile(deps: Deps, writer: Writer, filePath: string, body: DeleteFileBody): Promise<string> {
  return commitFile(deps, writer, body, { action: 'delete', filePath, lastCommitId: body.last_commit_id }, STALE.delete);
}
