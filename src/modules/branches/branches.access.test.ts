// Who may call each branch route, on private, internal and public projects: reads need
// download_code (Reporter on a private project, any reader of an internal or public one, anonymous
// callers included on public ones); writes need push_code (Developer), which anonymous callers of
// a public project lack (403). Projects the caller may not see are 404s, blocked accounts 403s.
import { after, before, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { updateRef } from '../../git/refs.ts';
import { BranchEntity } from './branches.schemas.ts';
import { codeReaders, giveRepository } from '../../../test/fixtures/repository.ts';

let t: TestApp;
let world: MatrixWorld;
const dirs = new Map<number, { dir: string; head: string }>();

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) dirs.set(project.id, await giveRepository(t, project));
});
after(() => t.close());

const developers = (success: number) => expectation({ auth: 'optional', success, minLevel: ACCESS.DEVELOPER });

const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/repository`;
let sequence = 0;
/** A branch of its own for each call that changes one. */
async function branchFor(c: MatrixCall): Promise<string> {
  const name = `${c.role}-${++sequence}`;
  const repo = dirs.get(c.project.id);
  if (repo) await updateRef(repo.dir, `refs/heads/${name}`, repo.head);
  return name;
}

test('GET branches', async () => {
  await runMatrix(world, {
    expect: codeReaders,
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/branches`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), BranchEntity),
  });
});

test('GET branches/:branch', async () => {
  await runMatrix(world, {
    expect: codeReaders,
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/branches/main`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), BranchEntity),
  });
});

test('POST branches', async () => {
  await runMatrix(world, {
    expect: developers(201),
    errors: refusals('Project'),
    call: (c) => t.post(`${base(c)}/branches`, { token: c.caller.token, body: { branch: `new-${c.role}-${++sequence}`, ref: 'main' } }),
    verify: (res) => expectEntity(res.json(), BranchEntity),
  });
});

test('DELETE branches/:branch', async () => {
  await runMatrix(world, {
    expect: developers(204),
    errors: refusals('Project'),
    call: async (c) => t.del(`${base(c)}/branches/${await branchFor(c)}`, { token: c.caller.token }),
  });
});

test('DELETE merged_branches', async () => {
  await runMatrix(world, {
    expect: developers(202),
    errors: refusals('Project'),
    call: (c) => t.del(`${base(c)}/merged_branches`, { token: c.caller.token }),
  });
});
