// A webhook receiver for tests: an HTTP server on loopback that keeps every delivery (path,
// headers, JSON body) and answers 200, or the status set for a path.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, any>;
}

export interface HookReceiver {
  /** `http://127.0.0.1:<port>`, to which a hook's path is appended. */
  base: string;
  received: ReceivedHook[];
  /** Status answered, by path (200 otherwise). */
  answers: Map<string, number>;
  take(path: string): ReceivedHook[];
  close(): void;
}

export async function startHookReceiver(): Promise<HookReceiver> {
  const received: ReceivedHook[] = [];
  const answers = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') });
      const status = answers.get(req.url ?? '') ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain', 'x-answer': 'yes' });
      res.end(status === 200 ? 'ok' : 'broken');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answers,
    take: (path) => received.filter((r) => r.path === path),
    close: () => void server.close(),
  };
}
