// `quarry jobs`: the background queue for operators. Without arguments: the count of jobs by kind
// and state, then the failed ones with their last error; `quarry jobs retry <id>` queues a failed
// job again with a fresh set of attempts.
import type { Deps } from '../core/deps.ts';
import { countJobs } from '../jobs/queue.ts';

export async function jobsCommand(deps: Deps, args: string[], out: (line: string) => void): Promise<number> {
  const { db } = deps;
  const [action, rawId] = args;
  if (action === 'retry') {
    const id = Number(rawId);
    if (!Number.isSafeInteger(id) || id <= 0) {
      out('usage: quarry jobs retry <id>');
      return 2;
    }
    const now = new Date().toISOString();
    const result = await db
      .updateTable('background_jobs')
      .set({ state: 'queued', attempts: 0, run_at: now, locked_by: null, updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'failed')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      out(`no failed job ${id}`);
      return 1;
    }
    out(`job ${id} queued again`);
    return 0;
  }
  if (action !== undefined) {
    out('usage: quarry jobs [retry <id>]');
    return 2;
  }
  const counts = await countJobs(db);
  if (counts.length === 0) out('no background jobs queued, running or failed');
  for (const row of counts) out(`${row.kind}\t${row.state}\t${row.n}`);
  const failed = await db.selectFrom('background_jobs').selectAll().where('state', '=', 'failed').orderBy('id').limit(100).execute();
  if (failed.length > 0) out('\nfailed (retry with: quarry jobs retry <id>):');
  for (const job of failed) out(`${job.id}\t${job.kind}\t${job.attempts} attempts\t${job.updated_at}\t${(job.last_error ?? '').split('\n')[0]}`);
  return 0;
}
