// A test app on a real socket, for the real clients (@gitbeaker/rest, python-gitlab) and for the
// server process the CLI starts.
import assert from 'node:assert/strict';
import net from 'node:net';
import { type TestApp, createTestApp } from './harness.ts';

/** A port nobody listens on at the moment. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A test app listening on 127.0.0.1, its external URL (`host`) the address it listens on, so that links lead back to it. */
export async function listeningTestApp(env: Record<string, string> = {}): Promise<{ t: TestApp; host: string }> {
  const port = await freePort();
  const host = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ ...env, QUARRY_EXTERNAL_URL: host });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, host };
}

/** The HTTP status and error body of a gitbeaker call that must fail. */
export async function failureOf(call: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  try {
    await call;
  } catch (error) {
    const cause = (error as { cause?: { response?: Response; description?: string } }).cause;
    assert.ok(cause?.response, `not an HTTP error: ${String(error)}`);
    return { status: cause.response.status, body: cause.description };
  }
  assert.fail('the call succeeded');
}

/** The HTTP status of a gitbeaker call that must fail. */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  return (await failureOf(call)).status;
}
