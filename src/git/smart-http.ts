// Git's smart HTTP protocol over `git upload-pack` / `git receive-pack --stateless-rpc`: the ref
// advertisement of GET info/refs and the RPCs of POST git-upload-pack / git-receive-pack. Request
// bodies stream into git (gunzipped when the client compressed them, cut at a size limit) and
// git's answer streams back; nothing is held in memory whole. Who may call is decided before.
// One git process per request, on purpose: pack negotiation and pack writing are git's own work,
// which no object reader could do.
import { type Readable, PassThrough, Transform, type TransformCallback, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { type GitExit, type GitProcess, spawnGit } from './run.ts';

export const GIT_SERVICES = ['git-upload-pack', 'git-receive-pack'] as const;
export type GitService = (typeof GIT_SERVICES)[number];

export function isGitService(value: unknown): value is GitService {
  return GIT_SERVICES.includes(value as GitService);
}

export const advertisementType = (service: GitService) => `application/x-${service}-advertisement`;
export const requestType = (service: GitService) => `application/x-${service}-request`;
export const resultType = (service: GitService) => `application/x-${service}-result`;

/** What git http-backend sends so that no cache between keeps an answer. */
export const NO_CACHE_HEADERS = {
  expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
  pragma: 'no-cache',
  'cache-control': 'no-cache, max-age=0, must-revalidate',
} as const;

/** Advertisements are quick; an RPC sends or receives a whole pack, which takes a while on a slow link. */
const ADVERTISEMENT_TIMEOUT_MS = 60_000;
export const RPC_TIMEOUT_MS = 15 * 60_000;

/**
 * GIT_PROTOCOL for a Git-Protocol request header: `version=2` (or `version=1`) when the client
 * asks for it, null for the original protocol. Nothing else of the header reaches git.
 */
export function gitProtocol(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header.join(':') : (header ?? '');
  const versions = value.split(':').flatMap((part) => (/^version=([12])$/.exec(part.trim()) ? [Number(part.trim().slice(8))] : []));
  return versions.length > 0 ? `version=${Math.max(...versions)}` : null;
}

/** One pkt-line: four hex digits of length (themselves included), then the payload. */
export function pktLine(payload: string): Buffer {
  const body = Buffer.from(payload, 'utf8');
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
}

const FLUSH_PKT = Buffer.from('0000');

/**
 * Configuration of every call: fetches may filter and name any object (as partial clones and CI
 * checkouts of a commit do); pushed objects are checked, tolerating the flaws old repositories
 * commonly carry.
 */
export const SERVICE_CONFIG: Record<GitService, readonly string[]> = {
  'git-upload-pack': ['uploadpack.allowFilter=true', 'uploadpack.allowAnySHA1InWant=true'],
  'git-receive-pack': ['receive.fsckObjects=true', 'receive.advertisePushOptions=true', 'fsck.badTimezone=ignore', 'fsck.missingSpaceBeforeDate=ignore', 'fsck.zeroPaddedFilemode=ignore'],
};

/** Why a request body did not reach git whole; null when it did (or git stopped reading it on its own). */
export type InputCut = 'too_large' | 'unreadable' | 'aborted' | null;

export interface SessionExit extends GitExit {
  inputCut: InputCut;
}

export interface ServiceOptions {
  /** From gitProtocol(). */
  protocol: string | null;
  /** More `name=value` configuration, chosen by the server (core.hooksPath, …). */
  config?: readonly string[];
  /** Variables for git and the hooks it runs. */
  env?: Record<string, string>;
  /** Runs once git has exited, before its answer ends (recording what a push changed); must not reject. */
  beforeEnd?: (exit: SessionExit) => Promise<void>;
}

function startService(gitDir: string, service: GitService, options: ServiceOptions, advertise: boolean): GitProcess {
  const config = [...SERVICE_CONFIG[service], ...(options.config ?? [])].flatMap((c) => ['-c', c]);
  // GIT_DIR is the repository, and so is '.': no path from the request reaches git.
  const args = [...config, service.slice('git-'.length), '--stateless-rpc', ...(advertise ? ['--advertise-refs'] : []), '.'];
  const env = { ...options.env, ...(options.protocol !== null ? { GIT_PROTOCOL: options.protocol } : {}) };
  return spawnGit(gitDir, args, { env, timeoutMs: advertise ? ADVERTISEMENT_TIMEOUT_MS : RPC_TIMEOUT_MS });
}

export interface GitHttpSession {
  /**
   * Git's answer, once git has written its first byte (so that a failure before it can still be
   * answered with a status); null when git ended without writing anything.
   */
  readonly output: Promise<Readable | null>;
  readonly done: Promise<SessionExit>;
}

/**
 * Streams git's output (after a prefix) and settles `output` at git's first byte or its end. The
 * output ends once git has exited and `beforeEnd` has run, so that the client sees its answer
 * complete only when what follows it is done. When the client leaves before the end, git is ended,
 * unless it may be changing refs (a push), which then runs to its end.
 */
function session(git: GitProcess, service: GitService, prefix: Buffer | null, cut: () => InputCut, beforeEnd?: (exit: SessionExit) => Promise<void>): GitHttpSession {
  const out = new PassThrough();
  if (prefix) out.write(prefix);
  git.stdout.pipe(out, { end: false });
  const output = new Promise<Readable | null>((resolve) => {
    // Once the input is cut, git is being ended: what it still writes is no answer.
    git.stdout.once('data', () => resolve(cut() === null ? out : null));
    git.stdout.once('end', () => resolve(null));
  });
  let exited = false;
  const done = git.done.then(async (exit) => {
    exited = true;
    const result = { ...exit, inputCut: cut() };
    await beforeEnd?.(result);
    return result;
  });
  void done.finally(() => out.end());
  out.once('close', () => {
    if (exited || out.readableEnded) return;
    if (service === 'git-receive-pack') git.stdout.resume();
    else git.kill();
  });
  return { output, done };
}

/** GET info/refs: the `# service=` announcement (protocol v0 and v1 only, as git http-backend does), then git's advertisement. */
export function advertiseRefs(gitDir: string, service: GitService, options: ServiceOptions): GitHttpSession {
  const git = startService(gitDir, service, options, true);
  git.stdin.end();
  const announce = options.protocol === 'version=2' ? null : Buffer.concat([pktLine(`# service=${service}\n`), FLUSH_PKT]);
  return session(git, service, announce, () => null);
}

class TooLarge extends Error {}
class Aborted extends Error {}

/** Counts bytes through; past `max` the stream fails with TooLarge. */
function byteLimit(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      callback(seen > max ? new TooLarge(`more than ${max} bytes`) : null, chunk);
    },
  });
}

/**
 * Reads and drops what is left of a body git no longer takes, so that the client, done sending,
 * reads the answer; past `max` more bytes the connection goes instead.
 */
function discardRest(body: Readable, max: number): void {
  let dropped = 0;
  body.unpipe();
  body.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > max) body.destroy();
  });
  body.resume();
}

export interface RpcInput {
  body: Readable;
  /** Content-Encoding: gzip, which git clients use for larger negotiation requests. */
  gzip: boolean;
  /** Largest body accepted, compressed and once uncompressed. */
  maxBytes: number;
}

/**
 * POST git-upload-pack / git-receive-pack: the body goes to git's standard input, git's output is
 * the answer. A body that is too large, cannot be gunzipped or stops short ends git while git is
 * still reading it, so that nothing is half-done; the rest of the body is then dropped, so that
 * the request can still be answered.
 */
export function serviceRpc(gitDir: string, service: GitService, input: RpcInput, options: ServiceOptions): GitHttpSession {
  const git = startService(gitDir, service, options, false);
  let inputCut: InputCut = null;
  const stages: Transform[] = [byteLimit(input.maxBytes), ...(input.gzip ? [createGunzip(), byteLimit(input.maxBytes)] : [])];
  pipeline([...stages, git.stdin], (error) => {
    if (!error) return;
    // Anything else (EPIPE) means git stopped reading on its own, which is git's answer to give.
    const reason: InputCut = error instanceof TooLarge ? 'too_large' : error instanceof Aborted ? 'aborted' : 'code' in error && String(error.code).startsWith('Z_') ? 'unreadable' : null;
    if (reason !== null) {
      inputCut = reason;
      git.kill();
    }
    if (reason !== 'aborted') discardRest(input.body, input.maxBytes);
  });
  input.body.pipe(stages[0]);
  const stop = () => {
    if (!input.body.readableEnded) stages[0].destroy(new Aborted('the request body stopped short'));
  };
  input.body.once('error', stop);
  input.body.once('close', stop);

  return session(git, service, null, () => inputCut, options.beforeEnd);
}
