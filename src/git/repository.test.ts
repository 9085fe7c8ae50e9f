// Repository layout and lifecycle.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { getCommit, readTree } from './commits.ts';
import { hasBranches, listRefs } from './refs.ts';
import {
  copyRepository,
  createRepository,
  deleteRepository,
  RepositoryPathTaken,
  setAsideRepository,
  placeRepository,
  projectRepositoryPath,
  readDefaultBranch,
  repositoryExists,
  repositoryPath,
  repositoryRelativePath,
  setDefaultBranch,
  stagingRepositoryPath,
} from './repository.ts';
import { GitError, runGit } from './run.ts';

let root: string;
const author = { name: 'Ada Lovelace', email: 'ada@example.com' };

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-repository-'));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('repositories are laid out by the hash of the project id, whatever the project is called', () => {
  const hash = createHash('sha256').update('42').digest('hex');
  assert.equal(repositoryRelativePath(42), `@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}.git`);
  assert.equal(repositoryPath('/srv/repos', 42), `/srv/repos/@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}.git`);
  assert.equal(projectRepositoryPath({ default: '/srv/repos' }, { id: 42, repository_storage: 'default' }), repositoryPath('/srv/repos', 42));
  assert.equal(projectRepositoryPath({ default: '/srv/repos' }, { id: 42, repository_storage: 'gone' }), null);
  assert.match(stagingRepositoryPath('/srv/repos'), /^\/srv\/repos\/@tmp\/[^/~]+~\d+\.[0-9a-f]{24}\.git$/);
});

test('createRepository without a README: bare, empty, HEAD on the default branch', async () => {
  const dir = repositoryPath(root, 1);
  assert.equal(await createRepository(dir, { defaultBranch: 'trunk' }), null);
  assert.equal(repositoryExists(dir), true);
  assert.equal((await runGit(dir, ['rev-parse', '--is-bare-repository'])).stdout.toString().trim(), 'true');
  assert.equal(await readDefaultBranch(dir), 'trunk');
  assert.equal(await hasBranches(dir), false);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['HEAD', 'config', 'objects', 'refs']);
  await assert.rejects(createRepository(dir, { defaultBranch: 'main' }), /EEXIST/);
  assert.equal(repositoryExists(dir), true);
});

test('createRepository with a README: one commit on the default branch, by the given author', async () => {
  const dir = repositoryPath(root, 2);
  const date = new Date('2024-01-02T03:04:05.000Z');
  const id = await createRepository(dir, { defaultBranch: 'main', readme: { content: '# Project\n\nAbout it', message: 'Initial commit', author, date } });
  const refs = await listRefs(dir);
  assert.deepEqual(refs.map((r) => [r.ref, r.commit]), [['refs/heads/main', id]]);
  const commit = await getCommit(dir, 'main');
  assert.equal(commit?.message, 'Initial commit');
  assert.deepEqual(commit?.parents, []);
  assert.deepEqual(commit?.author, { ...author, date: '2024-01-02T03:04:05.000+00:00', timestamp: date.getTime() / 1000 });
  assert.deepEqual(commit?.committer, commit?.author);
  assert.deepEqual((await readTree(dir, 'main'))?.map((e) => [e.path, e.type]), [['README.md', 'blob']]);
});

test('a failed creation leaves nothing behind; bad branch names are refused first', async () => {
  const dir = repositoryPath(root, 3);
  await assert.rejects(createRepository(dir, { defaultBranch: 'bad name' }), (e: unknown) => e instanceof GitError && e.kind === 'invalid');
  await assert.rejects(createRepository(dir, { defaultBranch: 'main', readme: { content: 'x', message: 'm', author: { name: '', email: '' } } }), GitError);
  assert.equal(fs.existsSync(dir), false);
});

test('placeRepository moves a staged repository into place, and never over anything already there', async () => {
  const staging = stagingRepositoryPath(root);
  await createRepository(staging, { defaultBranch: 'main', readme: { content: 'new', message: 'm', author } });
  const taken = repositoryPath(root, 4);
  fs.mkdirSync(taken, { recursive: true });
  fs.writeFileSync(path.join(taken, 'someone-elses'), 'x');
  await assert.rejects(placeRepository(staging, taken), RepositoryPathTaken);
  assert.equal(fs.readFileSync(path.join(taken, 'someone-elses'), 'utf8'), 'x');
  assert.equal(repositoryExists(staging), true);

  const target = repositoryPath(root, 5);
  await placeRepository(staging, target);
  assert.equal(fs.existsSync(staging), false);
  assert.equal(await hasBranches(target), true);
});

test('setDefaultBranch points HEAD at a branch', async () => {
  const dir = repositoryPath(root, 2);
  await setDefaultBranch(dir, 'develop');
  assert.equal(await readDefaultBranch(dir), 'develop');
  await assert.rejects(setDefaultBranch(dir, '--upload-pack=x'), (e: unknown) => e instanceof GitError && e.kind === 'invalid');
  await setDefaultBranch(dir, 'main');
});

test('copyRepository copies to another storage; deleteRepository removes, quietly when absent', async () => {
  const other = path.join(root, 'other-storage');
  assert.equal(await copyRepository(2, root, other), true);
  const copy = repositoryPath(other, 2);
  assert.equal((await getCommit(copy, 'main'))?.message, 'Initial commit');
  assert.equal(repositoryExists(repositoryPath(root, 2)), true);
  assert.deepEqual(fs.readdirSync(path.join(other, '@tmp')), []);
  assert.equal(await copyRepository(99, root, other), false);

  await deleteRepository(copy);
  assert.equal(fs.existsSync(copy), false);
  assert.deepEqual(fs.readdirSync(path.dirname(copy)), []);
  await deleteRepository(copy);
});

test("setAsideRepository moves what is at a path to the storage's @orphaned folder, whole", async () => {
  const taken = repositoryPath(root, 6);
  fs.mkdirSync(taken, { recursive: true });
  fs.writeFileSync(path.join(taken, 'left-behind'), 'x');
  const aside = await setAsideRepository(taken);
  assert.equal(fs.existsSync(taken), false);
  assert.equal(path.dirname(aside), path.join(root, '@orphaned'));
  assert.equal(fs.readFileSync(path.join(aside, 'left-behind'), 'utf8'), 'x');
});
