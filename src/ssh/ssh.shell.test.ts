// The SSH server's sign-in and its shell, with the system OpenSSH client: who may sign in (keys
// unknown, expired or of a blocked user), the greeting byte for byte, the other commands of the
// platform's shell, commands it refuses, and the limits on connections and on time to sign in.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestUser } from '../../test/harness.ts';
import { type KeyPair, type SshTestApp, deployKey, keyPair, runSsh, sshTestApp, userKey } from '../../test/ssh.ts';
import { ensureHostKey, hostKeyFile } from './host-key.ts';
import { warningBox } from './shell.ts';

let w: SshTestApp;
let alice: TestUser;
let aliceKey: KeyPair;
let deploy: KeyPair;
let projectPath: string;

before(async () => {
  w = await sshTestApp();
  alice = await w.t.user({ username: 'alice' });
  aliceKey = await userKey(w, alice.token);
  const project = await w.t.post('/api/v4/projects', { token: alice.token, body: { name: 'app', initialize_with_readme: true } });
  projectPath = project.json().path_with_namespace;
  deploy = await deployKey(w, alice.token, project.json().id, false);
});
after(() => w.close());

describe('signing in', () => {
  test('the greeting, byte for byte, for a user key and a deploy key', async () => {
    assert.deepEqual(await runSsh(w.port, aliceKey), { code: 0, stdout: 'Welcome to GitLab, @alice!\n', stderr: '' });
    assert.deepEqual(await runSsh(w.port, deploy, ['-T']), { code: 0, stdout: 'Welcome to GitLab, Anonymous!\n', stderr: '' });
  });

  test('an unknown key, another user name and an expired key are refused', async () => {
    const unknown = await runSsh(w.port, keyPair(w.dir));
    assert.equal(unknown.code, 255);
    assert.match(unknown.stderr, /Permission denied \(publickey\)/);

    const otherUser = await runSsh(w.port, aliceKey, [], '', 'alice');
    assert.equal(otherUser.code, 255);
    assert.match(otherUser.stderr, /Permission denied \(publickey\)/);

    const expiring = await userKey(w, alice.token, { expires_at: '2999-01-01' });
    assert.equal((await runSsh(w.port, expiring)).code, 0);
    await w.t.deps.db.updateTable('keys').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('key', 'like', `${expiring.publicKey.split(' ').slice(0, 2).join(' ')}%`).execute();
    const expired = await runSsh(w.port, expiring);
    assert.equal(expired.code, 255);
    assert.match(expired.stderr, /Permission denied \(publickey\)/);
  });

  test('a blocked user is still greeted by name, and refused everything else with the platform message', async () => {
    const bob = await w.t.user({ username: 'bob' });
    const key = await userKey(w, bob.token);
    assert.equal((await w.t.post(`/api/v4/users/${bob.user.id}/block`, { token: ROOT_TOKEN })).statusCode, 201);
    assert.deepEqual(await runSsh(w.port, key), { code: 0, stdout: 'Welcome to GitLab, @bob!\n', stderr: '' });
    assert.deepEqual(await runSsh(w.port, key, ['git-upload-pack', `'${projectPath}.git'`]), { code: 1, stdout: '', stderr: warningBox('Your account has been blocked.') });
    assert.deepEqual(await runSsh(w.port, key, ['personal_access_token', 'x', 'api']), { code: 1, stdout: '', stderr: warningBox('Your account has been blocked.') });
    assert.deepEqual(await runSsh(w.port, key, ['2fa_verify'], '1\n'), { code: 1, stdout: '', stderr: warningBox('Your account has been blocked.') });
    // A command the shell does not know is refused as for anyone.
    assert.deepEqual(await runSsh(w.port, key, ['ls']), { code: 1, stdout: '', stderr: 'Disallowed command\n' });
  });

  test('a client that does not sign in in time is let go, and connections beyond the limit are closed', async () => {
    const limited = await sshTestApp({}, { maxConnections: 1, loginGraceMs: 500 });
    try {
      const socket = net.connect(limited.port, '127.0.0.1');
      let banner = '';
      socket.on('data', (chunk) => (banner += chunk.toString('latin1')));
      const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
      await new Promise((resolve) => socket.once('connect', resolve));
      const opened = Date.now();
      // While it holds the one connection, another client is turned away.
      const turnedAway = await runSsh(limited.port, aliceKey);
      assert.equal(turnedAway.code, 255);
      const waited = (await closed) - opened;
      assert.match(banner, /^SSH-2\.0-Quarry\r\n/);
      assert.ok(waited >= 400 && waited < 5000, `closed after ${waited} ms`);
    } finally {
      await limited.close();
    }
  });
});

describe('the shell', () => {
  const run = (command: string[], input = '', key = aliceKey) => runSsh(w.port, key, command, input);

  test('commands the shell does not know are refused, and nothing runs', async () => {
    const disallowed = { code: 1, stdout: '', stderr: 'Disallowed command\n' };
    assert.deepEqual(await run(['ls']), disallowed);
    assert.deepEqual(await run(['sh', '-c', "'echo hi'"]), disallowed);
    assert.deepEqual(await run(['git-upload-pack']), { code: 1, stdout: '', stderr: warningBox('Disallowed command') });
    assert.deepEqual(await run(['git-receive-pack', 'a', 'b']), { code: 1, stdout: '', stderr: warningBox('Disallowed command') });
    assert.deepEqual(await run(['git-upload-pack', "'unclosed"]), { code: 1, stdout: '', stderr: 'Invalid SSH command: invalid command line string\n' });
    // `git upload-pack`, as Git for Windows once sent it, is git-upload-pack; what follows a ; is no command.
    const split = await run(['git', 'upload-pack', `'${projectPath}.git';`, 'rm', '-rf', '/'], '0000');
    assert.equal(split.code, 0, split.stderr);
    assert.match(split.stdout, /refs\/heads\/main/);
  });

  test('git-lfs-authenticate: the access check, then nothing, as where LFS is off', async () => {
    assert.deepEqual(await run(['git-lfs-authenticate', `${projectPath}.git`, 'download']), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual(await run(['git-lfs-authenticate', `${projectPath}.git`, 'upload']), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual(await run(['git-lfs-authenticate', `${projectPath}.git`, 'delete']), { code: 1, stdout: '', stderr: warningBox('Disallowed command') });
    assert.deepEqual(await run(['git-lfs-authenticate', `${projectPath}.git`]), { code: 1, stdout: '', stderr: warningBox('Disallowed command') });
    assert.deepEqual(await run(['git-lfs-authenticate', 'nobody/nothing.git', 'download']), { code: 1, stdout: '', stderr: warningBox('The project you were looking for could not be found.') });
    assert.deepEqual(await run(['git-lfs-authenticate', `${projectPath}.git`, 'upload'], '', deploy), {
      code: 1,
      stdout: '',
      stderr: warningBox('This deploy key does not have write access to this project.'),
    });
  });

  test('personal_access_token makes a token of the key user, with the platform refusals', async () => {
    const usage = 'Usage: personal_access_token <name> <scope1[,scope2,...]> [ttl_days]';
    assert.deepEqual(await run(['personal_access_token', 'x']), { code: 1, stdout: '', stderr: warningBox(usage) });
    assert.deepEqual(await run(['personal_access_token', 'x', 'api', '1', '2']), { code: 1, stdout: '', stderr: warningBox(usage) });
    assert.deepEqual(await run(['personal_access_token', 'x', 'api', 'soon']), { code: 1, stdout: '', stderr: warningBox("Invalid value for days_ttl: 'soon'") });
    assert.deepEqual(await run(['personal_access_token', 'x', 'api,sudo']), {
      code: 1,
      stdout: '',
      stderr: warningBox(`Invalid scope: 'sudo'. Valid scopes are: ["api", "read_api", "read_registry", "read_repository", "read_user", "write_registry", "write_repository"]`),
    });
    assert.deepEqual(await run(['personal_access_token', "''", 'api']), { code: 1, stdout: '', stderr: warningBox('No token name specified') });
    assert.deepEqual(await run(['personal_access_token', 'x', 'api'], '', deploy), { code: 1, stdout: '', stderr: warningBox('Deploy keys cannot be used to create personal access tokens') });

    const made = await run(['personal_access_token', 'laptop', 'read_api,read_user', '30']);
    assert.equal(made.code, 0, made.stderr);
    const match = /^Token: {3}(\S+)\nScopes: {2}read_api,read_user\nExpires: (\d{4}-\d{2}-\d{2})\n$/.exec(made.stdout);
    assert.ok(match, made.stdout);
    const expected = new Date(Date.now() + 31 * 86_400_000).toISOString().slice(0, 10);
    assert.equal(match[2], expected);
    const me = await w.t.get('/api/v4/user', { token: match[1] });
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().username, 'alice');
    const lasting = await run(['personal_access_token', 'desk', 'api']);
    assert.match(lasting.stdout, /\nScopes: {2}api\nExpires: never\n$/);
  });

  test('2fa_recovery_codes and 2fa_verify answer as where two-factor authentication is off', async () => {
    const question = 'Are you sure you want to generate new two-factor recovery codes?\nAny existing recovery codes you saved will be invalidated. (yes/no)\n';
    assert.deepEqual(await run(['2fa_recovery_codes'], 'yes\n'), {
      code: 0,
      stdout: `${question}\nAn error occurred while trying to generate new recovery codes.\nTwo-factor authentication is not enabled for this user\n`,
      stderr: '',
    });
    assert.deepEqual(await run(['2fa_recovery_codes'], 'no\n'), {
      code: 0,
      stdout: `${question}\nNew recovery codes have *not* been generated. Existing codes will remain valid.\n`,
      stderr: '',
    });
    assert.deepEqual(await run(['2fa_recovery_codes'], 'yes\n', deploy), {
      code: 0,
      stdout: `${question}\nAn error occurred while trying to generate new recovery codes.\nDeploy keys cannot be used to retrieve recovery codes\n`,
      stderr: '',
    });
    assert.deepEqual(await run(['2fa_verify'], '123456\n'), { code: 0, stdout: 'OTP: \nOTP validation failed.\nFeature is not available\n', stderr: '' });
  });
});

describe('the host key', () => {
  test('made once under the data directory, the fingerprint ssh-keygen shows, and the key clients see', async () => {
    const file = hostKeyFile(w.t.deps.config.dataDir);
    const first = ensureHostKey(w.t.deps.config.dataDir);
    assert.equal(first.created, false);
    assert.equal(first.file, file);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const listed = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`], { encoding: 'utf8' });
    assert.equal(listed.split(' ')[1], first.fingerprint);
    const scanned = await new Promise<string>((resolve, reject) =>
      execFile('ssh-keyscan', ['-t', 'ed25519', '-p', String(w.port), '127.0.0.1'], (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    assert.equal(scanned.trim().split(' ').slice(1).join(' '), fs.readFileSync(`${file}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' '));
  });
});
