// `include: remote:` files are fetched with the address protections of webhooks: a name resolving to
// this machine or the local network is refused unless the instance allows local requests, and the
// connection goes to the very address that was checked (the name's DNS is asked once), with the
// name in the Host header, so that a second DNS answer (rebinding) cannot reach a refused address.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { OutboundError, blockedReason, checkedGet } from '../../src/core/outbound-http.ts';
import { LintEntity } from '../../src/modules/ci-lint/ci-lint.schemas.ts';
import { setInstanceSettings } from '../factories.ts';
import { type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntity, expectStatus } from '../matchers.ts';

const INCLUDED = 'remote_job:\n  script: [echo remote]\n';

let t: TestApp;
let user: TestUser;
let server: http.Server;
let port: number;
/** The requests the local server received: path and Host header. */
const received: { path: string; host: string }[] = [];

before(async () => {
  t = await createTestApp();
  user = await t.user();
  server = http.createServer((req, res) => {
    received.push({ path: req.url ?? '', host: req.headers.host ?? '' });
    if (req.url === '/moved.yml') return res.writeHead(302, { location: '/ci.yml' }).end();
    if (req.url === '/missing.yml') return res.writeHead(404).end('not here');
    if (req.url === '/big.yml') return res.writeHead(200).end(`# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    res.writeHead(200, { 'content-type': 'text/yaml' }).end(INCLUDED);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  server.close();
  await t.close();
});

/** A resolver answering the given addresses in turn (the last one from then on), counting its calls. */
function resolver(...answers: string[][]) {
  const calls: string[] = [];
  const lookup = async (name: string) => {
    calls.push(name);
    return answers[Math.min(calls.length, answers.length) - 1];
  };
  return { lookup, calls };
}

const options = { allowLocal: false, timeoutMs: 2000, maxBytes: 1024 * 1024 };

describe('the outbound request', () => {
  test('a name resolving to 127.0.0.1 is refused, and nothing is sent', async () => {
    received.length = 0;
    const { lookup, calls } = resolver(['127.0.0.1']);
    const url = `http://ci.example.test:${port}/ci.yml`;
    await assert.rejects(checkedGet(url, { ...options, lookup }), (error: OutboundError) => {
      assert.equal(error.failure, 'blocked');
      assert.equal(error.message, `URL '${url}' is blocked: Requests to localhost are not allowed`);
      return true;
    });
    assert.deepEqual(calls, ['ci.example.test']);
    assert.deepEqual(received, []);
  });

  test('allowed, the connection goes to the address resolved once, the name in the Host header', async () => {
    received.length = 0;
    const { lookup, calls } = resolver(['127.0.0.1'], ['192.0.2.123']);
    const response = await checkedGet(`http://ci.example.test:${port}/ci.yml`, { ...options, allowLocal: true, lookup });
    assert.equal(response.status, 200);
    assert.equal(response.body.toString(), INCLUDED);
    assert.deepEqual(calls, ['ci.example.test']);
    assert.deepEqual(received, [{ path: '/ci.yml', host: `ci.example.test:${port}` }]);
  });

  test('a name answering a public address to the check and 127.0.0.1 afterwards (rebinding) never reaches 127.0.0.1', async () => {
    received.length = 0;
    const { lookup, calls } = resolver(['203.0.113.9'], ['127.0.0.1']);
    await assert.rejects(checkedGet(`http://rebind.example.test:${port}/ci.yml`, { ...options, timeoutMs: 500, lookup }), OutboundError);
    assert.deepEqual(calls, ['rebind.example.test']);
    assert.deepEqual(received, []);
  });

  test('each redirect is resolved and checked again', async () => {
    received.length = 0;
    const allowed = resolver(['127.0.0.1']);
    const response = await checkedGet(`http://ci.example.test:${port}/moved.yml`, { ...options, allowLocal: true, lookup: allowed.lookup });
    assert.equal(response.body.toString(), INCLUDED);
    assert.deepEqual(allowed.calls, ['ci.example.test', 'ci.example.test']);
    assert.deepEqual(received.map((r) => r.path), ['/moved.yml', '/ci.yml']);
  });

  test('the addresses refused, with the platform\'s reasons', () => {
    assert.equal(blockedReason(['127.0.0.1']), 'Requests to localhost are not allowed');
    assert.equal(blockedReason(['0.0.0.0']), 'Requests to localhost are not allowed');
    assert.equal(blockedReason(['127.0.0.2']), 'Requests to loopback addresses are not allowed');
    assert.equal(blockedReason(['203.0.113.9', '10.1.2.3']), 'Requests to the local network are not allowed');
    assert.equal(blockedReason(['::ffff:192.168.1.1']), 'Requests to the local network are not allowed');
    assert.equal(blockedReason(['fd12::1']), 'Requests to the local network are not allowed');
    assert.equal(blockedReason(['169.254.169.254']), 'Requests to the link local network are not allowed');
    assert.equal(blockedReason(['fe80::1']), 'Requests to the link local network are not allowed');
    assert.equal(blockedReason(['fc::1']), null);
    assert.equal(blockedReason(['100.64.0.1']), 'Requests to the shared address space are not allowed');
    assert.equal(blockedReason(['255.255.255.255']), 'Requests to the limited broadcast address are not allowed');
    assert.notEqual(blockedReason(['::1']), null);
    assert.equal(blockedReason(['203.0.113.9', '2001:db8::1']), null);
  });
});

describe('include: remote', () => {
  async function lint(url: string) {
    const res = await t.post('/api/v4/ci/lint', { token: user.token, body: { content: `include:\n  - remote: ${url}\nlocal_job:\n  script: [echo local]\n`, include_jobs: true } });
    expectStatus(res, 200);
    expectEntity(res.json(), LintEntity);
    return res.json();
  }

  test('http://localhost is refused while the instance does not allow local requests, then fetched', async () => {
    received.length = 0;
    const url = `http://localhost:${port}/ci.yml`;
    const refused = await lint(url);
    assert.equal(refused.valid, false);
    assert.deepEqual(refused.errors, [`Remote file could not be fetched because URL '${url}' is blocked: Requests to localhost are not allowed!`]);
    assert.deepEqual(received, []);

    await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: true });
    try {
      const fetched = await lint(url);
      assert.equal(fetched.valid, true);
      assert.deepEqual(fetched.jobs.map((j: { name: string }) => j.name).sort(), ['local_job', 'remote_job']);
      assert.deepEqual(received, [{ path: '/ci.yml', host: `localhost:${port}` }]);

      assert.deepEqual((await lint(`http://localhost:${port}/missing.yml`)).errors, [`Remote file \`http://localhost:${port}/missing.yml\` could not be fetched because of HTTP code \`404\` error!`]);
      assert.deepEqual((await lint(`http://localhost:${port}/big.yml`)).errors, ['The parsed YAML is too big']);
      assert.deepEqual((await lint(`http://localhost:${port}/moved.yml`)).jobs.map((j: { name: string }) => j.name).sort(), ['local_job', 'remote_job']);
    } finally {
      await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: false });
    }
  });

  test('an address that is no http(s) URL', async () => {
    assert.deepEqual((await lint('ftp://example.com/ci.yml')).errors, ['Remote file `ftp://example.com/ci.yml` does not have a valid address!']);
  });
});
