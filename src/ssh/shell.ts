// The commands an SSH client may run, answered as the platform's shell (gitlab-shell, 14.x, behind
// OpenSSH) answers them, byte for byte: no command greets the key's owner; git-upload-pack,
// git-receive-pack and git-upload-archive run git on a project's, a snippet's or a wiki's
// repository; git-lfs-authenticate, personal_access_token, 2fa_recovery_codes and 2fa_verify
// answer as the platform does where LFS and two-factor authentication are off. Anything else is refused; nothing else is ever run.
import type { Readable, Writable } from 'node:stream';
import { actingUser } from '../core/auth/actor.ts';
import type { BaseContext, ServiceContext } from '../core/context.ts';
import { type SshGitCommand, isSshGitCommand, serveGitCommand } from '../git/ssh-service.ts';
import { issueToken } from '../modules/access-tokens/access-tokens.service.ts';
import type { ActiveKey } from '../modules/keys/keys.finder.ts';
import { type PushLog, openPushSession, pushRulesFor } from '../modules/pushes/index.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../domain/project-repository.ts';
import { beginPush } from '../domain/push-leases.ts';
import { type GitAction, checkSshGitAccess, keyRefusal } from './access.ts';
import { CommandLineError, parseCommandLine } from './command-line.ts';

/** The client's side of one session. */
export interface ShellChannel {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Settles when the client has gone. */
  closed: Promise<void>;
}

export interface ShellSession {
  ctx: BaseContext;
  key: ActiveKey;
  /** GIT_PROTOCOL as the client set it (gitProtocol() of its value), or null. */
  protocol: string | null;
  log: PushLog;
}

const DISALLOWED = 'Disallowed command';
/** The shell's commands besides git's own. */
const OTHER_COMMANDS = ['git-lfs-authenticate', 'personal_access_token', '2fa_recovery_codes', '2fa_verify'];
const PAT_USAGE = 'Usage: personal_access_token <name> <scope1[,scope2,...]> [ttl_days]';
/** The scopes a token made over SSH may have (14.x: Gitlab::Auth's API, repository and registry scopes). */
const SSH_TOKEN_SCOPES = ['api', 'read_api', 'read_registry', 'read_repository', 'read_user', 'write_registry', 'write_repository'];

/** The platform's warning box around a message (gitlab-shell's console.DisplayWarningMessage), on standard error. */
export function warningBox(message: string): string {
  const line = (text: string) => `remote: ${text}\n`;
  const divider = `${line('')}${line('='.repeat(72))}${line('')}`;
  return `${divider}${line(message)}${divider}`;
}

/** A command's outcome: its exit status, after what it wrote. */
type Exit = number;

/** Runs one command line (null: the client asked for a shell), and resolves with its exit status. */
export async function runShellCommand(session: ShellSession, commandLine: string | null, channel: ShellChannel): Promise<Exit> {
  let words: string[];
  try {
    words = commandLine === null ? [] : parseCommandLine(commandLine);
  } catch (error) {
    if (!(error instanceof CommandLineError)) throw error;
    channel.stderr.write(`Invalid SSH command: ${error.message}\n`);
    return 1;
  }
  const fail = (message: string): Exit => {
    channel.stderr.write(warningBox(message));
    return 1;
  };
  const [command = null] = words;
  if (command !== null && !isSshGitCommand(command) && !OTHER_COMMANDS.includes(command)) {
    channel.stderr.write(`${DISALLOWED}\n`);
    return 1;
  }
  // The greeting names the key's owner whatever their state, as the platform's discovery does; a
  // user who may not use git (blocked, say) hears why on every other command.
  if (command === null) return discover(session, channel);
  const refusal = keyRefusal(session.ctx.config, session.key);
  if (refusal !== null) return fail(refusal);
  if (isSshGitCommand(command)) return words.length === 2 ? git(session, command, words[1], channel, fail) : fail(DISALLOWED);
  switch (command) {
    case 'git-lfs-authenticate':
      return lfsAuthenticate(session, words, fail);
    case 'personal_access_token':
      return personalAccessToken(session, words, channel, fail);
    case '2fa_recovery_codes':
      return recoveryCodes(session, channel);
    default:
      return verifyOtp(channel);
  }
}

/** `ssh git@host`: who the key is. */
function discover(session: ShellSession, channel: ShellChannel): Exit {
  const { key } = session;
  channel.stdout.write(key.kind === 'user' ? `Welcome to GitLab, @${key.user.username}!\n` : 'Welcome to GitLab, Anonymous!\n');
  return 0;
}

const ACTIONS: Record<SshGitCommand, GitAction> = { 'git-upload-pack': 'download', 'git-upload-archive': 'download', 'git-receive-pack': 'upload' };

function serviceContextOf(session: ShellSession): ServiceContext {
  const { db, config, now } = session.ctx;
  return { db, config, now, actor: session.key.kind === 'user' ? actingUser(session.key.user) : null };
}

async function git(session: ShellSession, command: SshGitCommand, repository: string, channel: ShellChannel, fail: (message: string) => Exit): Promise<Exit> {
  const { ctx } = session;
  const access = await checkSshGitAccess(ctx, session.key, ACTIONS[command], repository);
  if (!access.ok) return fail(access.message);
  const { project, gitDir, writer } = access;
  // A push holds a lease on its repository until it is over, which storage moves on every node wait for.
  const lease = command === 'git-receive-pack' ? await beginPush(ctx, access.pushed) : null;
  if (command === 'git-receive-pack' && lease === null) return fail(REPOSITORY_READ_ONLY_MESSAGE);
  try {
    // A snippet's or a wiki's push runs no push rules and records no push event, as over HTTP.
    const push = writer && project ? await openPushSession(ctx.config, await pushRulesFor(ctx, { row: project }, writer.pusher), { projectId: project.id, userId: writer.userId }) : null;
    // Git over HTTP caps the size of a push's request; here git itself caps the pack.
    const config = command === 'git-receive-pack' ? [...(push?.config ?? []), `receive.maxInputSize=${ctx.config.gitMaxPushBytes}`] : [];
    const exit = await serveGitCommand(gitDir, command, { input: channel.stdin, output: channel.stdout, errors: channel.stderr, closed: channel.closed }, { protocol: session.protocol, config, env: push?.env });
    // What the push changed is recorded before the client hears that it is done.
    await push?.finish(serviceContextOf(session), session.log);
    if (exit.timedOut) session.log.error({ command, repository: access.pushed }, 'a git command over SSH timed out');
    return exit.exitCode ?? 1;
  } finally {
    await lease?.release();
  }
}

/** git-lfs-authenticate <repository> <download|upload>: the access check of git, then nothing, as where LFS is off. */
async function lfsAuthenticate(session: ShellSession, words: readonly string[], fail: (message: string) => Exit): Promise<Exit> {
  if (words.length < 3) return fail(DISALLOWED);
  const action = words[2] === 'download' ? 'download' : words[2] === 'upload' ? 'upload' : null;
  if (action === null) return fail(DISALLOWED);
  const access = await checkSshGitAccess(session.ctx, session.key, action, words[1]);
  return access.ok ? 0 : fail(access.message);
}

/** The date `days` days after today, plus one (gitlab-shell's), as YYYY-MM-DD. */
function expiryDate(now: Date, days: number): string {
  const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days + 1));
  return date.toISOString().slice(0, 10);
}

/** personal_access_token <name> <scopes> [ttl_days]: a personal access token of the key's user, printed once. */
async function personalAccessToken(session: ShellSession, words: readonly string[], channel: ShellChannel, fail: (message: string) => Exit): Promise<Exit> {
  if (words.length < 3 || words.length > 4) return fail(PAT_USAGE);
  const [, name, scopeList, ttl] = words;
  let expiresAt: string | null = null;
  if (ttl !== undefined) {
    const days = /^[+-]?\d{1,15}$/.test(ttl) ? Number(ttl) : -1;
    if (days < 0) return fail(`Invalid value for days_ttl: '${ttl}'`);
    expiresAt = expiryDate(session.ctx.now(), days);
  }
  const { key } = session;
  if (key.kind === 'deploy') return fail('Deploy keys cannot be used to create personal access tokens');
  if (name.trim() === '') return fail('No token name specified');
  const scopes = scopeList.split(',');
  const invalid = scopes.find((scope) => !SSH_TOKEN_SCOPES.includes(scope));
  // The list as Ruby prints an array.
  if (invalid !== undefined) return fail(`Invalid scope: '${invalid}'. Valid scopes are: [${SSH_TOKEN_SCOPES.map((s) => `"${s}"`).join(', ')}]`);
  const { row, token } = await issueToken(serviceContextOf(session), { userId: key.user.id, name, scopes, expiresAt }, { admin: key.user.admin });
  const granted = JSON.parse(row.scopes) as string[];
  channel.stdout.write(`Token:   ${token}\nScopes:  ${granted.join(',')}\nExpires: ${row.expires_at ?? 'never'}\n`);
  return 0;
}

/** The first line the client sends (at most `limit` bytes), or what came before it closed its input. */
function readLine(input: Readable, limit: number): Promise<string> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    const done = () => {
      input.off('data', onData);
      input.off('end', done);
      input.off('close', done);
      input.pause();
      const end = received.indexOf(0x0a);
      resolve(received.subarray(0, end === -1 ? limit : end).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.includes(0x0a) || received.length >= limit) done();
    };
    input.on('data', onData);
    input.once('end', done);
    input.once('close', done);
  });
}

/** What fmt.Fscanln reads into one string: the line's first word. */
const firstWord = (line: string) => line.trim().split(/\s+/)[0] ?? '';

async function recoveryCodes(session: ShellSession, channel: ShellChannel): Promise<Exit> {
  channel.stdout.write('Are you sure you want to generate new two-factor recovery codes?\nAny existing recovery codes you saved will be invalidated. (yes/no)\n');
  if (firstWord(await readLine(channel.stdin, 1024)) !== 'yes') {
    channel.stdout.write('\nNew recovery codes have *not* been generated. Existing codes will remain valid.\n');
    return 0;
  }
  const { key } = session;
  const message = key.kind === 'deploy' ? 'Deploy keys cannot be used to retrieve recovery codes' : 'Two-factor authentication is not enabled for this user';
  channel.stdout.write(`\nAn error occurred while trying to generate new recovery codes.\n${message}\n`);
  return 0;
}

async function verifyOtp(channel: ShellChannel): Promise<Exit> {
  channel.stdout.write('OTP: ');
  await readLine(channel.stdin, 64);
  channel.stdout.write('\nOTP validation failed.\nFeature is not available\n');
  return 0;
}
