// To-do lists (issue 16): a regular user, developer of a private project, with 10,000 pending
// to-dos (on 9,000 issues and 1,000 merge requests of the project; one in ten made by a note)
// written straight into the stopped server's database, then the user's GET /todos (the first page
// of 20, as clients ask for it) and two filtered lists, driven by autocannon. One server process on
// SQLite, started as its own process, then BENCH_WORKERS of them for the first page (QUARRY_WORKERS);
// load from autocannon in another. Writes the `todos` section
// of bench/RESULTS.md (`npm run bench` runs it after the dialects; alone: `node bench/todos.ts`).
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { BENCH_WORKERS, type Measure, benchServer, machineLine, measured, round, writeSection } from './ci-server.ts';

const TODOS = Number(process.env.BENCH_TODOS ?? 10_000);
/** One to-do in this many is on a merge request; one in NOTE_EVERY was made by a note. */
const MR_EVERY = 10;
const NOTE_EVERY = 10;
// Bound parameters per statement, within SQLite's limit.
const BATCH = 16_000;
const ISSUE_ACTIONS = ['assigned', 'mentioned', 'directly_addressed', 'marked'];
const MR_ACTIONS = ['review_requested', 'build_failed', 'assigned', 'unmergeable'];
const bench = benchServer();
const { api, base, cannon, dataDir } = bench;

function insertRows(db: DatabaseSync, table: string, columns: string[], rows: (string | number | null)[][]): { id: number }[] {
  const out: { id: number }[] = [];
  const size = Math.floor(BATCH / columns.length);
  for (let from = 0; from < rows.length; from += size) {
    const chunk = rows.slice(from, from + size);
    const marks = `(${columns.map(() => '?').join(', ')})`;
    const insert = db.prepare(`insert into ${table} (${columns.join(', ')}) values ${chunk.map(() => marks).join(', ')} returning id`);
    out.push(...(insert.all(...chunk.flat()) as { id: number }[]));
  }
  return out;
}

/** The targets (issues, merge requests, notes) and the user's to-dos on them, newest last. */
function seedTodos(projectId: number, userId: number, authorId: number) {
  const db = new DatabaseSync(path.join(dataDir, 'quarry.sqlite3'));
  const t0 = Date.parse('2022-01-01T00:00:00Z');
  const at = (n: number) => new Date(t0 + n * 60_000).toISOString();
  const mrCount = Math.ceil(TODOS / MR_EVERY);
  const issueCount = TODOS - mrCount;
  db.exec('begin');
  const issues = insertRows(
    db,
    'issues',
    ['project_id', 'iid', 'author_id', 'title', 'description', 'state', 'confidential', 'created_at', 'updated_at'],
    Array.from({ length: issueCount }, (_, i) => [projectId, i + 1, authorId, `Issue ${i + 1}`, `Something about ${i + 1}`, 'opened', 0, at(i), at(i)]),
  );
  const mrs = insertRows(
    db,
    'merge_requests',
    ['project_id', 'iid', 'author_id', 'title', 'description', 'state', 'source_branch', 'target_branch', 'created_at', 'updated_at'],
    Array.from({ length: mrCount }, (_, i) => [projectId, i + 1, authorId, `Change ${i + 1}`, `Changes ${i + 1}`, 'opened', `topic-${i + 1}`, 'main', at(i), at(i)]),
  );
  const targets = Array.from({ length: TODOS }, (_, i) => (i % MR_EVERY === 0 ? { type: 'MergeRequest', id: mrs[i / MR_EVERY].id } : { type: 'Issue', id: issues[i - Math.ceil(i / MR_EVERY)].id }));
  const notes = insertRows(
    db,
    'notes',
    ['project_id', 'noteable_type', 'noteable_id', 'author_id', 'body', 'system', 'confidential', 'resolvable', 'created_at', 'updated_at'],
    targets.flatMap((target, i) => (i % NOTE_EVERY === 1 ? [[projectId, target.type, target.id, authorId, `@bench-todo-user look at this (${i})`, 0, 0, 0, at(i), at(i)]] : [])),
  );
  insertRows(
    db,
    'todos',
    ['user_id', 'project_id', 'target_type', 'target_id', 'author_id', 'action', 'note_id', 'state', 'created_at', 'updated_at'],
    targets.map((target, i) => {
      const noteId = i % NOTE_EVERY === 1 ? notes[Math.floor(i / NOTE_EVERY)].id : null;
      const actions = target.type === 'Issue' ? ISSUE_ACTIONS : MR_ACTIONS;
      return [userId, projectId, target.type, target.id, authorId, noteId === null ? actions[i % actions.length] : 'mentioned', noteId, 'pending', at(i), at(i)];
    }),
  );
  for (const [usage, last] of [['issues', issueCount], ['merge_requests', mrCount]] as const) {
    db.prepare(
      `insert into internal_ids (project_id, namespace_id, usage, last_value) values (?, null, ?, ?)
       on conflict (usage, project_id) do update set last_value = excluded.last_value`,
    ).run(projectId, usage, last);
  }
  db.exec('commit');
  db.exec('analyze');
  db.close();
}

const verdict = (r: { rps: number; non2xx: number }) => (r.rps >= 1500 && r.non2xx === 0 ? 'met' : '**missed**');

async function main(): Promise<string[]> {
  const started = new Date();
  await bench.start();
  const user = (await api('POST', '/api/v4/users', { username: 'bench-todo-user', name: 'Bench Todo', email: 'bench-todo@example.com', password: 'bench-password-1', skip_confirmation: true })).json;
  const token = (await api('POST', `/api/v4/users/${user.id}/personal_access_tokens`, { name: 'bench', scopes: ['api'] })).json.token as string;
  const project = (await api('POST', '/api/v4/projects', { name: 'todos-bench', visibility: 'private' })).json;
  const member = await api('POST', `/api/v4/projects/${project.id}/members`, { user_id: user.id, access_level: 30 });
  if (member.status !== 201) throw new Error(`POST members answered ${member.status}`);
  await bench.stop();
  const seedStart = performance.now();
  seedTodos(project.id, user.id, 1);
  const seededMs = Math.round(performance.now() - seedStart);
  await bench.start();

  const listUrl = '/api/v4/todos';
  const check = await api('GET', listUrl, undefined, { 'private-token': token });
  if (check.status !== 200 || check.json.length !== 20) throw new Error(`the list answered ${check.status} with ${JSON.stringify(check.json).slice(0, 200)}`);
  const total = (await fetch(`${base}${listUrl}`, { headers: { 'private-token': token } })).headers.get('x-total');
  const bytes = JSON.stringify(check.json).length;
  const liveness = await cannon('/-/liveness');
  const list = await cannon(listUrl, 10, token);
  const byType = await cannon(`${listUrl}?type=MergeRequest`, 10, token);
  const byAction = await cannon(`${listUrl}?action=mentioned&page=10`, 10, token);
  await bench.stop();
  // The same list served by several processes sharing the port and the database (QUARRY_WORKERS).
  let workers: { liveness: Measure; list: Measure } | null = null;
  if (BENCH_WORKERS > 1) {
    await bench.start({ QUARRY_WORKERS: String(BENCH_WORKERS) });
    workers = { liveness: await cannon('/-/liveness'), list: await cannon(listUrl, 10, token) };
    await bench.stop();
  }

  const row = (label: string, r: Measure, target: boolean, yardstick = liveness) =>
    `| ${label} | ${measured(r)} | ${round(r.rps / yardstick.rps, 2)} | ${target ? `≥ 1,500 req/s | ${verdict(r)}` : '— |'} |`;
  return [
    '<!-- bench:todos -->',
    `## Latest run: to-do lists (SQLite, one server process${BENCH_WORKERS > 1 ? `, then ${BENCH_WORKERS}` : ''})`,
    '',
    machineLine(started),
    '',
    `Yardstick: GET /-/liveness ${liveness.rps.toLocaleString('en')} req/s (p99 ${liveness.p99} ms${liveness.non2xx > 0 ? `, ${liveness.non2xx.toLocaleString('en')} not 2xx` : ''}), measured in the same run; ratios are req/s over the yardstick's.`,
    '',
    '| Measure | value | ratio | target | |',
    '|---|--:|--:|---|---|',
    row(`GET /todos (${TODOS.toLocaleString('en')} pending to-dos, a developer of a private project)`, list, true),
    row('GET /todos?type=MergeRequest', byType, false),
    row('GET /todos?action=mentioned&page=10', byAction, false),
    ...(workers ? [row(`GET /todos with QUARRY_WORKERS=${BENCH_WORKERS} (its yardstick: ${workers.liveness.rps.toLocaleString('en')} req/s)`, workers.list, true, workers.liveness)] : []),
    '',
    `${TODOS.toLocaleString('en')} to-dos (one in ${MR_EVERY} on a merge request, one in ${NOTE_EVERY} made by a note) on as many issues and merge requests, seeded straight into the database in ${seededMs.toLocaleString('en')} ms; X-Total ${total ?? 'not sent'}. A page of 20 to-dos is ${Math.round(bytes / 1024)} KB of JSON: each carries its whole issue or merge request.`,
    'What changed on the way: X-Total tested the project of every to-do (9 ms for 10,000), then each project once over an index range of the to-dos (1.7 ms, still two thirds of the SQL of a request), and is now read from `todo_counts`, which triggers keep per user, state and project (0.01 ms); the filtered lists still count their to-dos per project. Then the request itself: what a page of to-dos shows is read in 13 statements instead of 20 (the users and projects of the to-dos and of their targets together, the labels and comment counts of issues and merge requests together), and the hot statements are compiled by Kysely once per shape (src/db/prepared.ts) instead of on every request: server CPU per request fell by about 30 % (old and new servers side by side, interleaved); the page of to-dos and its number followed (the kind of reader and the filters given shape them), another 14 % (700–780 µs of server CPU per request before, 590–700 after, interleaved). What remains is mostly SQLite turning the wide rows into objects, and the JSON, in one process that shares 2 cores with autocannon.',
    '<!-- /bench:todos -->',
  ];
}

await writeSection('todos', bench, main);
