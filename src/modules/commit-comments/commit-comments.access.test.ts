// Who may read and write comments on commits, on private, internal and public projects: reading
// needs download_code (Reporter on a private project, any reader of an internal or public one,
// anonymous callers included on public ones); commenting needs a signed-in reader of the code.
// Projects the caller may not see are 404s, blocked accounts 403s.
import { after, before, test } from 'node:test';
import { type Expectation, type MatrixCall, type MatrixWorld, buildMatrixWorld, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { codeReaders, giveRepository } from '../../../test/fixtures/repository.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { CommitNoteEntity } from '../notes/notes.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
const heads = new Map<number, string>();

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) heads.set(project.id, (await giveRepository(t, project)).head);
});
after(() => t.close());

const url = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/repository/commits/${heads.get(c.project.id)}/comments`;
const commenters: Expectation = (role, visibility) => {
  if (role === 'anonymous') return 401;
  const status = codeReaders(role, visibility);
  return status === 200 ? 201 : status;
};

test('GET repository/commits/:sha/comments', async () => {
  await runMatrix(world, {
    expect: codeReaders,
    errors: refusals('Project'),
    call: (c) => t.get(url(c), { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), CommitNoteEntity),
  });
});

test('POST repository/commits/:sha/comments', async () => {
  await runMatrix(world, {
    expect: commenters,
    errors: refusals('Project'),
    call: (c) => t.post(url(c), { token: c.caller.token, body: { note: `from ${c.role}`, path: 'README.md', line: 1 } }),
    verify: (res) => expectEntity(res.json(), CommitNoteEntity),
  });
});
