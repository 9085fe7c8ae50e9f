// Job tokens as credentials (notes gitlab-ci.md §1.8, §5): a token is valid while its job runs,
// and the request acts as the user who started the job.
import type { JobTokenResolver } from '../../core/auth/job-tokens.ts';
import { digest } from '../../core/auth/secrets.ts';

export const resolveJobToken: JobTokenResolver = async (db, token) => {
  const row = await db
    .selectFrom('ci_builds')
    .innerJoin('users', 'users.id', 'ci_builds.user_id')
    .selectAll('users')
    .select(['ci_builds.id as job_id', 'ci_builds.status as job_status', 'ci_builds.erased_at as job_erased_at'])
    .where('ci_builds.token_digest', '=', digest(token))
    .executeTakeFirst();
  if (!row || row.job_status !== 'running' || row.job_erased_at !== null) return null;
  const { job_id, job_status: _status, job_erased_at: _erased, ...user } = row;
  return { user, jobId: job_id };
};
