// The reference the repository benchmark compares Quarry with: plain `git http-backend` (git's own
// smart HTTP CGI program) behind a minimal HTTP server, serving bare repositories under one root
// with no authentication and pushes allowed.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type net from 'node:net';

export interface GitBackend {
  url: string;
  close(): Promise<void>;
}

/** Splits the CGI response head (headers up to a blank line) from the body that follows. */
function splitHead(buffer: Buffer): { head: string; rest: Buffer } | null {
  for (const separator of ['\r\n\r\n', '\n\n']) {
    const at = buffer.indexOf(separator);
    if (at >= 0) return { head: buffer.subarray(0, at).toString('latin1'), rest: buffer.subarray(at + separator.length) };
  }
  return null;
}

function handle(root: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://backend');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    REMOTE_USER: 'bench',
    REMOTE_ADDR: '127.0.0.1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
    ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
    ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
  };
  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  req.pipe(child.stdin);
  child.stdin.on('error', () => child.kill());
  let pending: Buffer | null = Buffer.alloc(0);
  child.stdout.on('data', (chunk: Buffer) => {
    if (pending === null) {
      res.write(chunk);
      return;
    }
    pending = Buffer.concat([pending, chunk]);
    const split = splitHead(pending);
    if (!split) return;
    pending = null;
    let status = 200;
    for (const line of split.head.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(split.rest);
  });
  child.on('close', () => res.end());
}

export async function startGitBackend(root: string): Promise<GitBackend> {
  const server = http.createServer((req, res) => handle(root, req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
