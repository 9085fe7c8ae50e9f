// Reverting and cherry-picking commits through the API on a real repository: the new commit (its
// parent, author, message and tree), merge commits against their first parent, dry runs, the
// platform's refusals (a change that conflicts or is already there, with its error_code), unknown
// commits and branches, who may push to the branch, and the push recorded as any other.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember } from '../../../test/factories.ts';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { AUTHOR } from '../../../test/fixtures/repository.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createCommit, getCommit, readBlob } from '../../git/commits.ts';
import { resolveRef, updateRef } from '../../git/refs.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { runGit } from '../../git/run.ts';
import { CommitEntity } from '../../domain/commit-entity.ts';
import { DryRunEntity } from './commits.schemas.ts';

let t: TestApp;
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: ProjectRow;
let dir: string;

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'olga', name: 'Olga Owner' });
  developer = await t.user({ username: 'dev', name: 'Dev Eloper' });
  reporter = await t.user({ username: 'rep' });
  stranger = await t.user({ username: 'stranger' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Picks', initialize_with_readme: true, visibility: 'public' } });
  expectStatus(res, 201);
  project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  await addMember(t, project, developer.user.id, ACCESS.DEVELOPER);
  await addMember(t, project, reporter.user.id, ACCESS.REPORTER);
  dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
});
after(() => t.close());

const url = (sha: string, action: 'revert' | 'cherry_pick', p = project) => `/api/v4/projects/${p.id}/repository/commits/${sha}/${action}`;
const head = async (branch = 'main') => (await resolveRef(dir, `refs/heads/${branch}`)) as string;
const commitOn = async (branch: string, actions: Parameters<typeof createCommit>[1]['actions'], message: string, from?: string) =>
  (await createCommit(dir, { branch, startRevision: from, actions, message, author: AUTHOR, date: new Date('2021-01-02T03:04:05Z') })).id;
const fileAt = async (revision: string, path: string) => (await readBlob(dir, revision, path))?.content.toString('utf8') ?? null;

const refusal = (verb: string, done: string, code: string) => ({
  message: `Sorry, we cannot ${verb} this commit automatically. This commit may already have been ${done}, or a more recent commit may have updated some of its content.`,
  error_code: code,
});

describe('POST /projects/:id/repository/commits/:sha/revert', () => {
  test('a new commit on the branch undoing the change, by the writer, recorded as a push; a second revert is empty', async () => {
    const added = await commitOn('main', [{ action: 'create', path: 'gone.txt', content: 'x\n' }], 'Add gone.txt\n\nWith a body.\n');
    const res = await t.post(url(added, 'revert'), { token: owner.token, body: { branch: 'main' } });
    expectStatus(res, 201);
    expectEntity(res.json(), CommitEntity);
    const body = res.json();
    assert.equal(body.id, await head());
    assert.deepEqual(body.parent_ids, [added]);
    assert.equal(body.title, 'Revert "Add gone.txt"');
    assert.equal(body.message, `Revert "Add gone.txt"\n\nThis reverts commit ${added}`);
    assert.equal(body.author_name, 'Olga Owner');
    assert.equal(body.committer_name, 'Olga Owner');
    assert.equal(await fileAt(body.id, 'gone.txt'), null);

    // The post-push work ran: the push event names the new head.
    const event = await t.deps.db.selectFrom('events').selectAll().where('project_id', '=', project.id).where('action', '=', 'pushed').orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.equal(event.author_id, owner.user.id);
    const pushEvents = await t.get(`/api/v4/projects/${project.id}/events`, { token: owner.token, query: { action: 'pushed' } });
    assert.equal(pushEvents.json()[0].push_data.commit_to, body.id);

    expectError(await t.post(url(added, 'revert'), { token: owner.token, body: { branch: 'main' } }), 400, refusal('revert', 'reverted', 'empty'));
  });

  test('a merge commit is reverted against its first parent', async () => {
    const base = await head();
    const side = await commitOn('side', [{ action: 'create', path: 'side.txt', content: 's\n' }], 'Side work', base);
    const env = { GIT_AUTHOR_NAME: AUTHOR.name, GIT_AUTHOR_EMAIL: AUTHOR.email, GIT_COMMITTER_NAME: AUTHOR.name, GIT_COMMITTER_EMAIL: AUTHOR.email };
    const tree = (await getCommit(dir, side))?.tree as string;
    const merge = (await runGit(dir, ['commit-tree', tree, '-p', base, '-p', side], { env, input: "Merge branch 'side'" })).stdout.toString().trim();
    await updateRef(dir, 'refs/heads/main', merge, base);
    const res = await t.post(url(merge, 'revert'), { token: owner.token, body: { branch: 'main' } });
    expectStatus(res, 201);
    assert.equal(await fileAt(res.json().id, 'side.txt'), null);
    assert.equal(await fileAt(res.json().id, 'README.md'), await fileAt(base, 'README.md'));
  });

  test('a dry run answers success and moves nothing; one that would conflict is refused', async () => {
    const changed = await commitOn('main', [{ action: 'create', path: 'dry.txt', content: 'one\n' }], 'Add dry.txt');
    const before = await head();
    const res = await t.post(url(changed, 'revert'), { token: owner.token, body: { branch: 'main', dry_run: true } });
    expectStatus(res, 200);
    expectEntity(res.json(), DryRunEntity);
    assert.deepEqual(res.json(), { dry_run: 'success' });
    assert.equal(await head(), before);

    await commitOn('main', [{ action: 'update', path: 'dry.txt', content: 'two\n' }], 'Change dry.txt');
    const conflicting = refusal('revert', 'reverted', 'conflict');
    expectError(await t.post(url(changed, 'revert'), { token: owner.token, body: { branch: 'main', dry_run: true } }), 400, conflicting);
    expectError(await t.post(url(changed, 'revert'), { token: owner.token, body: { branch: 'main' } }), 400, conflicting);
  });
});

describe('POST /projects/:id/repository/commits/:sha/cherry_pick', () => {
  test("the commit's change on the branch, keeping its author, with the platform's message or the one given", async () => {
    const picked = await commitOn('feature', [{ action: 'create', path: 'feature.txt', content: 'f\n' }], 'Add feature\n', await head());
    const before = await head();
    const res = await t.post(url(picked, 'cherry_pick'), { token: owner.token, body: { branch: 'main' } });
    expectStatus(res, 201);
    expectEntity(res.json(), CommitEntity);
    const body = res.json();
    assert.deepEqual(body.parent_ids, [before]);
    assert.equal(body.message, `Add feature\n\n(cherry picked from commit ${picked})`);
    assert.equal(body.author_name, AUTHOR.name);
    assert.equal(body.author_email, AUTHOR.email);
    assert.equal(body.authored_date, '2021-01-02T03:04:05.000+00:00');
    assert.equal(body.committer_name, 'Olga Owner');
    assert.equal(await fileAt(body.id, 'feature.txt'), 'f\n');
    assert.equal(await head(), body.id);

    expectError(await t.post(url(picked, 'cherry_pick'), { token: owner.token, body: { branch: 'main' } }), 400, refusal('cherry-pick', 'cherry-picked', 'empty'));

    const other = await commitOn('feature', [{ action: 'create', path: 'more.txt', content: 'm\n' }], 'More');
    const named = await t.post(url(other, 'cherry_pick'), { token: developer.token, body: { branch: 'feature-2', message: 'My own words' } });
    expectError(named, 404, { message: '404 Branch Not Found' });
    await updateRef(dir, 'refs/heads/feature-2', before);
    const mine = await t.post(url(other, 'cherry_pick'), { token: developer.token, body: { branch: 'feature-2', message: 'My own words' } });
    expectStatus(mine, 201);
    assert.equal(mine.json().message, 'My own words');
    assert.equal(mine.json().committer_name, 'Dev Eloper');
  });

  test('a conflicting change is refused, a dry run included', async () => {
    const start = await head();
    const theirs = await commitOn('clash', [{ action: 'create', path: 'clash.txt', content: 'theirs\n' }], 'Theirs', start);
    await commitOn('main', [{ action: 'create', path: 'clash.txt', content: 'ours\n' }], 'Ours');
    const conflicting = refusal('cherry-pick', 'cherry-picked', 'conflict');
    expectError(await t.post(url(theirs, 'cherry_pick'), { token: owner.token, body: { branch: 'main', dry_run: true } }), 400, conflicting);
    expectError(await t.post(url(theirs, 'cherry_pick'), { token: owner.token, body: { branch: 'main' } }), 400, conflicting);
    const ok = await t.post(url(theirs, 'cherry_pick'), { token: owner.token, body: { branch: 'clash', dry_run: true } });
    expectError(ok, 400, refusal('cherry-pick', 'cherry-picked', 'empty'));
  });
});

describe('refusals of both', () => {
  for (const action of ['revert', 'cherry_pick'] as const) {
    test(`${action}: unknown commit or branch, missing branch, and who may push`, async () => {
      const sha = await head();
      expectError(await t.post(url('0'.repeat(40), action), { token: owner.token, body: { branch: 'main' } }), 404, { message: '404 Commit Not Found' });
      expectError(await t.post(url('no-such-ref', action), { token: owner.token, body: { branch: 'main' } }), 404, { message: '404 Commit Not Found' });
      expectError(await t.post(url(sha, action), { token: owner.token, body: { branch: 'nowhere' } }), 404, { message: '404 Branch Not Found' });
      expectError(await t.post(url(sha, action), { token: owner.token, body: {} }), 400, { error: 'branch is missing' });
      expectError(await t.post(url(sha, action), { token: owner.token, body: { branch: '' } }), 400, { error: 'branch is empty' });
      const pushRefused = { message: '403 Forbidden - You are not allowed to push into this branch' };
      // The push check comes first: a reporter learns nothing of the commit.
      expectError(await t.post(url('0'.repeat(40), action), { token: reporter.token, body: { branch: 'main' } }), 403, pushRefused);
      // The default branch is protected: developers do not push to it.
      expectError(await t.post(url(sha, action), { token: developer.token, body: { branch: 'main' } }), 403, pushRefused);
      expectError(await t.post(url(sha, action), { body: { branch: 'main' } }), 403, pushRefused);
      expectError(await t.post(url(sha, action), { token: stranger.token, body: { branch: 'main' } }), 403, pushRefused);
      const hidden = await t.post('/api/v4/projects', { token: owner.token, body: { name: `Hidden ${action}`, initialize_with_readme: true } });
      expectError(await t.post(url(sha, action, hidden.json()), { token: stranger.token, body: { branch: 'main' } }), 404, { message: '404 Project Not Found' });
    });
  }
});
