// Merges (issue 15): a project whose repository holds BRANCHES branches, each MERGE_COMMITS
// commits ahead of main (built with `git fast-import` in a temporary clone and pushed), one merge
// request per branch, then PUT …/merge_requests/:iid/merge with the merge-commit method, one call
// after another, timed from the client. Each merge moves main, so every later one is a real
// three-way merge. One server process on SQLite; the liveness yardstick of the same run.
// Writes the `merge` section of bench/RESULTS.md (`npm run bench` runs it after the issue lists;
// alone: `node bench/merge.ts`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TOKEN, benchServer, machineLine, percentile, round, sleep, writeSection } from './ci-server.ts';
import { git } from './repository.ts';

const BRANCHES = Number(process.env.BENCH_MERGES ?? 20);
const MERGE_COMMITS = 100;
const bench = benchServer();
const { api, base, cannon } = bench;

/** BRANCHES branches off `from`, each MERGE_COMMITS commits changing files of its own directory. */
function branchesStream(from: string): string {
  const parts: string[] = [];
  const at = 1_700_000_000;
  for (let b = 0; b < BRANCHES; b++) {
    for (let i = 1; i <= MERGE_COMMITS; i++) {
      const content = `branch ${b} change ${i}\n`;
      const message = `Branch ${b}, change ${i}\n`;
      parts.push(
        `commit refs/heads/bench/merge-${b}\ncommitter Bench <bench@example.com> ${at + b * MERGE_COMMITS + i} +0000\n` +
          `data ${Buffer.byteLength(message)}\n${message}` +
          (i === 1 ? `from ${from}\n` : '') +
          `M 100644 inline branch-${b}/file-${i % 10}.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`,
      );
    }
  }
  return parts.join('');
}

async function main(): Promise<string[]> {
  const started = new Date();
  await bench.start();
  const project = (await api('POST', '/api/v4/projects', { name: 'merge-bench', visibility: 'private', initialize_with_readme: true })).json;
  const main = (await api('GET', `/api/v4/projects/${project.id}/repository/branches/main`)).json.commit.id as string;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-merge-bench-'));
  try {
    const url = `${base.replace('http://', `http://root:${TOKEN}@`)}/${project.path_with_namespace}.git`;
    const repo = path.join(dir, 'branches.git');
    await git(['clone', '--quiet', '--bare', url, repo], { cwd: dir });
    await git(['fast-import', '--quiet'], { cwd: repo, input: branchesStream(main) });
    await git(['push', '--quiet', url, 'refs/heads/bench/*:refs/heads/bench/*'], { cwd: repo });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const iids: number[] = [];
  for (let b = 0; b < BRANCHES; b++) {
    const res = await api('POST', `/api/v4/projects/${project.id}/merge_requests`, { source_branch: `bench/merge-${b}`, target_branch: 'main', title: `Merge branch ${b}` });
    if (res.status !== 201) throw new Error(`POST merge_requests: ${res.status} ${JSON.stringify(res.json)}`);
    iids.push(res.json.iid);
  }
  // The merge status checks run in the background after creation: merges are timed once they are done.
  for (let waited = 0; waited < 300; waited++) {
    const list = (await api('GET', `/api/v4/projects/${project.id}/merge_requests?state=opened&per_page=100`)).json as { merge_status: string }[];
    if (list.every((mr) => mr.merge_status !== 'unchecked' && mr.merge_status !== 'checking')) break;
    await sleep(100);
  }

  const liveness = await cannon('/-/liveness');
  const times: number[] = [];
  for (const iid of iids) {
    const res = await api('PUT', `/api/v4/projects/${project.id}/merge_requests/${iid}/merge`, {});
    if (res.status !== 200 || res.json.state !== 'merged') throw new Error(`merge !${iid}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
    times.push(res.ms);
  }
  const ahead = (await api('GET', `/api/v4/projects/${project.id}/repository/commits?ref_name=main&per_page=1`)).json[0];
  await bench.stop();

  const ms = (n: number) => `${round(n)} ms`;
  return [
    '<!-- bench:merge -->',
    '## Latest run: merges (SQLite, one server process)',
    '',
    machineLine(started),
    '',
    `Yardstick: GET /-/liveness ${liveness.rps.toLocaleString('en')} req/s (p99 ${liveness.p99} ms${liveness.non2xx > 0 ? `, ${liveness.non2xx.toLocaleString('en')} not 2xx` : ''}), measured in the same run.`,
    '',
    '| Measure | p50 | p99 | mean | min | max |',
    '|---|--:|--:|--:|--:|--:|',
    `| PUT /projects/:id/merge_requests/:iid/merge (merge commit, ${MERGE_COMMITS} commits ahead; ${times.length} merges, one after another) | ${ms(percentile(times, 50))} | ${ms(percentile(times, 99))} | ${ms(times.reduce((a, b) => a + b, 0) / times.length)} | ${ms(Math.min(...times))} | ${ms(Math.max(...times))} |`,
    '',
    `${BRANCHES} branches of ${MERGE_COMMITS} commits each (${(BRANCHES * MERGE_COMMITS).toLocaleString('en')} commits, built with git fast-import and pushed over HTTP), one merge request each, merged into main in turn after their merge status checks; each merge moves main, so every later merge is a three-way merge against a new base. Timed from the client (the request, the git merge and commit, the ref update and the post-push work, the database writes). Last commit on main: "${String(ahead?.title ?? '')}". With ${times.length} samples p99 is the slowest merge.`,
    '<!-- /bench:merge -->',
  ];
}

await writeSection('merge', bench, main);
