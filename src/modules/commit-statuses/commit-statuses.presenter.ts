// The CommitStatus entity (14.x lib/api/entities/commit_status.rb), keys in its order; the sha is
// the pipeline's.
import type { UserRow } from '../../db/schema.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { CommitStatusRow } from './commit-statuses.finder.ts';
import type { CommitStatus } from './commit-statuses.schemas.ts';

export function presentCommitStatus(row: CommitStatusRow, author: UserRow | null, baseUrl: string): CommitStatus {
  return {
    id: row.id,
    sha: row.sha,
    ref: row.ref,
    status: row.status,
    name: row.name,
    target_url: row.target_url,
    description: row.description,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    allow_failure: row.allow_failure,
    coverage: row.coverage,
    author: author ? userBasicFields(author, baseUrl) : null,
  };
}
