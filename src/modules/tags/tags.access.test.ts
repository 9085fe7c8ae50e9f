// Who may call each tag route, on private, internal and public projects: reads need download_code
// (Reporter on a private project, any reader of an internal or public one, anonymous callers
// included on public ones); creating and deleting need push_code (Developer). Projects the caller
// may not see are 404s, blocked accounts 403s.
import { after, before, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { updateRef } from '../../git/refs.ts';
import { codeReaders, giveRepository } from '../../../test/fixtures/repository.ts';
import { TagEntity } from './tags.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
const repos = new Map<number, { dir: string; head: string }>();

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) {
    const repo = await giveRepository(t, project);
    await updateRef(repo.dir, 'refs/tags/v1.0', repo.head);
    repos.set(project.id, repo);
  }
});
after(() => t.close());

const developers = (success: number) => expectation({ auth: 'optional', success, minLevel: ACCESS.DEVELOPER });
const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/repository/tags`;
let sequence = 0;

/** A tag of its own for each call that deletes one. */
async function tagFor(c: MatrixCall): Promise<string> {
  const name = `${c.role}-${++sequence}`;
  const repo = repos.get(c.project.id);
  if (repo) await updateRef(repo.dir, `refs/tags/${name}`, repo.head);
  return name;
}

test('GET tags', async () => {
  await runMatrix(world, {
    expect: codeReaders,
    errors: refusals('Project'),
    call: (c) => t.get(base(c), { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), TagEntity),
  });
});

test('GET tags/:tag_name', async () => {
  await runMatrix(world, {
    expect: codeReaders,
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/v1.0`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), TagEntity),
  });
});

test('POST tags', async () => {
  await runMatrix(world, {
    expect: developers(201),
    errors: refusals('Project'),
    call: (c) => t.post(base(c), { token: c.caller.token, body: { tag_name: `new-${c.role}-${++sequence}`, ref: 'main', message: 'Annotated' } }),
    verify: (res) => expectEntity(res.json(), TagEntity),
  });
});

test('DELETE tags/:tag_name', async () => {
  await runMatrix(world, {
    expect: developers(204),
    errors: refusals('Project'),
    call: async (c) => t.del(`${base(c)}/${await tagFor(c)}`, { token: c.caller.token }),
  });
});
