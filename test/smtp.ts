// A mail server for tests (smtp-server on a free port of 127.0.0.1): it keeps every message it is
// handed, with its envelope and its text part decoded, and answers `smtp://…` for QUARRY_SMTP_URL.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  /** The body, quoted-printable soft breaks and escapes undone. */
  text: string;
}

export interface TestMailServer {
  url: string;
  received: ReceivedMail[];
  /** Whether to refuse every message (a server that is down for mail). */
  refuse: boolean;
  close(): Promise<void>;
}

function decode(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const subject = /^Subject: (.*)$/im.exec(head)?.[1] ?? '';
  const quoted = /^Content-Transfer-Encoding: quoted-printable$/im.test(head);
  const text = quoted ? body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : body;
  return { subject, text: text.replace(/\r\n/g, '\n') };
}

export async function startMailServer(): Promise<TestMailServer> {
  const received: ReceivedMail[] = [];
  const state = { refuse: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (state.refuse) return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 451 }));
        const { mailFrom, rcptTo } = session.envelope;
        received.push({ from: mailFrom ? mailFrom.address : '', to: rcptTo.map((r) => r.address), ...decode(Buffer.concat(chunks).toString('utf8')) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    get refuse() {
      return state.refuse;
    },
    set refuse(value: boolean) {
      state.refuse = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
