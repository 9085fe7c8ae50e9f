// Git over SSH with the system OpenSSH client and git: clone, fetch and push with user keys (the
// same abilities, protected branches, events and pipelines as over HTTP), deploy keys reading and
// writing, archives, and repository arguments that try to leave the project.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../core/access/levels.ts';
import type { ProjectRow } from '../db/schema.ts';
import { type GitCli, gitCli, gitUrl } from '../../test/git-cli.ts';
import { ROOT_TOKEN, type TestUser } from '../../test/harness.ts';
import { createGroup, unprotectDefaultBranch } from '../../test/factories.ts';
import { type KeyPair, type SshTestApp, deployKey, runSsh, sshCommand, sshTestApp, userKey } from '../../test/ssh.ts';
import { warningBox } from './shell.ts';

let w: SshTestApp;
let project: ProjectRow;
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;
const keys = new Map<TestUser, KeyPair>();
/** git with GIT_SSH_COMMAND signing in with one key. */
const clis: GitCli[] = [];

function gitWith(key: KeyPair): GitCli {
  const cli = gitCli({ GIT_SSH_COMMAND: sshCommand(w.port, key) });
  clis.push(cli);
  return cli;
}

const sshUrl = (target: ProjectRow = project) => `ssh://git@127.0.0.1:${w.port}/${target.full_path}.git`;
const scratch = (git: GitCli) => path.join(git.root, `work-${randomBytes(4).toString('hex')}`);

async function newProject(namespaceId: number, name: string, visibility = 'private'): Promise<ProjectRow> {
  const res = await w.t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name, path: name, namespace_id: namespaceId, initialize_with_readme: true, visibility } });
  assert.equal(res.statusCode, 201, res.body);
  await unprotectDefaultBranch(w.t, res.json());
  return w.t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
}

async function clone(git: GitCli, url = sshUrl()): Promise<string> {
  const dir = scratch(git);
  await git.ok(['clone', '--quiet', url, dir]);
  return dir;
}

interface PushEvent {
  action_name: string;
  author_username: string;
  push_data: { action: string; ref: string; commit_to: string | null };
}

async function pushEvents(target: ProjectRow = project): Promise<PushEvent[]> {
  const res = await w.t.get(`/api/v4/projects/${target.id}/events`, { token: ROOT_TOKEN, query: { action: 'pushed', per_page: '100', sort: 'asc' } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The platform's "remote: GitLab: …" line of a refused push (without the blanks git pads it with). */
const gitlabLine = (stderr: string) => stderr.split('\n').find((line) => line.startsWith('remote: GitLab: '))?.trimEnd();

before(async () => {
  w = await sshTestApp();
  owner = await w.t.user({ username: 'owner' });
  developer = await w.t.user({ username: 'developer' });
  reporter = await w.t.user({ username: 'reporter' });
  stranger = await w.t.user({ username: 'stranger' });
  const team = await createGroup(w.t, {
    path: 'team',
    members: [
      [owner.user.id, ACCESS.MAINTAINER],
      [developer.user.id, ACCESS.DEVELOPER],
      [reporter.user.id, ACCESS.REPORTER],
    ],
  });
  project = await newProject(team.id, 'app');
  for (const user of [owner, developer, reporter, stranger]) keys.set(user, await userKey(w, user.token));
});
after(async () => {
  for (const cli of clis) cli.close();
  await w.close();
});

describe('user keys', () => {
  test('clone by ssh_url_to_repo, push a branch (events as over HTTP), and fetch it into another clone', async () => {
    const entity = (await w.t.get(`/api/v4/projects/${project.id}`, { token: developer.token })).json();
    assert.equal(entity.ssh_url_to_repo, `ssh://git@127.0.0.1:${w.port}/team/app.git`);
    const git = gitWith(keys.get(developer) as KeyPair);
    const dir = await clone(git, entity.ssh_url_to_repo);
    const other = await clone(git);
    await git.ok(['checkout', '-q', '-b', 'feature'], dir);
    const commit = await git.commit(dir, 'a.txt', 'a\n', 'Add a');
    const before = (await pushEvents()).length;
    await git.ok(['push', '--quiet', 'origin', 'feature'], dir);

    const events = (await pushEvents()).slice(before);
    assert.deepEqual(
      events.map((e) => [e.action_name, e.author_username, e.push_data.action, e.push_data.ref, e.push_data.commit_to]),
      [['pushed new', 'developer', 'created', 'feature', commit]],
    );
    await git.ok(['fetch', '--quiet', 'origin'], other);
    assert.equal((await git.ok(['rev-parse', 'origin/feature'], other)).trim(), commit);
  });

  test('a pushed .gitlab-ci.yml makes a pipeline, and protocol v2 and v0 clients both work', async () => {
    const git = gitWith(keys.get(owner) as KeyPair);
    const dir = await clone(git);
    const sha = await git.commit(dir, '.gitlab-ci.yml', 'build:\n  script: [echo hello]\n', 'CI');
    await git.ok(['-c', 'protocol.version=0', 'push', '--quiet', 'origin', 'HEAD:ci'], dir);
    await w.t.runJobs();
    const pipelines = (await w.t.get(`/api/v4/projects/${project.id}/pipelines`, { token: owner.token })).json();
    assert.deepEqual(
      pipelines.map((p: { ref: string; sha: string; source: string; status: string }) => [p.ref, p.sha, p.source, p.status]),
      [['ci', sha, 'push', 'pending']],
    );
    const v2 = scratch(git);
    await git.ok(['-c', 'protocol.version=2', 'clone', '--quiet', '--branch', 'ci', sshUrl(), v2]);
    assert.equal((await git.ok(['rev-parse', 'HEAD'], v2)).trim(), sha);
  });

  test('a protected branch refuses a developer with the message git over HTTP gives', async () => {
    const res = await w.t.post(`/api/v4/projects/${project.id}/protected_branches`, { token: ROOT_TOKEN, body: { name: 'main', push_access_level: ACCESS.MAINTAINER } });
    assert.equal(res.statusCode, 201, res.body);
    const git = gitWith(keys.get(developer) as KeyPair);
    const dir = await clone(git);
    await git.commit(dir, 'b.txt', 'b\n', 'Add b');
    const overSsh = await git.run(['push', 'origin', 'HEAD:main'], dir);
    assert.notEqual(overSsh.code, 0);
    const overHttp = await git.run(['push', gitUrl(w.host, project.full_path, { login: 'developer', password: developer.token }), 'HEAD:main'], dir);
    assert.notEqual(overHttp.code, 0);
    assert.equal(gitlabLine(overSsh.stderr), 'remote: GitLab: You are not allowed to push code to protected branches on this project.');
    assert.equal(gitlabLine(overSsh.stderr), gitlabLine(overHttp.stderr));
    // A maintainer passes.
    const maintainer = gitWith(keys.get(owner) as KeyPair);
    const mine = await clone(maintainer);
    await maintainer.commit(mine, 'c.txt', 'c\n', 'Add c');
    await maintainer.ok(['push', '--quiet', 'origin', 'HEAD:main'], mine);
  });

  test('a reporter reads but may not push; a stranger does not see a private project', async () => {
    const git = gitWith(keys.get(reporter) as KeyPair);
    const dir = await clone(git);
    await git.commit(dir, 'd.txt', 'd\n', 'Add d');
    const pushed = await git.run(['push', 'origin', 'HEAD:reporter'], dir);
    assert.notEqual(pushed.code, 0);
    assert.ok(pushed.stderr.startsWith(warningBox('You are not allowed to push code to this project.')), pushed.stderr);

    const fetched = await gitWith(keys.get(stranger) as KeyPair).run(['ls-remote', sshUrl()]);
    assert.notEqual(fetched.code, 0);
    assert.ok(fetched.stderr.startsWith(warningBox('The project you were looking for could not be found.')), fetched.stderr);
  });

  test('git archive --remote runs git-upload-archive', async () => {
    const git = gitWith(keys.get(reporter) as KeyPair);
    const listing = await git.run(['archive', `--remote=${sshUrl()}`, '--format=tar', 'HEAD', 'README.md']);
    assert.equal(listing.code, 0, listing.stderr);
    assert.match(listing.stdout, /README\.md/);
    const refused = await gitWith(keys.get(stranger) as KeyPair).run(['archive', `--remote=${sshUrl()}`, 'HEAD']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /The project you were looking for could not be found\./);
  });

  test('an administrator reaches every project', async () => {
    const admin = await w.t.user({ username: 'boss', admin: true });
    const git = gitWith(await userKey(w, admin.token));
    assert.match(await git.ok(['ls-remote', sshUrl()]), /refs\/heads\/main/);
  });
});

describe('deploy keys', () => {
  test('a read-only key clones and may not push', async () => {
    const key = await deployKey(w, owner.token, project.id, false);
    const git = gitWith(key);
    const dir = await clone(git);
    await git.commit(dir, 'e.txt', 'e\n', 'Add e');
    const pushed = await git.run(['push', 'origin', 'HEAD:deploy'], dir);
    assert.notEqual(pushed.code, 0);
    assert.ok(pushed.stderr.startsWith(warningBox('This deploy key does not have write access to this project.')), pushed.stderr);
  });

  test('a key that may push writes unprotected branches as its creator, and no protected one', async () => {
    const key = await deployKey(w, owner.token, project.id, true);
    const git = gitWith(key);
    const dir = await clone(git);
    const commit = await git.commit(dir, 'f.txt', 'f\n', 'Add f');
    const before = (await pushEvents()).length;
    await git.ok(['push', '--quiet', 'origin', 'HEAD:deployed'], dir);
    const events = (await pushEvents()).slice(before);
    assert.deepEqual(
      events.map((e) => [e.author_username, e.push_data.ref, e.push_data.commit_to]),
      [['owner', 'deployed', commit]],
    );
    const refused = await git.run(['push', 'origin', 'HEAD:main'], dir);
    assert.notEqual(refused.code, 0);
    assert.equal(gitlabLine(refused.stderr), 'remote: GitLab: You are not allowed to push code to protected branches on this project.');
  });

  test('a protected branch whose rule names a key takes its pushes, and no other key\'s', async () => {
    const named = await deployKey(w, owner.token, project.id, true);
    const other = await deployKey(w, owner.token, project.id, true);
    const rule = await w.t.post(`/api/v4/projects/${project.id}/protected_branches`, {
      token: owner.token,
      body: { name: 'release/*', allowed_to_push: [{ deploy_key_id: named.id }] },
    });
    assert.equal(rule.statusCode, 201, rule.body);
    const git = gitWith(named);
    const dir = await clone(git);
    const commit = await git.commit(dir, 'r.txt', 'r\n', 'Add r');
    await git.ok(['push', '--quiet', 'origin', 'HEAD:release/1.0'], dir);
    const refs = await w.t.get(`/api/v4/projects/${project.id}/repository/branches/release%2F1.0`, { token: ROOT_TOKEN });
    assert.equal(refs.json().commit.id, commit);
    const otherGit = gitWith(other);
    const otherDir = await clone(otherGit);
    await otherGit.commit(otherDir, 's.txt', 's\n', 'Add s');
    const refused = await otherGit.run(['push', 'origin', 'HEAD:release/3.0'], otherDir);
    assert.equal(gitlabLine(refused.stderr), 'remote: GitLab: You are not allowed to create protected branches on this project.');
    // Nor may a developer, whom the rule's missing role level leaves out.
    const devGit = gitWith(keys.get(developer) as KeyPair);
    const devDir = await clone(devGit);
    await devGit.commit(devDir, 't.txt', 't\n', 'Add t');
    const devRefused = await devGit.run(['push', 'origin', 'HEAD:release/2.0'], devDir);
    assert.equal(gitlabLine(devRefused.stderr), 'remote: GitLab: You are not allowed to create protected branches on this project.');
  });

  test('a key reads the projects it is enabled on and public ones, nothing else', async () => {
    const key = await deployKey(w, owner.token, project.id, true);
    const git = gitWith(key);
    const personal = await w.t.post('/api/v4/projects', { token: owner.token, body: { name: 'secret', initialize_with_readme: true } });
    const open = await w.t.post('/api/v4/projects', { token: owner.token, body: { name: 'open', initialize_with_readme: true, visibility: 'public' } });
    const secret = await git.run(['ls-remote', `ssh://git@127.0.0.1:${w.port}/${personal.json().path_with_namespace}.git`]);
    assert.notEqual(secret.code, 0);
    assert.ok(secret.stderr.startsWith(warningBox('The project you were looking for could not be found.')), secret.stderr);
    const publicUrl = `ssh://git@127.0.0.1:${w.port}/${open.json().path_with_namespace}.git`;
    assert.match(await git.ok(['ls-remote', publicUrl]), /refs\/heads\/main/);
    // Enabled elsewhere does not mean writable here.
    const dir = await clone(git, publicUrl);
    await git.commit(dir, 'g.txt', 'g\n', 'Add g');
    const pushed = await git.run(['push', 'origin', 'HEAD:other'], dir);
    assert.ok(pushed.stderr.startsWith(warningBox('This deploy key does not have write access to this project.')), pushed.stderr);
  });

  test("a key whose creator is blocked no longer writes", async () => {
    const creator = await w.t.user({ username: 'creator' });
    await w.t.post(`/api/v4/projects/${project.id}/members`, { token: ROOT_TOKEN, body: { user_id: creator.user.id, access_level: ACCESS.MAINTAINER } });
    const key = await deployKey(w, creator.token, project.id, true);
    assert.equal((await w.t.post(`/api/v4/users/${creator.user.id}/block`, { token: ROOT_TOKEN })).statusCode, 201);
    const git = gitWith(key);
    const dir = await clone(git);
    await git.commit(dir, 'h.txt', 'h\n', 'Add h');
    const pushed = await git.run(['push', 'origin', 'HEAD:blocked-creator'], dir);
    assert.ok(pushed.stderr.startsWith(warningBox('This deploy key does not have write access to this project.')), pushed.stderr);
  });
});

describe('repository arguments', () => {
  /** What git-upload-pack answers for this argument: the advertisement, or the refusal. */
  const uploadPack = (argument: string) => runSsh(w.port, keys.get(developer) as KeyPair, ['git-upload-pack', `'${argument}'`], '0000');

  test('the project is found with or without .git, a leading slash or another case, and in subgroups', async () => {
    const team = await w.t.deps.db.selectFrom('namespaces').selectAll().where('path', '=', 'team').executeTakeFirstOrThrow();
    const sub = await createGroup(w.t, { path: 'sub', parent: team });
    const nested = await newProject(sub.id, 'lib');
    for (const argument of ['team/app.git', 'team/app', '/team/app.git', '//team/app', 'Team/App.git', `${nested.full_path}.git`]) {
      const answer = await uploadPack(argument);
      assert.equal(answer.code, 0, `${argument}: ${answer.stderr}`);
      assert.match(answer.stdout, /refs\/heads\/main/, argument);
    }
  });

  test('paths that leave the projects find nothing, and git never sees them', async () => {
    const notFound = warningBox('The project you were looking for could not be found.');
    for (const argument of ['../../etc', '/etc/passwd', 'team/app.git/../../../etc', 'team', 'team/app.git.git', '~/team/app', '.', '']) {
      const answer = await uploadPack(argument);
      assert.deepEqual(answer, { code: 1, stdout: '', stderr: notFound }, argument);
    }
  });
});
