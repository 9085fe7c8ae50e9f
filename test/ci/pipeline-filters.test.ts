// The filters of a project's pipelines list (14.x PipelinesFinder) alone and together, each page cut
// in the database and its X-Total counting exactly the rows the filters keep, up to 10,000: beyond,
// X-Total, X-Total-Pages and rel="last" are left out, as the platform does. On SQLite, the statements
// of the common filters read index ranges, neither scanning the table nor sorting it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countStatement } from '../../src/core/pagination.ts';
import type { ProjectRow } from '../../src/db/schema.ts';
import { findPipelines, pipelinesCount } from '../../src/modules/pipelines/pipelines.finder.ts';
import { PipelineBasicEntity, type ListPipelinesQuery } from '../../src/modules/pipelines/pipelines.schemas.ts';
import { createProject } from '../factories.ts';
import { type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntities, expectError, expectStatus } from '../matchers.ts';

let t: TestApp;
let owner: TestUser;
let other: TestUser;
let project: ProjectRow;

interface Seeded {
  id: number;
  status: string;
  source: string;
  ref: string;
  tag: boolean;
  sha: string;
  user_id: number | null;
  yaml_errors: string | null;
  updated_at: string;
}
const seeded: Seeded[] = [];

const STATUSES = ['success', 'failed', 'running', 'pending', 'canceled', 'skipped', 'manual'];
const SOURCES = ['push', 'web', 'schedule', 'api', 'trigger'];
const REFS = ['main', 'feature', 'v1.0'];
const T0 = Date.parse('2025-06-01T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
let iid = 0;

/** Pipelines written straight to the database, `count` of them from `values(i)`, in batches. */
async function insertPipelines(projectId: number, count: number, values: (i: number) => Partial<Seeded>): Promise<number[]> {
  const ids: number[] = [];
  for (let from = 0; from < count; from += 500) {
    const rows = Array.from({ length: Math.min(500, count - from) }, (_, k) => {
      const i = from + k;
      const v = values(i);
      return {
        project_id: projectId, iid: ++iid, ref: v.ref ?? 'main', sha: v.sha ?? 'a'.repeat(40), before_sha: '0'.repeat(40), tag: v.tag ?? false, protected: false,
        source: v.source ?? 'push', status: v.status ?? 'success', yaml_errors: v.yaml_errors ?? null, user_id: v.user_id === undefined ? owner.user.id : v.user_id,
        created_at: at(i), updated_at: v.updated_at ?? at(i),
      };
    });
    const inserted = await t.deps.db.insertInto('ci_pipelines').values(rows).returning('id').execute();
    ids.push(...inserted.map((r) => r.id));
  }
  return ids;
}

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'Pipeline-Owner' });
  other = await t.user();
  project = await createProject(t, { creatorId: owner.user.id, members: [[owner.user.id, 50]] });
  const values = (i: number): Seeded => ({
    id: 0,
    status: STATUSES[i % STATUSES.length],
    source: SOURCES[(i * 3) % SOURCES.length],
    ref: REFS[i % REFS.length],
    tag: i % REFS.length === 2,
    sha: i % 4 === 0 ? 'b'.repeat(40) : 'c'.repeat(40),
    user_id: i % 5 === 0 ? other.user.id : i % 11 === 0 ? null : owner.user.id,
    yaml_errors: i % 9 === 0 ? 'jobs config should contain at least one visible job' : null,
    // Updated in an order of their own: an old pipeline may have changed lately.
    updated_at: at(((i * 7) % 45) + 100),
  });
  const ids = await insertPipelines(project.id, 45, values);
  ids.forEach((id, i) => seeded.push({ ...values(i), id }));
});
after(() => t.close());

async function list(query: Record<string, string>) {
  const res = await t.get(`/api/v4/projects/${project.id}/pipelines`, { token: owner.token, query: { per_page: '100', ...query } });
  expectStatus(res, 200);
  expectEntities(res.json(), PipelineBasicEntity);
  return res;
}

const FINISHED = ['success', 'failed', 'canceled', 'skipped'];
const latestOfRefs = (tag: boolean) => {
  const latest = new Map<string, number>();
  for (const p of seeded) if (p.tag === tag) latest.set(p.ref, Math.max(latest.get(p.ref) ?? 0, p.id));
  return new Set(latest.values());
};

const CASES: [string, Record<string, string>, (p: Seeded) => boolean][] = [
  ['status and source', { status: 'failed', source: 'web' }, (p) => p.status === 'failed' && p.source === 'web'],
  ['status and source, none', { status: 'manual', source: 'trigger' }, (p) => p.status === 'manual' && p.source === 'trigger'],
  ['ref and status', { ref: 'feature', status: 'success' }, (p) => p.ref === 'feature' && p.status === 'success'],
  ['scope=finished', { scope: 'finished' }, (p) => FINISHED.includes(p.status)],
  ['scope=running', { scope: 'running' }, (p) => p.status === 'running'],
  ['scope=finished and source', { scope: 'finished', source: 'push' }, (p) => FINISHED.includes(p.status) && p.source === 'push'],
  ['scope=tags: the latest of each tag', { scope: 'tags' }, (p) => latestOfRefs(true).has(p.id)],
  ['scope=branches: the latest of each branch', { scope: 'branches' }, (p) => latestOfRefs(false).has(p.id)],
  ['username, in any case', { username: 'pipeline-owner' }, (p) => p.user_id === owner.user.id],
  ['username and status', { username: 'Pipeline-Owner', status: 'success' }, (p) => p.user_id === owner.user.id && p.status === 'success'],
  ['username of nobody', { username: 'nobody-here' }, () => false],
  ['updated_after', { updated_after: at(130) }, (p) => p.updated_at > at(130)],
  ['updated_before', { updated_before: at(110) }, (p) => p.updated_at < at(110)],
  ['updated_after and updated_before, and status', { updated_after: at(105), updated_before: at(135), status: 'failed' }, (p) => p.updated_at > at(105) && p.updated_at < at(135) && p.status === 'failed'],
  ['sha', { sha: 'b'.repeat(40) }, (p) => p.sha === 'b'.repeat(40)],
  ['source', { source: 'schedule' }, (p) => p.source === 'schedule'],
  ['yaml_errors', { yaml_errors: 'true' }, (p) => p.yaml_errors !== null],
  ['yaml_errors=false and ref', { yaml_errors: 'false', ref: 'main' }, (p) => p.yaml_errors === null && p.ref === 'main'],
];

describe('GET /projects/:id/pipelines with filters', () => {
  for (const [name, query, keeps] of CASES) {
    test(name, async () => {
      const expected = seeded.filter(keeps).map((p) => p.id).sort((a, b) => b - a);
      const res = await list(query);
      assert.deepEqual(res.json().map((p: { id: number }) => p.id), expected);
      assert.equal(res.headers['x-total'], String(expected.length));
      assert.equal(res.headers['x-total-pages'], String(Math.max(1, Math.ceil(expected.length / 100))));
    });
  }

  test('pages of a filtered list, and its other orders', async () => {
    const failed = seeded.filter((p) => FINISHED.includes(p.status)).map((p) => p.id).sort((a, b) => b - a);
    const res = await list({ scope: 'finished', per_page: '4', page: '2' });
    assert.deepEqual(res.json().map((p: { id: number }) => p.id), failed.slice(4, 8));
    assert.equal(res.headers['x-total'], String(failed.length));
    assert.equal(res.headers['x-total-pages'], String(Math.ceil(failed.length / 4)));
    assert.equal(res.headers['x-next-page'], '3');
    assert.match(String(res.headers.link), /rel="last"/);

    const byUpdate = [...seeded].filter((p) => p.status === 'success').sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.id - b.id).map((p) => p.id);
    assert.deepEqual((await list({ status: 'success', order_by: 'updated_at', sort: 'asc' })).json().map((p: { id: number }) => p.id), byUpdate);
  });

  test('refused parameters', async () => {
    expectError(await t.get(`/api/v4/projects/${project.id}/pipelines`, { token: owner.token, query: { status: 'finished' } }), 400, { error: 'status does not have a valid value' });
    expectError(await t.get(`/api/v4/projects/${project.id}/pipelines`, { token: owner.token, query: { source: 'nowhere' } }), 400, { error: 'source does not have a valid value' });
    expectStatus(await t.get(`/api/v4/projects/${project.id}/pipelines`, { token: owner.token, query: { updated_after: 'yesterday' } }), 400);
  });
});

describe('X-Total beyond 10,000 rows', () => {
  test('is left out past 10,000 matching pipelines, and shown at 10,000', async () => {
    const big = await createProject(t, { creatorId: owner.user.id, members: [[owner.user.id, 50]] });
    const ids = await insertPipelines(big.id, 10_001, (i) => ({ status: 'failed', source: 'push', ref: i % 2 ? 'main' : 'other' }));
    await insertPipelines(big.id, 3, () => ({ status: 'success', source: 'push' }));
    const get = (query: Record<string, string>) => t.get(`/api/v4/projects/${big.id}/pipelines`, { token: owner.token, query });

    const beyond: Record<string, string>[] = [{ status: 'failed' }, { status: 'failed', source: 'push' }, { scope: 'finished' }, { username: owner.user.username }];
    for (const query of beyond) {
      const res = await get(query);
      expectStatus(res, 200);
      assert.equal(res.json().length, 20);
      assert.equal(res.headers['x-total'], undefined, JSON.stringify(query));
      assert.equal(res.headers['x-total-pages'], undefined);
      assert.equal(res.headers['x-next-page'], '2');
      assert.doesNotMatch(String(res.headers.link), /rel="last"/);
    }
    const half = await get({ status: 'failed', ref: 'main' });
    assert.equal(half.headers['x-total'], '5000');
    assert.equal(half.headers['x-total-pages'], '250');

    await t.deps.db.deleteFrom('ci_pipelines').where('id', '=', ids[0]).execute();
    const exactly = await get({ status: 'failed', source: 'push' });
    assert.equal(exactly.headers['x-total'], '10000');
    assert.equal(exactly.headers['x-total-pages'], '500');
    assert.match(String(exactly.headers.link), /rel="last"/);
  });
});

describe('the statements of the common filters', { skip: process.env.DATABASE_URL ? 'SQLite plans' : false }, () => {
  const FILTERS: ListPipelinesQuery[] = [
    { status: 'failed', source: 'push' },
    { ref: 'main', status: 'success' },
    { scope: 'finished' },
    { username: 'root' },
    { updated_after: '2025-06-01T00:00:00Z' },
    { updated_before: '2025-06-01T00:00:00Z' },
    { sha: 'a'.repeat(40) },
    { source: 'web' },
    { status: 'running' },
    { ref: 'main' },
  ];
  test('read index ranges: no scan of the table, no sort', async () => {
    const plan = async (compiled: { sql: string; parameters: readonly unknown[] }) => {
      const { rows } = await t.deps.db.executeQuery({ ...compiled, sql: `explain query plan ${compiled.sql}`, query: undefined as never } as never);
      return (rows as { detail: string }[]).map((r) => r.detail).join(' | ');
    };
    for (const filters of FILTERS) {
      const page = await plan(findPipelines(t.deps.db, project.id, filters).limit(21).compile());
      const count = await plan(countStatement(t.deps.db, 'sqlite', pipelinesCount(t.deps.db, project.id, filters)).compile());
      for (const [what, detail] of [['page', page], ['count', count]]) {
        assert.doesNotMatch(detail, /SCAN ci_pipelines\b|TEMP B-TREE/, `${JSON.stringify(filters)} ${what}: ${detail}`);
        assert.match(detail, /USING (COVERING )?INDEX ci_pipelines/, `${JSON.stringify(filters)} ${what}: ${detail}`);
      }
    }
  });
});
