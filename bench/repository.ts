// The repository part of the benchmark: a fixture repository of 5,000 commits with 1,000 branches
// and 1,000 tags, whose tree holds 500 files in 50 directories (built with `git fast-import`, the
// same every run), pushed to and cloned from
// Quarry and, in turn, from plain `git http-backend`, so that the two are compared in one run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startGitBackend } from './git-backend.ts';

export const FIXTURE = { commits: 5_000, branches: 1_000, tags: 1_000, directories: 50, files: 500 };
/** Each clone and push is timed this many times per server, alternating, and the median kept. */
const ROUNDS = 3;

export interface GitTimings {
  quarryPushMs: number[];
  backendPushMs: number[];
  quarryCloneMs: number[];
  backendCloneMs: number[];
}

/**
 * Git as a client: no user configuration, no prompts. Asynchronous, because the http-backend
 * server it may talk to runs in this very process.
 */
export function git(args: string[], options: { cwd?: string; input?: string } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, HOME: options.cwd ?? '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.end(options.input ?? '');
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git ${args.slice(0, 2).join(' ')} failed (${code}): ${stderr.trim()}`))));
  });
}

/** The k-th file of the fixture's tree (k modulo the file count) and its directory. */
export const fixtureFile = (k: number) => `dir-${k % FIXTURE.directories}/file-${k % FIXTURE.files}.txt`;
export const fixtureDirectory = (k: number) => `dir-${k % FIXTURE.directories}`;

/**
 * The fast-import stream: each commit changes one file among 500 (dir-<n>/file-<m>.txt, ten per
 * directory, each changed ten times over history); branches and tags spread over history.
 */
function fastImportStream(): string {
  const parts: string[] = [];
  const at = 1_700_000_000;
  for (let i = 1; i <= FIXTURE.commits; i++) {
    const content = `line ${i}\n`;
    const message = `Change ${i}\n`;
    parts.push(
      `commit refs/heads/main\nmark :${i}\ncommitter Bench <bench@example.com> ${at + i} +0000\n` +
        `data ${Buffer.byteLength(message)}\n${message}` +
        `M 100644 inline ${fixtureFile(i)}\ndata ${Buffer.byteLength(content)}\n${content}\n`,
    );
  }
  const spread = (k: number, n: number) => 1 + Math.floor((k * FIXTURE.commits) / n);
  for (let k = 0; k < FIXTURE.branches; k++) parts.push(`reset refs/heads/feature/branch-${String(k).padStart(4, '0')}\nfrom :${spread(k, FIXTURE.branches)}\n\n`);
  for (let k = 0; k < FIXTURE.tags; k++) parts.push(`reset refs/tags/v1.${k}\nfrom :${spread(k, FIXTURE.tags)}\n\n`);
  return parts.join('');
}

/** Builds the fixture as a bare repository under `dir`; returns its path. */
export async function buildFixture(dir: string): Promise<string> {
  const repo = path.join(dir, 'fixture.git');
  await git(['init', '--quiet', '--bare', '--initial-branch=main', repo]);
  await git(['fast-import', '--quiet'], { cwd: repo, input: fastImportStream() });
  return repo;
}

/** Every branch and tag of the fixture, as push refspecs. */
const REFSPECS = ['refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*'];

async function timed(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export const medianMs = median;

export interface QuarryTarget {
  /** A fresh, empty project's clone URL with credentials, for each push round. */
  newEmptyRepositoryUrl(round: number): Promise<string>;
}

/**
 * Pushes the fixture to Quarry and to git http-backend, then clones it back from each, ROUNDS
 * times alternating. Returns the timings and the URL of the last Quarry repository pushed to.
 */
export async function measureGit(dir: string, fixture: string, quarry: QuarryTarget): Promise<{ timings: GitTimings; quarryUrl: string }> {
  const backendRoot = path.join(dir, 'backend');
  fs.mkdirSync(backendRoot, { recursive: true });
  const backend = await startGitBackend(backendRoot);
  const timings: GitTimings = { quarryPushMs: [], backendPushMs: [], quarryCloneMs: [], backendCloneMs: [] };
  let quarryUrl = '';
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const name = `pushed-${round}.git`;
      await git(['init', '--quiet', '--bare', path.join(backendRoot, name)]);
      timings.backendPushMs.push(await timed(() => git(['push', '--quiet', `${backend.url}/${name}`, ...REFSPECS], { cwd: fixture })));
      quarryUrl = await quarry.newEmptyRepositoryUrl(round);
      timings.quarryPushMs.push(await timed(() => git(['push', '--quiet', quarryUrl, ...REFSPECS], { cwd: fixture })));
    }
    for (let round = 0; round < ROUNDS; round++) {
      const into = (who: string) => path.join(dir, `clone-${who}-${round}`);
      timings.backendCloneMs.push(await timed(() => git(['clone', '--quiet', '--bare', `${backend.url}/pushed-0.git`, into('backend')], { cwd: dir })));
      timings.quarryCloneMs.push(await timed(() => git(['clone', '--quiet', '--bare', quarryUrl, into('quarry')], { cwd: dir })));
      for (const who of ['backend', 'quarry']) fs.rmSync(into(who), { recursive: true, force: true });
    }
  } finally {
    await backend.close();
  }
  return { timings, quarryUrl };
}
