// Who may call each release route, on private, internal and public projects: every reader of a
// project reads its releases (read_release), a single release only those who may download the
// code (not guests of a private project); developers create, update and delete releases and
// their links. Projects the caller may not see are 404s, blocked accounts 403s.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectStatus } from '../../../test/matchers.ts';
import { updateRef } from '../../git/refs.ts';
import { codeReaders, giveRepository } from '../../../test/fixtures/repository.ts';
import { LinkEntity, ReleaseEntity } from './releases.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
const repos = new Map<number, { dir: string; head: string }>();
let sequence = 0;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) {
    const repo = await giveRepository(t, project);
    repos.set(project.id, repo);
    await updateRef(repo.dir, 'refs/tags/v1.0', repo.head);
    expectStatus(await t.post(`/api/v4/projects/${project.id}/releases`, { token: ROOT_TOKEN, body: { tag_name: 'v1.0', assets: { links: [{ name: 'a', url: 'https://example.com/a' }] } } }), 201);
  }
});
after(() => t.close());

const readers = expectation({ auth: 'optional', success: 200 });
const developers = (success: number) => expectation({ auth: 'optional', success, minLevel: ACCESS.DEVELOPER });
const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/releases`;

/** A release of its own for each call that changes or deletes one. */
async function releaseFor(c: MatrixCall): Promise<string> {
  const tag = `${c.role}-${++sequence}`;
  const repo = repos.get(c.project.id)!;
  await updateRef(repo.dir, `refs/tags/${tag}`, repo.head);
  expectStatus(await t.post(base(c), { token: ROOT_TOKEN, body: { tag_name: tag, assets: { links: [{ name: 'a', url: 'https://example.com/a' }] } } }), 201);
  return tag;
}

async function linkOf(c: MatrixCall, tag: string): Promise<number> {
  const res = await t.get(`${base(c)}/${tag}/assets/links`, { token: ROOT_TOKEN });
  return (res.json() as { id: number }[])[0].id;
}

test('GET releases', async () => {
  await runMatrix(world, {
    expect: readers,
    errors: refusals('Project'),
    call: (c) => t.get(base(c), { token: c.caller.token }),
    verify: (res) => {
      expectEntities(res.json(), ReleaseEntity);
      assert.equal(res.json().length, 1);
    },
  });
});

test('GET releases/:tag_name', async () => {
  await runMatrix(world, {
    expect: codeReaders,
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/v1.0`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), ReleaseEntity),
  });
});

test('POST releases', async () => {
  await runMatrix(world, {
    expect: developers(201),
    errors: refusals('Project'),
    call: async (c) => {
      const tag = `new-${c.role}-${++sequence}`;
      const repo = repos.get(c.project.id)!;
      await updateRef(repo.dir, `refs/tags/${tag}`, repo.head);
      return t.post(base(c), { token: c.caller.token, body: { tag_name: tag } });
    },
    verify: (res) => expectEntity(res.json(), ReleaseEntity),
  });
});

test('PUT releases/:tag_name', async () => {
  await runMatrix(world, {
    expect: developers(200),
    errors: refusals('Project'),
    call: async (c) => t.put(`${base(c)}/${await releaseFor(c)}`, { token: c.caller.token, body: { name: 'Renamed' } }),
    verify: (res) => expectEntity(res.json(), ReleaseEntity),
  });
});

test('DELETE releases/:tag_name', async () => {
  await runMatrix(world, {
    expect: developers(200),
    errors: refusals('Project'),
    call: async (c) => t.del(`${base(c)}/${await releaseFor(c)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), ReleaseEntity),
  });
});

test('GET releases/:tag_name/assets/links and one link', async () => {
  await runMatrix(world, {
    expect: readers,
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/v1.0/assets/links`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), LinkEntity),
  });
  await runMatrix(world, {
    expect: readers,
    errors: refusals('Project'),
    call: async (c) => t.get(`${base(c)}/v1.0/assets/links/${await linkOf(c, 'v1.0')}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), LinkEntity),
  });
});

test('POST, PUT and DELETE releases/:tag_name/assets/links', async () => {
  await runMatrix(world, {
    expect: developers(201),
    errors: refusals('Project'),
    call: (c) => t.post(`${base(c)}/v1.0/assets/links`, { token: c.caller.token, body: { name: `l-${++sequence}`, url: `https://example.com/${sequence}` } }),
    verify: (res) => expectEntity(res.json(), LinkEntity),
  });
  // A link of a release of its own for each call that changes or deletes one.
  for (const method of ['PUT', 'DELETE'] as const) {
    await runMatrix(world, {
      expect: developers(200),
      errors: refusals('Project'),
      call: async (c) => {
        const tag = await releaseFor(c);
        return t.request(method, `${base(c)}/${tag}/assets/links/${await linkOf(c, tag)}`, { token: c.caller.token, body: method === 'PUT' ? { name: 'renamed' } : undefined });
      },
      verify: (res) => expectEntity(res.json(), LinkEntity),
    });
  }
});
