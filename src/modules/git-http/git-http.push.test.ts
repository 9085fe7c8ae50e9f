// Pushes with the real git CLI against a listening server: what each role may push, protected
// branches and tags, force pushes, the read-only flag, racing pushes, the events a push records
// (push_data as the platform writes it), the default branch of a first push, and the listener.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { ZERO_OID } from '../../git/args.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { runGit } from '../../git/run.ts';
import { type GitCli, gitCli, gitUrl } from '../../../test/git-cli.ts';
import { ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { createGroup, unprotectDefaultBranch } from '../../../test/factories.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { refsUpdatedJob } from '../pushes/push.service.ts';

const MAX_PUSH_BYTES = 2 * 1024 * 1024;

let t: TestApp;
let host: string;
let git: GitCli;
let team: NamespaceRow;
let project: ProjectRow;
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;

async function apiProject(namespace: NamespaceRow, name: string, readme: boolean): Promise<ProjectRow> {
  const res = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name, path: name, namespace_id: namespace.id, initialize_with_readme: readme } });
  assert.equal(res.statusCode, 201, res.body);
  await unprotectDefaultBranch(t, res.json());
  return t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
}

const url = (user: TestUser, target: ProjectRow = project) => gitUrl(host, target.full_path, { login: user.user.username, password: user.token });

async function cloneAs(user: TestUser, target: ProjectRow = project): Promise<string> {
  const dir = path.join(git.root, `clone-${randomBytes(4).toString('hex')}`);
  await git.ok(['clone', '--quiet', url(user, target), dir]);
  return dir;
}

/** ref → id of every branch and tag on the server. */
async function serverRefs(target: ProjectRow = project): Promise<Record<string, string>> {
  const out = await git.ok(['ls-remote', gitUrl(host, target.full_path, { login: 'root', password: ROOT_TOKEN })]);
  return Object.fromEntries(out.trim().split('\n').filter(Boolean).map((line) => line.split('\t').reverse()));
}

interface PushEvent {
  id: number;
  action_name: string;
  author_username: string;
  push_data: Record<string, unknown>;
}

/** The project's push events, oldest first. */
async function pushEvents(target: ProjectRow = project): Promise<PushEvent[]> {
  const res = await t.get(`/api/v4/projects/${target.id}/events`, { token: ROOT_TOKEN, query: { action: 'pushed', per_page: '100', sort: 'asc' } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function newPushEvents(since: number, target: ProjectRow = project): Promise<PushEvent[]> {
  return (await pushEvents(target)).filter((e) => e.id > since);
}

const lastEventId = async (target: ProjectRow = project) => (await pushEvents(target)).at(-1)?.id ?? 0;

async function refused(dir: string, args: string[], message: RegExp): Promise<string> {
  const result = await git.run(['push', ...args], dir);
  assert.notEqual(result.code, 0, `the push succeeded: ${result.stderr}`);
  assert.match(result.stderr, message);
  return result.stderr;
}

const push = (dir: string, ...args: string[]) => git.ok(['push', '--quiet', ...args], dir);

async function protect(kind: 'protected_branches' | 'protected_tags', body: Record<string, unknown>, target: ProjectRow = project): Promise<void> {
  const res = await t.post(`/api/v4/projects/${target.id}/${kind}`, { token: ROOT_TOKEN, body });
  assert.equal(res.statusCode, 201, res.body);
}

async function unprotect(kind: 'protected_branches' | 'protected_tags', name: string): Promise<void> {
  assert.equal((await t.del(`/api/v4/projects/${project.id}/${kind}/${encodeURIComponent(name)}`, { token: ROOT_TOKEN })).statusCode, 204);
}

const head = async (dir: string, rev = 'HEAD') => (await git.ok(['rev-parse', rev], dir)).trim();

before(async () => {
  ({ t, host } = await listeningTestApp({ QUARRY_GIT_MAX_PUSH_BYTES: String(MAX_PUSH_BYTES) }));
  git = gitCli();
  maintainer = await t.user({ username: 'maintainer' });
  developer = await t.user({ username: 'developer' });
  reporter = await t.user({ username: 'reporter' });
  team = await createGroup(t, {
    path: 'team',
    members: [
      [maintainer.user.id, ACCESS.MAINTAINER],
      [developer.user.id, ACCESS.DEVELOPER],
      [reporter.user.id, ACCESS.REPORTER],
    ],
  });
  project = await apiProject(team, 'app', true);
});
after(async () => {
  git.close();
  await t.close();
});

describe('events', () => {
  test('a new branch, an update and a deletion, each with the platform push_data', async () => {
    const dir = await cloneAs(developer);
    const main = await head(dir);
    await git.ok(['checkout', '-q', '-b', 'feature'], dir);
    await git.commit(dir, 'a.txt', 'a\n', 'First change');
    const second = await git.commit(dir, 'b.txt', 'b\n', '  Second change  \n\nWith a body.');
    const since = await lastEventId();
    const before = Date.now();
    await push(dir, 'origin', 'feature');
    const long = 'A title that goes on and on, well beyond the seventy characters an event shows';
    const third = await git.commit(dir, 'c.txt', 'c\n', long);
    await push(dir, 'origin', 'feature');
    await push(dir, 'origin', ':feature');

    const events = await newPushEvents(since);
    assert.deepEqual(
      events.map((e) => [e.action_name, e.author_username, e.push_data]),
      [
        ['pushed new', 'developer', { commit_count: 2, action: 'created', ref_type: 'branch', commit_from: null, commit_to: second, ref: 'feature', commit_title: 'Second change', ref_count: null }],
        ['pushed to', 'developer', { commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: second, commit_to: third, ref: 'feature', commit_title: `${long.slice(0, 67)}...`, ref_count: null }],
        ['deleted', 'developer', { commit_count: 0, action: 'removed', ref_type: 'branch', commit_from: third, commit_to: null, ref: 'feature', commit_title: null, ref_count: null }],
      ],
    );
    assert.ok(main.length === 40);
    const row = await t.deps.db.selectFrom('projects').select('last_activity_at').where('id', '=', project.id).executeTakeFirstOrThrow();
    assert.ok(Date.parse(row.last_activity_at) >= before - 1000);
  });

  test('tags, lightweight and annotated, and their deletion', async () => {
    const dir = await cloneAs(developer);
    const main = await head(dir);
    await git.ok(['tag', 'v1'], dir);
    await git.ok(['tag', '-a', 'v2', '-m', 'Release 2'], dir);
    const tagObject = await head(dir, 'v2');
    const since = await lastEventId();
    await push(dir, 'origin', 'v1', 'v2');
    await push(dir, 'origin', ':v1');
    const initial = { commit_count: 1, action: 'created', ref_type: 'tag', commit_from: null, commit_title: 'Initial commit', ref_count: null };
    assert.deepEqual(
      (await newPushEvents(since)).map((e) => [e.action_name, e.push_data]),
      [
        ['pushed new', { ...initial, commit_to: main, ref: 'v1' }],
        ['pushed new', { ...initial, commit_to: tagObject, ref: 'v2' }],
        ['deleted', { commit_count: 0, action: 'removed', ref_type: 'tag', commit_from: main, commit_to: null, ref: 'v1', commit_title: null, ref_count: null }],
      ],
    );
  });

  test('more than three refs of one kind and action make one bulk event', async () => {
    const dir = await cloneAs(developer);
    const since = await lastEventId();
    await push(dir, 'origin', ...['b1', 'b2', 'b3', 'b4'].map((b) => `HEAD:refs/heads/${b}`), ...['t1', 't2', 't3'].map((tag) => `HEAD:refs/tags/${tag}`));
    const events = await newPushEvents(since);
    assert.deepEqual(events[0].push_data, { commit_count: 0, action: 'created', ref_type: 'branch', commit_from: null, commit_to: null, ref: null, commit_title: null, ref_count: 4 });
    assert.equal(events[0].action_name, 'pushed new');
    assert.deepEqual(events.slice(1).map((e) => e.push_data.ref), ['t1', 't2', 't3']);
    await push(dir, 'origin', ...['b1', 'b2', 'b3', 'b4', 't1', 't2', 't3'].map((r) => `:${r}`));
  });

  test('what a push changed is recorded by its refs.updated job before the client hears it is done', async () => {
    const dir = await cloneAs(developer);
    const commit = await git.commit(dir, 'hooked.txt', 'x\n', 'Hooked');
    const since = await lastEventId();
    await push(dir, 'origin', 'HEAD:refs/heads/hooked');
    const events = await newPushEvents(since);
    assert.deepEqual(events.map((e) => [e.push_data.ref, e.push_data.commit_to]), [['hooked', commit]]);
    // What remains is the refresh of the project's statistics, for a worker.
    assert.deepEqual((await t.deps.db.selectFrom('background_jobs').select('kind').execute()).map((j) => j.kind), ['project.statistics.refresh']);
    await t.runJobs();
    await push(dir, 'origin', ':hooked');
  });

  test("a push refreshes the project's statistics in the background: the default branch's commits, the size on disk", async () => {
    const dir = await cloneAs(developer);
    await git.commit(dir, 'counted.txt', 'x\n', 'Counted');
    await push(dir, 'origin', 'HEAD:refs/heads/main');
    const statistics = async () => (await t.get(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, query: { statistics: 'true' } })).json().statistics;
    const before = await statistics();
    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [['project.statistics.refresh', true]]);
    const after = await statistics();
    const commits = Number((await git.ok(['rev-list', '--count', 'HEAD'], dir)).trim());
    assert.equal(after.commit_count, commits);
    assert.ok(after.repository_size > 0);
    assert.equal(after.storage_size, after.repository_size);
    assert.notDeepEqual(after, before);
  });

  test('a follow-up that fails does not fail the push: its job stays queued, with its error, for a retry', async () => {
    const kind = refsUpdatedJob as { run: typeof refsUpdatedJob.run };
    const run = kind.run;
    kind.run = async () => {
      throw new Error('boom');
    };
    const dir = await cloneAs(developer);
    const since = await lastEventId();
    try {
      await push(dir, 'origin', 'HEAD:refs/heads/after-boom');
    } finally {
      kind.run = run;
    }
    const [job] = await t.deps.db.selectFrom('background_jobs').selectAll().execute();
    assert.equal(job.kind, 'refs.updated');
    assert.equal(job.state, 'queued');
    assert.match(job.last_error ?? '', /boom/);
    assert.deepEqual(await newPushEvents(since), []);
    // The retry, once due, records the push.
    await t.deps.db.updateTable('background_jobs').set({ run_at: new Date().toISOString() }).execute();
    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [['refs.updated', true], ['project.statistics.refresh', true]]);
    assert.deepEqual((await newPushEvents(since)).map((e) => e.push_data.ref), ['after-boom']);
    await push(dir, 'origin', ':after-boom');
  });
});

describe('who may push', () => {
  test('a reporter may not: the platform message, and nothing changes', async () => {
    const dir = await cloneAs(reporter);
    await git.commit(dir, 'r.txt', 'r\n', 'By a reporter');
    const refs = await serverRefs();
    const since = await lastEventId();
    const stderr = await refused(dir, ['origin', 'main', 'HEAD:refs/heads/reporter'], /remote: You are not allowed to push code to this project\./);
    assert.match(stderr, /403/);
    assert.deepEqual(await serverRefs(), refs);
    assert.deepEqual(await newPushEvents(since), []);
  });

  test('an archived project takes no push', async () => {
    await t.deps.db.updateTable('projects').set({ archived: true }).where('id', '=', project.id).execute();
    try {
      const dir = await cloneAs(maintainer);
      await refused(dir, ['origin', 'HEAD:refs/heads/archived'], /remote: You are not allowed to push code to this project\./);
    } finally {
      await t.deps.db.updateTable('projects').set({ archived: false }).where('id', '=', project.id).execute();
    }
  });

  test('a read-only repository takes no push, and still serves fetches', async () => {
    const dir = await cloneAs(maintainer);
    await git.commit(dir, 'ro.txt', 'ro\n', 'While read-only');
    await t.deps.db.updateTable('projects').set({ repository_read_only: true }).where('id', '=', project.id).execute();
    try {
      const refs = await serverRefs();
      await refused(dir, ['origin', 'main'], /remote: The repository is temporarily read-only\. Please try again later\./);
      assert.deepEqual(await serverRefs(), refs);
      await git.ok(['fetch', 'origin'], dir);
    } finally {
      await t.deps.db.updateTable('projects').set({ repository_read_only: false }).where('id', '=', project.id).execute();
    }
  });

  test('refs the server keeps for itself cannot be pushed', async () => {
    const dir = await cloneAs(maintainer);
    await refused(dir, ['origin', 'HEAD:refs/pipelines/1'], /hidden ref/);
    assert.equal((await serverRefs())['refs/pipelines/1'], undefined);
  });
});

describe('protected branches and tags', () => {
  test('a protected branch takes pushes from its push level only, and the whole push is refused', async () => {
    await protect('protected_branches', { name: 'main', push_access_level: ACCESS.MAINTAINER });
    const dir = await cloneAs(developer);
    await git.commit(dir, 'p.txt', 'p\n', 'To a protected branch');
    const refs = await serverRefs();
    const stderr = await refused(dir, ['origin', 'HEAD:refs/heads/side', 'main'], /remote: GitLab: You are not allowed to push code to protected branches on this project\./);
    assert.match(stderr, /\[remote rejected\] main -> main \(pre-receive hook declined\)/);
    assert.match(stderr, /\[remote rejected\] HEAD -> side \(pre-receive hook declined\)/);
    assert.deepEqual(await serverRefs(), refs);
    const mine = await cloneAs(maintainer);
    const id = await git.commit(mine, 'm.txt', 'm\n', 'By a maintainer');
    await push(mine, 'origin', 'main');
    assert.equal((await serverRefs())['refs/heads/main'], id);
  });

  test('force pushes to a protected branch only where the rule allows them', async () => {
    const dir = await cloneAs(maintainer);
    const old = await head(dir);
    await git.ok(['reset', '-q', '--hard', 'HEAD~1'], dir);
    const rewritten = await git.commit(dir, 'f.txt', 'f\n', 'Rewritten history');
    await refused(dir, ['--force', 'origin', 'main'], /remote: GitLab: You are not allowed to force push code to a protected branch on this project\./);
    assert.equal((await serverRefs())['refs/heads/main'], old);

    await unprotect('protected_branches', 'main');
    await protect('protected_branches', { name: 'main', push_access_level: ACCESS.MAINTAINER, allow_force_push: true });
    const since = await lastEventId();
    await push(dir, '--force', 'origin', 'main');
    assert.equal((await serverRefs())['refs/heads/main'], rewritten);
    assert.deepEqual((await newPushEvents(since)).map((e) => e.push_data), [
      { commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: old, commit_to: rewritten, ref: 'main', commit_title: 'Rewritten history', ref_count: null },
    ]);

    // Unprotected branches take force pushes from developers.
    const mine = await cloneAs(developer);
    await push(mine, 'origin', 'HEAD:refs/heads/scratch');
    await git.commit(mine, 's.txt', 's\n', 'Scratch');
    await push(mine, 'origin', 'HEAD:refs/heads/scratch');
    await git.ok(['reset', '-q', '--hard', 'HEAD~1'], mine);
    await git.commit(mine, 's2.txt', 's\n', 'Scratch again');
    await push(mine, '--force', 'origin', 'HEAD:refs/heads/scratch');
    await push(mine, 'origin', ':scratch');
  });

  test('the default branch is never deleted; a protected one only through the web', async () => {
    await unprotect('protected_branches', 'main');
    const dir = await cloneAs(maintainer);
    await refused(dir, ['origin', ':main'], /remote: GitLab: The default branch of a project cannot be deleted\./);
    await push(dir, 'origin', 'HEAD:refs/heads/release');
    await protect('protected_branches', { name: 'rel*', push_access_level: ACCESS.DEVELOPER });
    await refused(dir, ['origin', ':release'], /remote: GitLab: You can only delete protected branches using the web interface\./);
    const theirs = await cloneAs(developer);
    await refused(theirs, ['origin', ':release'], /remote: GitLab: You are not allowed to delete protected branches from this project\. Only a project maintainer or owner can delete a protected branch\./);
    assert.ok((await serverRefs())['refs/heads/release']);
  });

  test('protected tags: created by their level only, never moved, deleted through the web only', async () => {
    await protect('protected_tags', { name: 'rc-*', create_access_level: ACCESS.MAINTAINER });
    const theirs = await cloneAs(developer);
    await refused(theirs, ['origin', 'HEAD:refs/tags/rc-1'], /remote: GitLab: You are not allowed to create this tag as it is protected\./);
    const mine = await cloneAs(maintainer);
    await push(mine, 'origin', 'HEAD:refs/tags/rc-1');
    await git.commit(mine, 't.txt', 't\n', 'Moving on');
    await refused(mine, ['--force', 'origin', 'HEAD:refs/tags/rc-1'], /remote: GitLab: Protected tags cannot be updated\./);
    await refused(mine, ['origin', ':refs/tags/rc-1'], /remote: GitLab: You can only delete protected tags using the web interface\./);
    await push(theirs, 'origin', 'HEAD:refs/tags/free-1');
  });
});

describe('safety', () => {
  test('two pushes racing on one branch: exactly one wins, and the repository stays whole', async () => {
    const gitDir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
    for (let round = 0; round < 3; round++) {
      const [a, b] = [await cloneAs(maintainer), await cloneAs(maintainer)];
      const base = await head(a);
      const ids = [await git.commit(a, `race-a-${round}.txt`, 'a\n', `Racer A ${round}`), await git.commit(b, `race-b-${round}.txt`, 'b\n', `Racer B ${round}`)];
      const since = await lastEventId();
      const results = await Promise.all([a, b].map((dir) => git.run(['push', 'origin', 'main'], dir)));
      const winners = results.flatMap((r, i) => (r.code === 0 ? [i] : []));
      assert.equal(winners.length, 1, results.map((r) => r.stderr).join('\n---\n'));
      assert.equal((await serverRefs())['refs/heads/main'], ids[winners[0]]);
      assert.deepEqual((await newPushEvents(since)).map((e) => [e.push_data.commit_from, e.push_data.commit_to]), [[base, ids[winners[0]]]]);
      await runGit(gitDir, ['fsck', '--strict', '--no-progress']);
    }
  });

  test('a push larger than the limit is refused and changes nothing', async () => {
    const dir = await cloneAs(maintainer);
    fs.writeFileSync(path.join(dir, 'big.bin'), randomBytes(MAX_PUSH_BYTES + 512 * 1024));
    await git.ok(['add', 'big.bin'], dir);
    await git.ok(['commit', '-q', '-m', 'Too big'], dir);
    const refs = await serverRefs();
    const result = await git.run(['push', 'origin', 'HEAD:refs/heads/big'], dir);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /413|too large|unpack|hung up/i);
    assert.deepEqual(await serverRefs(), refs);
    assert.equal((await fetch(`${host}/-/health`)).status, 200);
  });

  test('a malformed push body is refused without harm', async () => {
    const refs = await serverRefs();
    for (const body of ['nonsense', `00a0${ZERO_OID} ${'1'.repeat(40)} refs/heads/x\0report-status\n0000PACK-garbage`]) {
      const res = await fetch(`${host}/${project.full_path}.git/git-receive-pack`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-git-receive-pack-request', authorization: `Basic ${Buffer.from(`m:${maintainer.token}`).toString('base64')}` },
        body,
      });
      assert.ok(res.status < 500, String(res.status));
      await res.arrayBuffer();
    }
    assert.deepEqual(await serverRefs(), refs);
  });
});

describe('the first push to an empty repository', () => {
  let fresh: NamespaceRow;
  before(async () => {
    fresh = await createGroup(t, {
      path: 'fresh',
      members: [
        [maintainer.user.id, ACCESS.MAINTAINER],
        [developer.user.id, ACCESS.DEVELOPER],
      ],
    });
  });

  test('under full protection only maintainers push first; the branch pushed becomes the default, protected', async () => {
    const empty = await apiProject(fresh, 'empty', false);
    const dir = path.join(git.root, `new-${randomBytes(4).toString('hex')}`);
    await git.ok(['init', '-q', '-b', 'develop', dir]);
    await git.commit(dir, 'one.txt', '1\n', 'Root commit');
    await git.commit(dir, 'two.txt', '2\n', 'Second');
    const tip = await git.commit(dir, 'three.txt', '3\n', 'Third');

    const theirs = gitUrl(host, empty.full_path, { login: 'developer', password: developer.token });
    const stderr = (await git.run(['push', theirs, 'develop'], dir)).stderr;
    assert.match(stderr, /remote: GitLab: *\nremote: A default branch \(e\.g\. master\) does not yet exist for fresh\/empty/);
    assert.match(stderr, new RegExp(`${host}/fresh/empty/-/project_members`));

    await git.ok(['push', '--quiet', url(maintainer, empty), 'develop'], dir);
    const res = await t.get(`/api/v4/projects/${empty.id}`, { token: ROOT_TOKEN });
    assert.equal(res.json().default_branch, 'develop');
    assert.equal(res.json().empty_repo, false);
    assert.match(await git.ok(['ls-remote', '--symref', url(maintainer, empty), 'HEAD']), /^ref: refs\/heads\/develop\tHEAD$/m);
    assert.deepEqual((await pushEvents(empty)).map((e) => e.push_data), [
      { commit_count: 3, action: 'created', ref_type: 'branch', commit_from: null, commit_to: tip, ref: 'develop', commit_title: 'Root commit', ref_count: null },
    ]);
    const rules = (await t.get(`/api/v4/projects/${empty.id}/protected_branches`, { token: ROOT_TOKEN })).json();
    assert.deepEqual(
      rules.map((r: { name: string; push_access_levels: { access_level: number }[]; merge_access_levels: { access_level: number }[] }) => [r.name, r.push_access_levels[0].access_level, r.merge_access_levels[0].access_level]),
      [['develop', ACCESS.MAINTAINER, ACCESS.MAINTAINER]],
    );
    await git.commit(dir, 'four.txt', '4\n', 'Fourth');
    assert.match((await git.run(['push', theirs, 'develop'], dir)).stderr, /You are not allowed to push code to protected branches on this project\./);
  });

  test('without default branch protection, a developer pushes first and nothing is protected', async () => {
    const open = await createGroup(t, { path: 'open-group', settings: { default_branch_protection: 0 }, members: [[developer.user.id, ACCESS.DEVELOPER]] });
    const empty = await apiProject(open, 'empty', false);
    const dir = path.join(git.root, `new-${randomBytes(4).toString('hex')}`);
    await git.ok(['init', '-q', '-b', 'main', dir]);
    const tip = await git.commit(dir, 'one.txt', '1\n', 'Only commit');
    await git.ok(['push', '--quiet', url(developer, empty), 'main', 'main:other'], dir);
    const res = await t.get(`/api/v4/projects/${empty.id}`, { token: ROOT_TOKEN });
    assert.equal(res.json().default_branch, 'main');
    assert.deepEqual((await t.get(`/api/v4/projects/${empty.id}/protected_branches`, { token: ROOT_TOKEN })).json(), []);
    assert.deepEqual((await pushEvents(empty)).map((e) => [e.push_data.ref, e.push_data.commit_count, e.push_data.commit_title, e.push_data.commit_to]), [
      ['main', 1, 'Only commit', tip],
      ['other', 0, null, tip],
    ]);
  });
});
