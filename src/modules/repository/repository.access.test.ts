// Who reaches a repository through the files, commits, tree and archive routes: every role on
// every visibility. Reads need download_code (public repositories are open to anonymous callers,
// guests of a private project get 403); writes need push_code (developers and up).
import { after, before, test } from 'node:test';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { AUTHOR, codeReaders, giveRepository } from '../../../test/fixtures/repository.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createCommit } from '../../git/commits.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { CommitEntity } from '../../domain/commit-entity.ts';
import { CommitDetailEntity } from '../commits/commits.schemas.ts';
import { FileCommitEntity, FileEntity } from '../repository-files/repository-files.schemas.ts';
import { TreeObjectEntity } from './repository.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) await giveRepository(t, project);
});
after(() => t.close());

const pushers = (success: number) => expectation({ auth: 'optional', success, minLevel: ACCESS.DEVELOPER });
const errors = refusals('Project');
const base = (project: ProjectRow) => `/api/v4/projects/${project.id}/repository`;
let sequence = 0;
const fresh = () => `matrix-${++sequence}.txt`;
const commitBody = { branch: 'main', commit_message: 'matrix' };

test('reads: a file, its raw content, commits, one commit, the tree, an archive', async () => {
  const reads: [string, (project: ProjectRow) => string, ((body: unknown) => void) | null][] = [
    ['file', (p) => `${base(p)}/files/README.md?ref=main`, (body) => expectEntity(body, FileEntity)],
    ['raw', (p) => `${base(p)}/files/README.md/raw`, null],
    ['commits', (p) => `${base(p)}/commits`, (body) => expectEntities(body, CommitEntity)],
    ['commit', (p) => `${base(p)}/commits/main`, (body) => expectEntity(body, CommitDetailEntity)],
    ['tree', (p) => `${base(p)}/tree`, (body) => expectEntities(body, TreeObjectEntity)],
    ['archive', (p) => `${base(p)}/archive.tar.gz`, null],
  ];
  for (const [, route, check] of reads) {
    await runMatrix(world, {
      expect: codeReaders,
      errors,
      call: ({ caller, project }) => t.get(route(project), { token: caller.token }),
      verify: check ? (res) => check(res.json()) : undefined,
    });
  }
});

test('writes: create, update and delete a file; create a commit', async () => {
  await runMatrix(world, {
    expect: pushers(201),
    errors,
    call: ({ caller, project }) => t.post(`${base(project)}/files/${fresh()}`, { token: caller.token, body: { ...commitBody, content: 'x' } }),
    verify: (res) => expectEntity(res.json(), FileCommitEntity),
  });
  await runMatrix(world, {
    expect: pushers(200),
    errors,
    call: ({ caller, project }) => t.put(`${base(project)}/files/README.md`, { token: caller.token, body: { ...commitBody, content: fresh() } }),
    verify: (res) => expectEntity(res.json(), FileCommitEntity),
  });
  await runMatrix(world, {
    expect: pushers(204),
    errors,
    call: async ({ caller, project }) => {
      const path = fresh();
      const dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
      await createCommit(dir, { branch: 'main', actions: [{ action: 'create', path, content: 'x' }], message: 'to delete', author: AUTHOR });
      return t.del(`${base(project)}/files/${path}`, { token: caller.token, body: commitBody });
    },
  });
  await runMatrix(world, {
    expect: pushers(201),
    // A reader without push gets the platform's reason; a guest of a private project plain 403.
    errors: { 404: errors[404] },
    call: ({ caller, project }) => t.post(`${base(project)}/commits`, { token: caller.token, body: { ...commitBody, actions: [{ action: 'create', file_path: fresh(), content: 'x' }] } }),
    verify: (res) => expectEntity(res.json(), CommitDetailEntity),
  });
});
