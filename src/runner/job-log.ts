// A job's log on its way to the server: masked as it arrives, kept in a file (a long log is never
// held in memory), sent in increments at the server's interval (3 seconds at most), resent from
// the server's length when it answers 416. When there is nothing new to send the job's state is
// sent instead, so a canceled job is noticed as quickly either way.
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import zlib from 'node:zlib';
import { LogMasker } from './masking.ts';
import type { JobCallAnswer, JobPayload, RunnerApi } from './runner-api.ts';

/** At most this long between two calls about a running job. */
const MAX_INTERVAL_MS = 3000;
/** At most this much log per append. */
const MAX_PATCH_BYTES = 1024 * 1024;

export class JobLog {
  private readonly fd: number;
  private readonly decoder = new StringDecoder('utf8');
  private readonly masker: LogMasker;
  private length = 0;
  private sent = 0;
  private crc = 0;
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> = Promise.resolve();
  private intervalMs = MAX_INTERVAL_MS;
  private stopped: string | null = null;

  private readonly api: RunnerApi;
  private readonly job: JobPayload;
  /** Called once when the server says the job no longer runs (canceled, or failed by it). */
  private readonly onStopped: (jobStatus: string) => void;

  constructor(api: RunnerApi, job: JobPayload, file: string, secrets: readonly string[], onStopped: (jobStatus: string) => void) {
    this.api = api;
    this.job = job;
    this.onStopped = onStopped;
    this.fd = fs.openSync(file, 'w+');
    this.masker = new LogMasker(secrets);
  }

  start(): void {
    this.schedule();
  }

  /** Output of the job's process. */
  write(chunk: Buffer): void {
    this.append(this.masker.push(this.decoder.write(chunk)));
  }

  /** A line of the runner's own. */
  line(text: string): void {
    this.append(this.masker.push(`${text}\n`));
  }

  /** Trace sections, which the platform's log view folds (the runner's `section_start`/`section_end` lines). */
  section(name: string, header: string): () => void {
    const at = () => Math.floor(Date.now() / 1000);
    this.append(`section_start:${at()}:${name}\r\x1b[0K\x1b[36;1m${header}\x1b[0;m\n`);
    return () => this.append(`section_end:${at()}:${name}\r\x1b[0K\n`);
  }

  private append(text: string): void {
    if (!text) return;
    const bytes = Buffer.from(text, 'utf8');
    fs.writeSync(this.fd, bytes, 0, bytes.length, this.length);
    this.crc = zlib.crc32(bytes, this.crc);
    this.length += bytes.length;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.sending = this.sending.then(() => this.sendSome()).finally(() => {
        if (this.timer) this.schedule();
      });
    }, this.intervalMs);
  }

  /** Sends what is new (all of it, in appends of at most 1 MiB), or, when nothing is, the job's state. */
  private async sendSome(): Promise<void> {
    try {
      if (this.sent === this.length) {
        this.heard(await this.api.updateJob(this.job, { state: 'running' }));
        return;
      }
      while (this.sent < this.length && this.stopped === null) {
        const answer = await this.patch();
        this.heard(answer);
        if (answer.status !== 202) return;
      }
    } catch {
      // The server is unreachable for now: the next turn tries again.
    }
  }

  private async patch(): Promise<JobCallAnswer> {
    const size = Math.min(this.length - this.sent, MAX_PATCH_BYTES);
    const bytes = Buffer.alloc(size);
    fs.readSync(this.fd, bytes, 0, size, this.sent);
    const answer = await this.api.patchTrace(this.job, this.sent, bytes);
    if (answer.status === 202) this.sent += size;
    else if (answer.status === 416 && answer.range) {
      // The server holds a different length: go on from there.
      const end = Number(answer.range.split('-')[1]);
      if (Number.isFinite(end) && end <= this.length) this.sent = end;
    }
    return answer;
  }

  private heard(answer: JobCallAnswer): void {
    if (answer.updateInterval) this.intervalMs = Math.min(MAX_INTERVAL_MS, answer.updateInterval * 1000);
    if (answer.status === 403 && this.stopped === null) {
      this.stopped = answer.jobStatus ?? 'canceled';
      this.onStopped(this.stopped);
    }
  }

  /** Stops the turns and sends everything still held; the log's checksum and size. */
  async finish(): Promise<{ checksum: string; bytesize: number }> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.sending;
    this.append(this.masker.push(this.decoder.end()));
    this.append(this.masker.end());
    // Ten failures in a row give up: the server keeps what it has.
    for (let failures = 0; this.sent < this.length && this.stopped === null && failures < 10; ) {
      const before = this.sent;
      const answer = await this.patch().catch(() => null);
      if (answer) this.heard(answer);
      if (this.sent !== before) failures = 0;
      else await new Promise((r) => setTimeout(r, 500 * ++failures));
    }
    fs.closeSync(this.fd);
    return { checksum: `crc32:${this.crc.toString(16).padStart(8, '0')}`, bytesize: this.length };
  }
}
