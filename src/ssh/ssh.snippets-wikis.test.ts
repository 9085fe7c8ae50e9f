// Git over SSH for snippets' and wikis' repositories, with the system OpenSSH client and git: the
// same access rules and messages as git over HTTP (one decision serves both), deploy keys kept
// out of snippets and reading wikis only, and pushes refused while a storage move holds the
// repository read-only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../db/schema.ts';
import { type GitCli, gitCli, gitUrl } from '../../test/git-cli.ts';
import { ROOT_TOKEN, type TestUser } from '../../test/harness.ts';
import { createGroup } from '../../test/factories.ts';
import { type KeyPair, type SshTestApp, deployKey, runSsh, sshCommand, sshTestApp, userKey } from '../../test/ssh.ts';
import { warningBox } from './shell.ts';

let w: SshTestApp;
let team: NamespaceRow;
let project: ProjectRow;
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;
const keys = new Map<TestUser, KeyPair>();
const clis: GitCli[] = [];

function gitWith(key: KeyPair): GitCli {
  const cli = gitCli({ GIT_SSH_COMMAND: sshCommand(w.port, key) });
  clis.push(cli);
  return cli;
}

const sshUrl = (repository: string) => `ssh://git@127.0.0.1:${w.port}/${repository}.git`;
const scratch = (git: GitCli) => path.join(git.root, `work-${randomBytes(4).toString('hex')}`);
const key = (user: TestUser) => keys.get(user) as KeyPair;

async function clone(git: GitCli, url: string): Promise<string> {
  const dir = scratch(git);
  await git.ok(['clone', '--quiet', url, dir]);
  return dir;
}

/** What the git command answers over SSH, in the client's words (scp-like `git@host:path` sends the path without a slash). */
const refusal = (message: string) => warningBox(message);

async function createSnippet(url: string, token: string, body: Record<string, unknown>): Promise<{ id: number; ssh_url_to_repo: string }> {
  const res = await w.t.post(url, { token, body: { visibility: 'private', ...body } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

before(async () => {
  w = await sshTestApp();
  maintainer = await w.t.user({ username: 'maintainer' });
  developer = await w.t.user({ username: 'developer' });
  reporter = await w.t.user({ username: 'reporter' });
  stranger = await w.t.user({ username: 'stranger' });
  team = await createGroup(w.t, {
    path: 'team',
    members: [
      [maintainer.user.id, ACCESS.MAINTAINER],
      [developer.user.id, ACCESS.DEVELOPER],
      [reporter.user.id, ACCESS.REPORTER],
    ],
  });
  const res = await w.t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'app', path: 'app', namespace_id: team.id, initialize_with_readme: true } });
  assert.equal(res.statusCode, 201, res.body);
  project = await w.t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  for (const user of [maintainer, developer, reporter, stranger]) keys.set(user, await userKey(w, user.token));
});
after(async () => {
  for (const cli of clis) cli.close();
  await w.close();
});

describe('personal snippets', () => {
  test('the author clones by ssh_url_to_repo and pushes; the API reads what was pushed', async () => {
    const created = await createSnippet('/api/v4/snippets', developer.token, { title: 'Notes', file_name: 'a.txt', content: 'A\n' });
    assert.equal(created.ssh_url_to_repo, sshUrl(`snippets/${created.id}`));
    const git = gitWith(key(developer));
    const dir = await clone(git, created.ssh_url_to_repo);
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'A\n');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'changed\n');
    await git.ok(['commit', '-q', '-am', 'Change a'], dir);
    await git.ok(['push', '--quiet', 'origin', 'HEAD:main'], dir);
    assert.equal((await w.t.get(`/api/v4/snippets/${created.id}/raw`, { token: developer.token })).body, 'changed\n');
    // The scp-like form (`git@host:snippets/<id>.git`) names the same repository.
    const answer = await runSsh(w.port, key(developer), ['git-upload-pack', `'snippets/${created.id}.git'`], '0000');
    assert.equal(answer.code, 0, answer.stderr);
    assert.match(answer.stdout, /refs\/heads\/main/);
  });

  test('others read a public snippet and may not push; a private one they may not read; the messages are those of git over HTTP', async () => {
    const open = await createSnippet('/api/v4/snippets', developer.token, { title: 'Open', visibility: 'public', file_name: 'o.txt', content: 'O\n' });
    const git = gitWith(key(stranger));
    const dir = await clone(git, open.ssh_url_to_repo);
    await git.commit(dir, 'b.txt', 'B\n', 'Add b');
    const pushed = await git.run(['push', 'origin', 'HEAD:main'], dir);
    assert.notEqual(pushed.code, 0);
    assert.ok(pushed.stderr.startsWith(refusal('You are not allowed to update this snippet.')), pushed.stderr);
    const overHttp = await git.run(['push', gitUrl(w.host, `snippets/${open.id}`, { login: 'stranger', password: stranger.token }), 'HEAD:main'], dir);
    assert.match(overHttp.stderr, /You are not allowed to update this snippet\./);

    const secret = await createSnippet('/api/v4/snippets', developer.token, { title: 'Secret', file_name: 's.txt', content: 'S\n' });
    const read = await git.run(['ls-remote', secret.ssh_url_to_repo]);
    assert.notEqual(read.code, 0);
    assert.ok(read.stderr.startsWith(refusal('You are not allowed to read this snippet.')), read.stderr);
    const missing = await git.run(['ls-remote', sshUrl('snippets/999999')]);
    assert.ok(missing.stderr.startsWith(refusal('The snippet you were looking for could not be found.')), missing.stderr);
    // A personal snippet is not at a project's path.
    const elsewhere = await gitWith(key(developer)).run(['ls-remote', sshUrl(`team/app/snippets/${secret.id}`)]);
    assert.ok(elsewhere.stderr.startsWith(refusal('The snippet you were looking for could not be found.')), elsewhere.stderr);
  });

  test('a deploy key reaches no snippet', async () => {
    const open = await createSnippet('/api/v4/snippets', maintainer.token, { title: 'Public', visibility: 'public', file_name: 'p.txt', content: 'P\n' });
    const deploy = await deployKey(w, maintainer.token, project.id, true);
    const answer = await gitWith(deploy).run(['ls-remote', open.ssh_url_to_repo]);
    assert.notEqual(answer.code, 0);
    assert.ok(answer.stderr.startsWith(refusal('The authentication mechanism is not supported.')), answer.stderr);
  });

  test('while a storage move holds the snippet read-only, pushes are refused', async () => {
    const created = await createSnippet('/api/v4/snippets', developer.token, { title: 'Held', file_name: 'h.txt', content: 'H\n' });
    const git = gitWith(key(developer));
    const dir = await clone(git, created.ssh_url_to_repo);
    await git.commit(dir, 'i.txt', 'I\n', 'Add i');
    await w.t.deps.db.updateTable('snippets').set({ repository_read_only: true }).where('id', '=', created.id).execute();
    const pushed = await git.run(['push', 'origin', 'HEAD:main'], dir);
    assert.notEqual(pushed.code, 0);
    assert.ok(pushed.stderr.startsWith(refusal('The repository is temporarily read-only. Please try again later.')), pushed.stderr);
    await w.t.deps.db.updateTable('snippets').set({ repository_read_only: false }).where('id', '=', created.id).execute();
    await git.ok(['push', '--quiet', 'origin', 'HEAD:main'], dir);
    // The push's lease is gone once it is over.
    assert.equal((await w.t.deps.db.selectFrom('push_leases').select('id').execute()).length, 0);
  });
});

describe('project snippets', () => {
  test('members clone at the project\'s path; the author and Maintainers push, a Developer who is not the author may not', async () => {
    const created = await createSnippet(`/api/v4/projects/${project.id}/snippets`, reporter.token, { title: 'Team', file_name: 't.txt', content: 'T\n' });
    assert.equal(created.ssh_url_to_repo, sshUrl(`team/app/snippets/${created.id}`));
    for (const user of [reporter, maintainer]) {
      const git = gitWith(key(user));
      const dir = await clone(git, created.ssh_url_to_repo);
      await git.ok(['pull', '--quiet', '--rebase', 'origin', 'main'], dir);
      await git.commit(dir, `${user.user.username}.txt`, 'x\n', `From ${user.user.username}`);
      await git.ok(['push', '--quiet', 'origin', 'HEAD:main'], dir);
    }
    const shown = await w.t.get(`/api/v4/projects/${project.id}/snippets/${created.id}`, { token: reporter.token });
    assert.deepEqual(shown.json().files.map((f: { path: string }) => f.path).sort(), ['maintainer.txt', 'reporter.txt', 't.txt']);

    const git = gitWith(key(developer));
    const dir = await clone(git, created.ssh_url_to_repo);
    await git.commit(dir, 'd.txt', 'd\n', 'From developer');
    const refused = await git.run(['push', 'origin', 'HEAD:main'], dir);
    assert.ok(refused.stderr.startsWith(refusal('You are not allowed to update this snippet.')), refused.stderr);
    const hidden = await gitWith(key(stranger)).run(['ls-remote', created.ssh_url_to_repo]);
    assert.ok(hidden.stderr.startsWith(refusal('The project you were looking for could not be found.')), hidden.stderr);
  });
});

describe('wikis', () => {
  test('a Developer pushes the first page of a project wiki (creating its repository), the API reads it; a Reporter clones and may not push', async () => {
    const git = gitWith(key(developer));
    const dir = scratch(git);
    fs.mkdirSync(dir);
    await git.ok(['init', '-q', '-b', 'master'], dir);
    await git.commit(dir, 'home.md', '# Home\n', 'Home');
    await git.ok(['push', '--quiet', sshUrl('team/app.wiki'), 'HEAD:master'], dir);
    const page = await w.t.get(`/api/v4/projects/${project.id}/wikis/home`, { token: reporter.token });
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(page.json().content, '# Home\n');

    const reader = gitWith(key(reporter));
    const cloned = await clone(reader, sshUrl('team/app.wiki'));
    assert.equal(fs.readFileSync(path.join(cloned, 'home.md'), 'utf8'), '# Home\n');
    await reader.commit(cloned, 'other.md', 'other\n', 'Other');
    const refused = await reader.run(['push', 'origin', 'HEAD:master'], cloned);
    assert.notEqual(refused.code, 0);
    assert.ok(refused.stderr.startsWith(refusal("You are not allowed to write to this project's wiki.")), refused.stderr);
    const overHttp = await reader.run(['push', gitUrl(w.host, 'team/app.wiki', { login: 'reporter', password: reporter.token }), 'HEAD:master'], cloned);
    assert.match(overHttp.stderr, /You are not allowed to write to this project's wiki\./);

    const hidden = await gitWith(key(stranger)).run(['ls-remote', sshUrl('team/app.wiki')]);
    assert.ok(hidden.stderr.startsWith(refusal('The wiki you were looking for could not be found.')), hidden.stderr);
  });

  test('the wiki access level rules: disabled, no member reads it; the scp-like path works too', async () => {
    const before = await runSsh(w.port, key(reporter), ['git-upload-pack', "'team/app.wiki.git'"], '0000');
    assert.equal(before.code, 0, before.stderr);
    const res = await w.t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { wiki_access_level: 'disabled' } });
    assert.equal(res.statusCode, 200, res.body);
    try {
      const answer = await runSsh(w.port, key(maintainer), ['git-upload-pack', "'team/app.wiki.git'"], '0000');
      assert.deepEqual(answer, { code: 1, stdout: '', stderr: refusal('You are not allowed to download files from this wiki.') });
    } finally {
      await w.t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { wiki_access_level: 'enabled' } });
    }
  });

  test('a deploy key reads the wiki of its project and never writes it', async () => {
    const deploy = await deployKey(w, maintainer.token, project.id, true);
    const git = gitWith(deploy);
    const dir = await clone(git, sshUrl('team/app.wiki'));
    await git.commit(dir, 'deployed.md', 'd\n', 'Deployed');
    const refused = await git.run(['push', 'origin', 'HEAD:master'], dir);
    assert.ok(refused.stderr.startsWith(refusal("You are not allowed to write to this project's wiki.")), refused.stderr);
    const group = await git.run(['ls-remote', sshUrl('team.wiki')]);
    assert.ok(group.stderr.startsWith(refusal('The wiki you were looking for could not be found.')), group.stderr);
  });

  test("a group's wiki: its Developers push, its Reporters read, others do not see it", async () => {
    const git = gitWith(key(developer));
    const dir = scratch(git);
    fs.mkdirSync(dir);
    await git.ok(['init', '-q', '-b', 'master'], dir);
    await git.commit(dir, 'handbook.md', 'Handbook\n', 'Handbook');
    await git.ok(['push', '--quiet', sshUrl('team.wiki'), 'HEAD:master'], dir);
    const page = await w.t.get(`/api/v4/groups/${team.id}/wikis/handbook`, { token: reporter.token });
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(page.json().content, 'Handbook\n');
    const read = await clone(gitWith(key(reporter)), sshUrl('team.wiki'));
    assert.ok(fs.existsSync(path.join(read, 'handbook.md')));
    const hidden = await gitWith(key(stranger)).run(['ls-remote', sshUrl('team.wiki')]);
    assert.ok(hidden.stderr.startsWith(refusal('The wiki you were looking for could not be found.')), hidden.stderr);
  });

  test('while a storage move holds the project read-only, a wiki push is refused', async () => {
    await w.t.deps.db.updateTable('projects').set({ repository_read_only: true }).where('id', '=', project.id).execute();
    try {
      const git = gitWith(key(developer));
      const dir = await clone(git, sshUrl('team/app.wiki'));
      await git.commit(dir, 'late.md', 'late\n', 'Late');
      const refused = await git.run(['push', 'origin', 'HEAD:master'], dir);
      assert.ok(refused.stderr.startsWith(refusal('The repository is temporarily read-only. Please try again later.')), refused.stderr);
    } finally {
      await w.t.deps.db.updateTable('projects').set({ repository_read_only: false }).where('id', '=', project.id).execute();
    }
  });
});
