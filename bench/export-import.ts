// Project export and import (issue 20): a project with the 5,000-commit repository of
// bench/repository.ts (1,000 branches, 1,000 tags) and 1,000 issues with 5 notes each (10 labels,
// 5 milestones), exported by the export job and imported again by the import job, in this process
// on SQLite (the jobs are what the work is; no HTTP in between). Wall time and the peak RSS of this
// process while each job runs (sampled every 10 ms; git's own processes are not counted), the
// archive's size, and a check that the import holds every issue and note. Writes the
// `export-import` section of bench/RESULTS.md (alone: `node bench/export-import.ts`).
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createDeps, prepare } from '../src/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import { actingUser } from '../src/core/auth/actor.ts';
import { systemContext } from '../src/core/context.ts';
import { openDatabase } from '../src/db/database.ts';
import { backgroundJobKinds } from '../src/jobs/kinds.ts';
import { drainJobs } from '../src/jobs/worker.ts';
import { scheduleExport } from '../src/modules/import-export/exports.service.ts';
import { scheduleImport } from '../src/modules/import-export/imports.service.ts';
import { createProject } from '../src/modules/projects/projects.service.ts';
import { artifactsStorage } from '../src/storage/file-storage.ts';
import { repositoryDir } from '../src/domain/project-repository.ts';
import { replaceSection } from './report.ts';
import { FIXTURE, buildFixture } from './repository.ts';

const ISSUES = Number(process.env.BENCH_EXPORT_ISSUES ?? 1_000);
const NOTES_PER_ISSUE = 5;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const MB = 1024 * 1024;

/** Runs fn while sampling this process's RSS; answers its wall time and the highest RSS seen. */
async function measured(fn: () => Promise<void>): Promise<{ ms: number; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const started = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  return { ms: performance.now() - started, peakMb: peak / MB };
}

const started = new Date();
const load = os.loadavg()[0];
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quarry-bench-export-'));
const config = loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_LOG_LEVEL: 'silent', QUARRY_ROOT_TOKEN: 'glpat-bench-export-0000000001', QUARRY_SSH_PORT: '0', QUARRY_BUILTIN_RUNNER: '0' });
const database = openDatabase({ url: null, poolSize: 1 });
const deps = createDeps(config, database);
await prepare(deps);
try {
  const root = await deps.db.selectFrom('users').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  const ctx = { ...systemContext(deps), actor: actingUser(root) };

  // The project, its repository fetched from the fixture, its issues and notes written straight in.
  const fixture = await buildFixture(dataDir);
  const project = await createProject(ctx, { name: 'Big', path: 'big' });
  const gitDir = repositoryDir(config, project) as string;
  execFileSync('git', ['--git-dir', gitDir, 'fetch', '--quiet', fixture, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*']);
  execFileSync('git', ['--git-dir', gitDir, 'symbolic-ref', 'HEAD', 'refs/heads/main']);
  await deps.db.updateTable('projects').set({ default_branch: 'main', empty_repo: false }).where('id', '=', project.id).execute();
  const at = new Date().toISOString();
  const labels = await deps.db
    .insertInto('labels')
    .values(Array.from({ length: 10 }, (_, k) => ({ project_id: project.id, group_id: null, title: `label-${k}`, color: '#428BCA', description: null, created_at: at, updated_at: at })))
    .returning('id')
    .execute();
  const milestones = await deps.db
    .insertInto('milestones')
    .values(Array.from({ length: 5 }, (_, k) => ({ project_id: project.id, group_id: null, iid: k + 1, title: `m${k}`, description: null, state: 'active', due_date: null, start_date: null, created_at: at, updated_at: at })))
    .returning('id')
    .execute();
  for (let from = 0; from < ISSUES; from += 200) {
    const issues = await deps.db
      .insertInto('issues')
      .values(
        Array.from({ length: Math.min(200, ISSUES - from) }, (_, k) => ({
          project_id: project.id,
          iid: from + k + 1,
          author_id: root.id,
          title: `Issue ${from + k + 1}`,
          description: `Body of issue ${from + k + 1}\n\n${'Lorem ipsum dolor sit amet. '.repeat(10)}`,
          milestone_id: milestones[(from + k) % milestones.length].id,
          created_at: at,
          updated_at: at,
        })),
      )
      .returning('id')
      .execute();
    await deps.db
      .insertInto('notes')
      .values(issues.flatMap(({ id }) => Array.from({ length: NOTES_PER_ISSUE }, (_, n) => ({ project_id: project.id, noteable_type: 'Issue', noteable_id: id, author_id: root.id, body: `Note ${n} ${'comment text '.repeat(8)}`, created_at: at, updated_at: at }))))
      .execute();
    await deps.db
      .insertInto('label_links')
      .values(issues.map(({ id }, k) => ({ label_id: labels[k % labels.length].id, target_type: 'Issue', target_id: id, created_at: at, updated_at: at })))
      .execute();
  }
  await deps.db.insertInto('internal_ids').values({ project_id: project.id, namespace_id: null, usage: 'issues', last_value: ISSUES }).execute();

  const exported = await measured(async () => {
    await scheduleExport(ctx, project, {});
    const outcomes = await drainJobs(deps, backgroundJobKinds);
    if (!outcomes.every((o) => o.ok)) throw new Error(`export failed: ${JSON.stringify(outcomes)}`);
  });
  const state = await deps.db.selectFrom('project_exports').selectAll().where('project_id', '=', project.id).executeTakeFirstOrThrow();
  if (state.status !== 'finished' || !state.file_path) throw new Error(`export ${state.status}: ${state.last_error}`);
  const storage = artifactsStorage(config);
  const archive = storage.localPath(state.file_path);
  const archiveMb = (await fs.stat(archive)).size / MB;

  let importedId = 0;
  const imported = await measured(async () => {
    const staged = await storage.stage(createReadStream(archive));
    const copy = await scheduleImport(ctx, { path: 'big-copy', overwrite: false, overrideParams: {} }, { upload: staged });
    importedId = copy.id;
    await drainJobs(deps, backgroundJobKinds);
  });
  const importState = await deps.db.selectFrom('project_import_states').selectAll().where('project_id', '=', importedId).executeTakeFirstOrThrow();
  if (importState.status !== 'finished') throw new Error(`import ${importState.status}: ${importState.last_error}`);
  const issues = await deps.db.selectFrom('issues').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', importedId).executeTakeFirstOrThrow();
  const notes = await deps.db.selectFrom('notes').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', importedId).executeTakeFirstOrThrow();
  if (Number(issues.n) !== ISSUES || Number(notes.n) !== ISSUES * NOTES_PER_ISSUE) throw new Error(`imported ${issues.n} issues and ${notes.n} notes`);
  const copyDir = repositoryDir(config, { id: importedId, repository_storage: project.repository_storage }) as string;
  const branches = execFileSync('git', ['--git-dir', copyDir, 'for-each-ref', '--count=100000', '--format=x', 'refs/heads']).toString().trim().split('\n').length;

  const cpus = os.cpus();
  const lines = [
    '<!-- bench:export-import -->',
    '## Latest run: project export and import (SQLite, in process)',
    '',
    `${started.toISOString()} · ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${round(os.totalmem() / 1024 ** 3)} GiB RAM, Node ${process.version} · load average ${load.toFixed(2)} before the run`,
    '',
    '| Measure | wall time | peak RSS of the process |',
    '|---|--:|--:|',
    `| Export: tree (${ISSUES.toLocaleString('en')} issues, ${(ISSUES * NOTES_PER_ISSUE).toLocaleString('en')} notes) + bundle of ${FIXTURE.commits.toLocaleString('en')} commits, ${FIXTURE.branches.toLocaleString('en')} branches, ${FIXTURE.tags.toLocaleString('en')} tags, tar.gz | ${round(exported.ms / 1000, 2)} s | ${round(exported.peakMb)} MB |`,
    `| Import of that archive (${round(archiveMb)} MB): extract, verify and fetch the bundle, restore the tree in one transaction | ${round(imported.ms / 1000, 2)} s | ${round(imported.peakMb)} MB |`,
    '',
    `The import holds ${Number(issues.n).toLocaleString('en')} issues, ${Number(notes.n).toLocaleString('en')} notes and ${branches.toLocaleString('en')} branches. The jobs run as the worker runs them (drainJobs), so the times include scheduling; git's processes (bundle create, verify, fetch) are not in the RSS. Records are read in batches of 200 with their notes, label links and assignees a query per batch, and written a line at a time; the import streams each relation file line by line.`,
    '<!-- /bench:export-import -->',
  ];
  replaceSection(path.join(import.meta.dirname, 'RESULTS.md'), 'export-import', lines.join('\n'));
  console.log(lines.join('\n'));
} finally {
  await database.close();
  await fs.rm(dataDir, { recursive: true, force: true });
}
