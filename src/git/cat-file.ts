// One long-lived `git cat-file --batch-command` process of one repository: requests are written to
// its standard input as they come (pipelined, never waiting for the answer before), answers are
// read back in the same order from its standard output, each framed by its header line
// "<id> <type> <size>" (and, for contents, exactly <size> bytes and a newline), so no content can
// confuse the parsing. Every request is held to a time limit; a process that exceeds it, dies or
// writes something unexpected is killed, and every request it still owed fails with ReaderGone,
// which the pool answers by retrying on a fresh process.
import type { Socket } from 'node:net';
import { type GitProcess, spawnGit } from './run.ts';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface ObjectInfo {
  id: string;
  type: ObjectType;
  size: number;
}

export interface ObjectData extends ObjectInfo {
  content: Buffer;
}

/** The process ended (killed, timed out, died) before it answered; the request may be retried. */
export class ReaderGone extends Error {
  readonly timedOut: boolean;

  constructor(message: string, timedOut: boolean) {
    super(message);
    this.name = 'ReaderGone';
    this.timedOut = timedOut;
  }
}

interface Pending {
  contents: boolean;
  resolve: (value: ObjectData | ObjectInfo | null) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

const HEADER = /^([0-9a-f]{40}) (blob|tree|commit|tag) (\d+)$/;
/** What cat-file answers for a name it cannot resolve: "<name> missing" (or ambiguous). */
const NOT_FOUND = / (missing|ambiguous)$/;
/**
 * A name on a line of input: no whitespace (it would end the name) and no control character. Git's
 * whitespace is ASCII's: a Unicode space (U+00A0, U+2028, U+FEFF …) is part of a name, as git reads it.
 */
const SAFE_NAME = /^[^\x00-\x20\x7f]+$/;

export const isSafeName = (name: string) => SAFE_NAME.test(name);

/** Node keeps a child's pipes referenced; an idle reader must not keep the process alive. */
const unref = (stream: unknown) => (stream as Partial<Socket>).unref?.();
const ref = (stream: unknown) => (stream as Partial<Socket>).ref?.();

export class CatFileProcess {
  readonly gitDir: string;
  private readonly git: GitProcess;
  private readonly timeoutMs: number;
  private readonly queue: Pending[] = [];
  /** Bytes read but not yet parsed. */
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The header of the object whose content is being read, if any. */
  private current: ObjectInfo | null = null;
  private gone: ReaderGone | null = null;
  /** Closed: it finishes what it was asked and takes nothing more. */
  private closed = false;
  /** Requests of this turn of the event loop, written together at its end (one write, not one each). */
  private unwritten: string[] = [];

  /** Settles once the process has exited. */
  readonly exited: Promise<void>;

  constructor(gitDir: string, options: { timeoutMs: number }) {
    this.gitDir = gitDir;
    this.timeoutMs = options.timeoutMs;
    this.git = spawnGit(gitDir, ['cat-file', '--batch-command'], { timeoutMs: null });
    this.git.child.unref();
    for (const stream of [this.git.stdin, this.git.stdout, this.git.child.stderr]) unref(stream);
    this.git.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    this.git.stdin.on('error', () => this.fail('its input closed', false));
    this.exited = this.git.done.then((exit) => this.fail(`exited (${exit.exitCode ?? 'killed'}): ${exit.stderr.trim().split('\n')[0] ?? ''}`, false));
  }

  /** Requests sent and not yet answered. */
  get pending(): number {
    return this.queue.length;
  }

  get pid(): number | undefined {
    return this.git.child.pid;
  }

  /** Whether it takes requests. */
  get alive(): boolean {
    return this.gone === null && !this.closed;
  }

  /** The id, type and size of what `name` (an object id, `<rev>^{commit}`, …) names; null when it names nothing. */
  info(name: string): Promise<ObjectInfo | null> {
    return this.send(false, name) as Promise<ObjectInfo | null>;
  }

  /** The object `name` names, with its content; null when it names nothing. */
  contents(name: string): Promise<ObjectData | null> {
    return this.send(true, name) as Promise<ObjectData | null>;
  }

  /** Lets git finish what it was asked, then exit (end of input). */
  close(): void {
    this.flush();
    this.closed = true;
    this.holdUntilExit();
    this.git.stdin.end();
  }

  /** Ends git now; what it owed fails with ReaderGone. */
  kill(reason = 'killed', timedOut = false): void {
    this.fail(reason, timedOut);
    this.holdUntilExit();
    this.git.kill();
  }

  /** An ending reader keeps the process alive until it has exited, so that whoever waits for it (a shutdown) gets to the end. */
  private holdUntilExit(): void {
    this.git.child.ref();
    for (const stream of [this.git.stdin, this.git.stdout, this.git.child.stderr]) ref(stream);
  }

  private send(contents: boolean, name: string): Promise<ObjectInfo | ObjectData | null> {
    if (!isSafeName(name)) return Promise.reject(new Error(`unsafe object name for cat-file: ${JSON.stringify(name)}`));
    if (this.gone) return Promise.reject(this.gone);
    if (this.closed) return Promise.reject(new ReaderGone(`git cat-file in ${this.gitDir}: closed`, false));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.kill(`a request took more than ${this.timeoutMs} ms`, true), this.timeoutMs);
      this.queue.push({ contents, resolve, reject, timer });
      if (this.unwritten.length === 0) setImmediate(() => this.flush());
      this.unwritten.push(`${contents ? 'contents' : 'info'} ${name}\n`);
    });
  }

  private flush(): void {
    const lines = this.unwritten.join('');
    this.unwritten = [];
    if (lines !== '' && !this.gone) this.git.stdin.write(lines);
  }

  private fail(reason: string, timedOut: boolean): void {
    if (this.gone) return;
    this.gone = new ReaderGone(`git cat-file in ${this.gitDir}: ${reason}`, timedOut);
    for (const request of this.queue.splice(0)) {
      clearTimeout(request.timer);
      request.reject(this.gone);
    }
    this.chunks = [];
    this.buffered = 0;
  }

  private receive(chunk: Buffer): void {
    if (this.gone) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    try {
      while (this.parseOne());
    } catch (error) {
      this.kill(error instanceof Error ? error.message : String(error));
    }
  }

  /** The first `n` buffered bytes, removed from the buffer. */
  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.buffered);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return all.subarray(0, n);
  }

  /** Parses one answer if it has arrived whole; false when more bytes are needed. */
  private parseOne(): boolean {
    const request = this.queue[0];
    if (request === undefined) {
      if (this.buffered > 0) throw new Error('git cat-file wrote an answer nobody asked for');
      return false;
    }
    if (this.current === null) {
      const first = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.buffered);
      this.chunks = first.length > 0 ? [first] : [];
      const eol = first.indexOf(0x0a);
      if (eol === -1) return false;
      const line = this.take(eol + 1).toString('utf8', 0, eol);
      const header = HEADER.exec(line);
      if (header === null) {
        if (!NOT_FOUND.test(line)) throw new Error(`git cat-file answered ${JSON.stringify(line.slice(0, 200))}`);
        return this.answer(null);
      }
      const info: ObjectInfo = { id: header[1], type: header[2] as ObjectType, size: Number(header[3]) };
      if (!request.contents) return this.answer(info);
      this.current = info;
    }
    // The content and the newline after it.
    if (this.buffered < this.current.size + 1) return false;
    const content = Buffer.from(this.take(this.current.size + 1).subarray(0, this.current.size));
    const data: ObjectData = { ...this.current, content };
    this.current = null;
    return this.answer(data);
  }

  private answer(value: ObjectInfo | ObjectData | null): boolean {
    const request = this.queue.shift() as Pending;
    clearTimeout(request.timer);
    request.resolve(value);
    return true;
  }
}
