// A project's repository: created with the project (with a README commit when asked), HEAD set by
// PUT default_branch, moved between storages, read-only, removed with the project; empty_repo.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectError, expectStatus } from '../../../test/matchers.ts';
import { DomainError } from '../../core/errors.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createCommit, getCommit, readBlob, readTree } from '../../git/commits.ts';
import { ZERO_OID } from '../../git/args.ts';
import { deleteRef, listRefs, resolveRef } from '../../git/refs.ts';
import { recordRefUpdates, refsUpdatedJob } from '../pushes/push.service.ts';
import { projectRepositoryPath, readDefaultBranch, repositoryExists, repositoryPath } from '../../git/repository.ts';
import { REPOSITORY_READ_ONLY_MESSAGE, assertWritable } from '../../domain/project-repository.ts';
import { systemContext } from '../../core/context.ts';

let t: TestApp;
let alice: TestUser;

before(async () => {
  t = await createTestApp({ QUARRY_REPOSITORY_STORAGES: '{"default":"repositories","other":"other-repositories","broken":"broken"}' });
  alice = await t.user({ username: 'alice', name: 'Alice Liddell' });
  // A storage whose directory is a file: nothing can be created on it.
  fs.writeFileSync(path.join(t.deps.config.dataDir, 'broken'), '');
});
after(() => t.close());

const create = (body: Record<string, unknown>, token = alice.token) => t.post('/api/v4/projects', { token, body });
const row = (id: number) => t.deps.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const repoOf = async (id: number) => projectRepositoryPath(t.deps.config.repositoryStorages, await row(id)) as string;
const storageDir = (name: string) => t.deps.config.repositoryStorages[name];

/** The repositories a storage holds, and what its scratch area still holds. */
function contents(storage: string): { repositories: string[]; scratch: string[] } {
  const dir = storageDir(storage);
  const hashed = path.join(dir, '@hashed');
  const repositories = fs.existsSync(hashed) ? fs.readdirSync(hashed, { recursive: true, encoding: 'utf8' }).filter((p) => /^[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}\.git$/.test(p)) : [];
  const tmp = path.join(dir, '@tmp');
  return { repositories, scratch: fs.existsSync(tmp) ? fs.readdirSync(tmp) : [] };
}

describe('creation', () => {
  test('initialize_with_readme: a bare repository under the data dir whose default branch has one commit with README.md', async () => {
    const res = await create({ name: 'With Readme', description: 'About it', initialize_with_readme: true });
    expectStatus(res, 201);
    const body = res.json();
    assert.equal(body.default_branch, 'main');
    assert.equal(body.empty_repo, false);
    const dir = await repoOf(body.id);
    assert.equal(dir, repositoryPath(path.join(t.deps.config.dataDir, 'repositories'), body.id));
    assert.equal(repositoryExists(dir), true);
    assert.equal(fs.existsSync(path.join(dir, 'HEAD')) && !fs.existsSync(path.join(dir, '.git')), true);
    assert.equal(await readDefaultBranch(dir), 'main');
    assert.deepEqual((await listRefs(dir)).map((r) => r.ref), ['refs/heads/main']);
    const commit = await getCommit(dir, 'main');
    assert.ok(commit);
    assert.deepEqual(commit.parents, []);
    assert.equal(commit.message, 'Initial commit');
    assert.equal(commit.author.name, 'Alice Liddell');
    assert.equal(commit.author.email, 'alice@example.com');
    assert.deepEqual((await readTree(dir, 'main'))?.map((e) => e.path), ['README.md']);
    assert.equal((await readBlob(dir, 'main', 'README.md'))?.content.toString(), '# With Readme\n\nAbout it');
    expectStatus(await t.get(`/api/v4/projects/${body.id}`, { token: alice.token }), 200);
    assert.equal((await t.get(`/api/v4/projects/${body.id}`, { token: alice.token })).json().empty_repo, false);
  });

  test('the README commit counts as the first push: its event, and the default branch protected', async () => {
    const res = await create({ name: 'First Push', initialize_with_readme: true });
    expectStatus(res, 201);
    const id = res.json().id;
    const commit = await getCommit(await repoOf(id), 'main');
    const events = (await t.get(`/api/v4/projects/${id}/events`, { token: alice.token })).json();
    assert.deepEqual(
      events.map((e: { action_name: string }) => e.action_name),
      ['pushed new', 'created'],
    );
    assert.deepEqual(events[0].push_data, {
      commit_count: 1,
      action: 'created',
      ref_type: 'branch',
      commit_from: null,
      commit_to: commit?.id,
      ref: 'main',
      commit_title: 'Initial commit',
      ref_count: null,
    });
    const protections = (await t.get(`/api/v4/projects/${id}/protected_branches`, { token: alice.token })).json();
    assert.deepEqual(
      protections.map((p: { name: string; push_access_levels: { access_level: number }[] }) => [p.name, p.push_access_levels.map((l) => l.access_level)]),
      [['main', [40]]],
    );
  });

  test('a server stopped right after the creation committed: the project is whole, and its first push is recorded by the workers', async () => {
    await t.runJobs(); // what the tests above left queued
    // The creation's follow-up never runs in the request, as if the process had died there.
    const kind = refsUpdatedJob as { run: typeof refsUpdatedJob.run };
    const run = kind.run;
    kind.run = async () => {
      throw new Error('stopped');
    };
    let id: number;
    try {
      const res = await create({ name: 'Cut Short', initialize_with_readme: true });
      expectStatus(res, 201);
      id = res.json().id;
      assert.equal(res.json().default_branch, 'main');
      assert.equal(res.json().empty_repo, false);
    } finally {
      kind.run = run;
    }
    const project = await row(id);
    assert.equal(project.default_branch, 'main');
    assert.equal(Boolean(project.empty_repo), false);
    await t.deps.db.updateTable('background_jobs').set({ run_at: new Date(0).toISOString() }).execute();
    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [['refs.updated', true], ['project.statistics.refresh', true]]);
    const events = (await t.get(`/api/v4/projects/${id}/events`, { token: alice.token })).json();
    assert.deepEqual(events.map((e: { action_name: string }) => e.action_name), ['pushed new', 'created']);
    const rules = await t.deps.db.selectFrom('protected_branches').select('name').where('project_id', '=', id).execute();
    assert.deepEqual(rules.map((r) => r.name), ['main']);
  });

  test('the README goes on the requested default branch', async () => {
    const res = await create({ name: 'trunk-readme', initialize_with_readme: true, default_branch: 'trunk' });
    assert.equal(res.json().default_branch, 'trunk');
    const dir = await repoOf(res.json().id);
    assert.deepEqual((await listRefs(dir)).map((r) => r.ref), ['refs/heads/trunk']);
    assert.equal(await readDefaultBranch(dir), 'trunk');
  });

  test('without a README: an empty repository whose HEAD names the branch for the first push', async () => {
    const plain = await create({ name: 'plain' });
    assert.equal(plain.json().empty_repo, true);
    assert.equal(plain.json().default_branch, null);
    const dir = await repoOf(plain.json().id);
    assert.deepEqual(await listRefs(dir), []);
    assert.equal(await readDefaultBranch(dir), 'main');
    const named = await create({ name: 'plain-develop', default_branch: 'develop' });
    assert.equal(await readDefaultBranch(await repoOf(named.json().id)), 'develop');
  });

  test('for another user, the README is theirs', async () => {
    const bob = await t.user({ username: 'bob', name: 'Bob' });
    const res = await t.post(`/api/v4/projects/user/${bob.user.id}`, { token: ROOT_TOKEN, body: { name: 'bobs', initialize_with_readme: true } });
    expectStatus(res, 201);
    const commit = await getCommit(await repoOf(res.json().id), 'main');
    assert.deepEqual([commit?.author.name, commit?.author.email], ['Bob', 'bob@example.com']);
  });

  test('an invalid default branch or an unknown storage is refused, and nothing is created', async () => {
    const before = [await t.count('projects'), contents('default')];
    expectError(await create({ name: 'bad-branch', initialize_with_readme: true, default_branch: 'bad branch' }), 400, { message: { default_branch: ['is invalid'] } });
    expectError(await create({ name: 'bad-storage', repository_storage: 'nowhere' }, ROOT_TOKEN), 400, { message: { repository_storage: ['is not included in the list'] } });
    assert.deepEqual([await t.count('projects'), contents('default')], before);
    // Only administrators choose a storage; others are silently put on the default one.
    const res = await create({ name: 'wants-other', repository_storage: 'other' });
    assert.equal((await row(res.json().id)).repository_storage, 'default');
    const admin = await create({ name: 'on-other', repository_storage: 'other', initialize_with_readme: true }, ROOT_TOKEN);
    assert.equal(admin.json().repository_storage, 'other');
    assert.ok((await repoOf(admin.json().id)).startsWith(storageDir('other')));
  });

  test('when the repository cannot be created, neither is the project: no row, no repository', async () => {
    const counts = async () => [await t.count('projects'), await t.count('members'), await t.count('events'), await t.count('project_statistics')];
    const before = await counts();
    const res = await create({ name: 'doomed', repository_storage: 'broken', initialize_with_readme: true }, ROOT_TOKEN);
    assert.equal(res.statusCode, 500);
    assert.deepEqual(await counts(), before);
  });

  test('two creations racing for one path: one project, one repository, no scratch left', async () => {
    const before = contents('default').repositories.length;
    const results = await Promise.all([1, 2, 3].map(() => create({ name: 'racer', initialize_with_readme: true })));
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 400, 400]);
    assert.equal(contents('default').repositories.length, before + 1);
    assert.deepEqual(contents('default').scratch, []);
  });
});

describe('changes', () => {
  let project: ProjectRow;
  let dir: string;

  before(async () => {
    project = await row((await create({ name: 'changing', initialize_with_readme: true })).json().id);
    dir = await repoOf(project.id);
    await createCommit(dir, { branch: 'develop', startRevision: 'main', actions: [{ action: 'create', path: 'd.txt', content: 'd' }], message: 'd', author: { name: 'A', email: 'a@example.com' } });
  });

  const put = (body: Record<string, unknown>, token = alice.token) => t.put(`/api/v4/projects/${project.id}`, { token, body });

  test('PUT default_branch points HEAD at an existing branch', async () => {
    const res = await put({ default_branch: 'develop' });
    expectStatus(res, 200);
    assert.equal(res.json().default_branch, 'develop');
    assert.equal(await readDefaultBranch(dir), 'develop');
    expectError(await put({ default_branch: 'nothing' }), 400, { message: { base: ["Could not change HEAD: branch 'nothing' does not exist"] } });
    expectError(await put({ default_branch: 'bad name' }), 400, { message: { base: ["Could not change HEAD: branch 'bad name' does not exist"] } });
    expectStatus(await put({ default_branch: 'main' }), 200);
    assert.equal(await readDefaultBranch(dir), 'main');
  });

  test('a rename or a new path leaves the repository where it is', async () => {
    const res = await put({ name: 'Renamed', path: 'renamed' });
    expectStatus(res, 200);
    assert.equal(await repoOf(project.id), dir);
    assert.equal(repositoryExists(dir), true);
  });

  test('read-only: repository writes are refused with the platform message, other changes pass', async () => {
    await t.deps.db.updateTable('projects').set({ repository_read_only: true }).where('id', '=', project.id).execute();
    try {
      expectError(await put({ default_branch: 'develop' }), 400, { message: REPOSITORY_READ_ONLY_MESSAGE });
      expectError(await put({ repository_storage: 'other' }, ROOT_TOKEN), 400, { message: REPOSITORY_READ_ONLY_MESSAGE });
      expectStatus(await put({ description: 'still editable' }), 200);
      assert.equal(await readDefaultBranch(dir), 'main');
      assert.equal((await row(project.id)).repository_storage, 'default');
    } finally {
      await t.deps.db.updateTable('projects').set({ repository_read_only: false }).where('id', '=', project.id).execute();
    }
    assert.throws(() => assertWritable({ repository_read_only: true }), (e: unknown) => e instanceof DomainError && e.status === 400 && e.message === REPOSITORY_READ_ONLY_MESSAGE);
    assert.doesNotThrow(() => assertWritable({ repository_read_only: false }));
  });

  test('an administrator moves the repository to another storage', async () => {
    await t.runJobs(); // the statistics refreshes of the writes above
    const res = await put({ repository_storage: 'other' }, ROOT_TOKEN);
    expectStatus(res, 200);
    // As on the platform, the move is scheduled: until it has run, the project is read-only where it was.
    assert.equal(res.json().repository_storage, 'default');
    assert.equal((await row(project.id)).repository_read_only, true);
    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [['project.repository_storage_move', true]]);
    const [move] = (await t.get(`/api/v4/projects/${project.id}/repository_storage_moves`, { token: ROOT_TOKEN })).json();
    assert.deepEqual([move.state, move.source_storage_name, move.destination_storage_name], ['finished', 'default', 'other']);
    assert.equal((await t.get(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN })).json().repository_storage, 'other');
    const moved = await row(project.id);
    assert.equal(moved.repository_read_only, false);
    const target = await repoOf(project.id);
    assert.equal(target, repositoryPath(storageDir('other'), project.id));
    assert.equal(repositoryExists(dir), false);
    assert.deepEqual((await listRefs(target)).map((r) => r.name), ['develop', 'main']);
    assert.deepEqual(contents('other').scratch, []);
    dir = target;
  });

  test('empty_repo follows the branches when the writer refreshes it', async () => {
    const gone = (ref: string, before: string) => ({ ref, before, after: ZERO_OID });
    const [develop, main] = await Promise.all(['develop', 'main'].map((b) => resolveRef(dir, `refs/heads/${b}`)));
    await deleteRef(dir, 'refs/heads/develop');
    await deleteRef(dir, 'refs/heads/main');
    await recordRefUpdates(systemContext(t.deps), project, alice.user.id, [gone('refs/heads/develop', develop as string), gone('refs/heads/main', main as string)]);
    assert.equal((await row(project.id)).empty_repo, true);
    const listed = await t.get('/api/v4/projects', { token: alice.token, query: { owned: 'true', per_page: '100' } });
    const entries = listed.json() as { id: number; empty_repo: boolean; name: string }[];
    assert.equal(entries.find((p) => p.id === project.id)?.empty_repo, true);
    assert.equal(entries.find((p) => p.name === 'With Readme')?.empty_repo, false);
    assert.equal(entries.find((p) => p.name === 'plain')?.empty_repo, true);
  });

  test('deleting the project removes its repository (and its job artifacts, packages and uploads)', async () => {
    await t.runJobs();
    expectStatus(await t.del(`/api/v4/projects/${project.id}`, { token: alice.token }), 202);
    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [
      ['project.repository.remove', true],
      ['storage.files.remove', true],
      ['storage.files.remove', true],
      ['storage.files.remove', true],
    ]);
    assert.equal(fs.existsSync(dir), false);
    assert.deepEqual(fs.readdirSync(path.dirname(dir)), []);
  });
});
