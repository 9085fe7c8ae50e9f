// Pages sites end to end: a pipeline's `pages` job, run by a runner speaking the protocol (it takes
// the job, uploads the artifacts archive, reports success), publishes `public/`; the site is then
// served by host at `<namespace>.<pages domain>/<project>/` and at a verified custom domain, over
// HTTP and over TLS with the domain's own certificate. Directories serve index.html, missing files
// the site's 404.html, and no path leaves the site. A newer publication replaces the older one; the
// platform's refusals are the background job's errors.
import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import yazl from 'yazl';
import { type CiProject, ciProject } from '../../../test/ci/fixtures.ts';
import { uploadArtifact } from '../../../test/ci/ci-test-helpers.ts';
import { type CertificateSet, certificates } from '../../../test/fixtures/certificates.ts';
import { type DnsServer, startDnsServer } from '../../../test/fixtures/dns-server.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectStatus } from '../../../test/matchers.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { startPagesHttps } from './index.ts';

const PAGES_HOST = 'pages.quarry.test';

let t: TestApp;
let dns: DnsServer;
let certs: CertificateSet;

before(async () => {
  certs = certificates();
  dns = await startDnsServer();
  t = await createTestApp({ QUARRY_PAGES_DOMAIN: PAGES_HOST, QUARRY_PAGES_DNS_SERVERS: dns.address });
});
after(async () => {
  await t.close();
  await dns.close();
});

const PAGES_CONFIG = 'pages:\n  stage: deploy\n  script: [make site]\n  artifacts:\n    paths: [public]\n';

/** A zip of these files; a value of `{ link }` is a symbolic link. */
async function archive(files: Record<string, string | { link: string }>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) {
    if (typeof content === 'string') zip.addBuffer(Buffer.from(content), name);
    else zip.addBuffer(Buffer.from(content.link), name, { mode: 0o120777 });
  }
  zip.end();
  return Buffer.concat(await Array.fromAsync(zip.outputStream as AsyncIterable<Buffer>));
}

/** Runs the project's pending `pages` job as a runner would, uploading `files`; the background work's outcomes. */
async function publish(ci: CiProject, files: Record<string, string | { link: string }>, name = 'pages', app: TestApp = t) {
  const runner = await ci.registerRunner();
  const job = await ci.takeJob(runner);
  assert.ok(job, 'no job to take');
  assert.equal(job.job_info.name, name);
  expectStatus(await uploadArtifact(app, job.id, job.token, { filename: 'artifacts.zip', content: await archive(files) }), 201);
  expectStatus(await app.put(`/api/v4/jobs/${job.id}`, { body: { token: job.token, state: 'success' } }), 200);
  return app.runJobs();
}

async function projectPath(ci: CiProject): Promise<{ namespace: string; path: string }> {
  const project = (await t.get(`/api/v4/projects/${ci.projectId}`, { token: ci.owner.token })).json();
  return { namespace: project.namespace.path, path: project.path };
}

const get = (host: string, url: string, method: 'GET' | 'HEAD' | 'POST' = 'GET') => t.request(method, url, { headers: { host } });

describe('a site published by a pipeline', () => {
  let ci: CiProject;
  let host: string;
  let base: string;

  before(async () => {
    ci = await ciProject(t, 'private');
    await ci.commitConfig(PAGES_CONFIG);
    const outcomes = await publish(ci, {
      'public/index.html': '<h1>Home</h1>',
      'public/about/index.html': '<h1>About</h1>',
      'public/docs.html': '<h1>Docs</h1>',
      'public/style.css': 'body { color: red }',
      'public/404.html': '<h1>Lost</h1>',
      'public/link': { link: '/etc/passwd' },
      'secret.txt': 'not published',
    });
    assert.ok(outcomes.every((o) => o.ok), JSON.stringify(outcomes));
    const { namespace, path } = await projectPath(ci);
    host = `${namespace}.${PAGES_HOST}`;
    base = `/${path}`;
  });

  test('the project\'s path serves index.html; without its final slash it redirects there', async () => {
    const res = await get(host, `${base}/`);
    expectStatus(res, 200);
    assert.equal(res.body, '<h1>Home</h1>');
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    const redirect = await get(host, `${base}?x=1`);
    expectStatus(redirect, 302);
    assert.equal(redirect.headers.location, `${base}/?x=1`);
    // The host's case and port do not matter.
    expectStatus(await get(`${host.toUpperCase()}:8080`, `${base}/`), 200);
  });

  test('files with their types, directories\' index.html, .html without its extension, HEAD', async () => {
    const css = await get(host, `${base}/style.css`);
    expectStatus(css, 200);
    assert.equal(css.body, 'body { color: red }');
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(css.headers['content-length'], String('body { color: red }'.length));
    assert.equal((await get(host, `${base}/about/`)).body, '<h1>About</h1>');
    expectStatus(await get(host, `${base}/about`), 302);
    assert.equal((await get(host, `${base}/docs`)).body, '<h1>Docs</h1>');
    const head = await get(host, `${base}/style.css`, 'HEAD');
    expectStatus(head, 200);
    assert.equal(head.body, '');
    expectStatus(await get(host, `${base}/style.css`, 'POST'), 405);
  });

  test('what is missing gets the site\'s 404.html', async () => {
    const res = await get(host, `${base}/nowhere`);
    expectStatus(res, 404);
    assert.equal(res.body, '<h1>Lost</h1>');
    // A symbolic link of the archive is not published.
    expectStatus(await get(host, `${base}/link`), 404);
  });

  test('no path leaves the site\'s directory', async () => {
    for (const url of [
      `${base}/../secret.txt`,
      `${base}/%2e%2e/secret.txt`,
      `${base}/..%2fsecret.txt`,
      `${base}/..%5c..%5csecret.txt`,
      `${base}/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd`,
      `${base}/%00`,
      `${base}/secret.txt`,
    ]) {
      const res = await get(host, url);
      assert.equal(res.statusCode, 404, `${url}: ${res.statusCode}`);
      assert.ok(!res.body.includes('not published') && !res.body.includes('root:'), url);
    }
    // A path that does not decode is refused before any host is looked at.
    expectStatus(await get(host, `${base}/%zz`), 400);
  });

  test('another namespace, another project, the API itself: not this site', async () => {
    expectStatus(await get(`nobody.${PAGES_HOST}`, `${base}/`), 404);
    expectStatus(await get(host, '/no-such-project/'), 404);
    // The API answers on its own host, and on the pages domain itself.
    expectStatus(await t.get('/api/v4/version', { token: ci.owner.token }), 200);
    expectStatus(await t.request('GET', '/api/v4/version', { token: ci.owner.token, headers: { host: PAGES_HOST } }), 200);
  });

  test('a newer pipeline\'s site replaces it, and the older files go', async () => {
    const before = await t.deps.db.selectFrom('pages_deployments').selectAll().where('project_id', '=', ci.projectId).execute();
    assert.equal(before.length, 1);
    await ci.commitConfig(`${PAGES_CONFIG}# again\n`, 'again');
    await publish(ci, { 'public/index.html': '<h1>Home, again</h1>' });
    await t.runJobs();
    assert.equal((await get(host, `${base}/`)).body, '<h1>Home, again</h1>');
    expectStatus(await get(host, `${base}/style.css`), 404);
    const now = await t.deps.db.selectFrom('pages_deployments').selectAll().where('project_id', '=', ci.projectId).execute();
    assert.equal(now.length, 1);
    assert.equal(now[0].file_count, 1);
    assert.equal(await artifactsStorage(t.deps.config).exists(`${before[0].directory}/index.html`), false);
  });
});

describe('a custom domain', () => {
  let ci: CiProject;
  const domain = 'ec.example.com';

  before(async () => {
    ci = await ciProject(t, 'public');
    await ci.commitConfig(PAGES_CONFIG);
    await publish(ci, { 'public/index.html': '<h1>Custom</h1>' });
  });

  test('served once verified, over HTTP and over TLS with its certificate (SNI)', async () => {
    const created = await t.post(`/api/v4/projects/${ci.projectId}/pages/domains`, {
      token: ci.owner.token,
      body: { domain, certificate: certs.ecSelfSigned.cert, key: certs.ecSelfSigned.key },
    });
    expectStatus(created, 201);
    await t.runJobs();
    // Not verified yet: the host is known, nothing is served.
    expectStatus(await get(domain, '/'), 404);

    dns.txt.set(`_gitlab-pages-verification-code.${domain}`, [[`gitlab-pages-verification-code=${created.json().verification_code}`]]);
    const { verifyPagesDomainsTask } = await import('./pages.jobs.ts');
    await verifyPagesDomainsTask.run(t.deps);
    await t.runJobs();
    const res = await get(domain, '/');
    expectStatus(res, 200);
    assert.equal(res.body, '<h1>Custom</h1>');

    const silent = { error() {}, info() {}, warn() {}, debug() {}, fatal() {}, trace() {}, child: () => silent, level: 'silent' } as unknown as FastifyBaseLogger;
    const server = await startPagesHttps(t.deps, silent, 0);
    try {
      const fetch = (servername: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = https.request({ host: '127.0.0.1', port: server.port, path: '/', servername, headers: { host: servername }, ca: certs.ecSelfSigned.cert }, (r) => {
            let body = '';
            r.on('data', (c: Buffer) => (body += c));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
          });
          req.on('error', reject);
          req.end();
        });
      assert.deepEqual(await fetch(domain), { status: 200, body: '<h1>Custom</h1>' });
      await assert.rejects(fetch('unknown.example.com'));
    } finally {
      await server.close();
    }
  });

  test('an unknown host is the API\'s', async () => {
    expectStatus(await t.request('GET', '/api/v4/version', { token: ci.owner.token, headers: { host: 'unknown.example.com' } }), 200);
  });
});

describe('refusals', () => {
  test('an archive without public/ publishes nothing; the job\'s error says why', async () => {
    const ci = await ciProject(t);
    await ci.commitConfig(PAGES_CONFIG);
    const outcomes = await publish(ci, { 'site/index.html': 'wrong place' });
    const deploy = outcomes.find((o) => o.kind === 'pages.deploy');
    assert.ok(deploy && !deploy.ok);
    assert.match(String((deploy.error as Error).message ?? deploy.error), /pages: pages miss the public folder/);
    assert.equal(await t.count('pages_deployments'), 2);
  });

  test('a job named otherwise publishes nothing', async () => {
    const ci = await ciProject(t);
    await ci.commitConfig('build:\n  script: [make]\n  artifacts:\n    paths: [public]\n');
    const outcomes = await publish(ci, { 'public/index.html': 'x' }, 'build');
    assert.equal(outcomes.some((o) => o.kind === 'pages.deploy'), false);
  });
});

describe('with Pages off', () => {
  let off: TestApp;
  before(async () => {
    off = await createTestApp({ QUARRY_PAGES_ENABLED: 'false', QUARRY_PAGES_DOMAIN: PAGES_HOST });
  });
  after(() => off.close());

  test('a pages job publishes nothing and pages hosts are the API\'s', async () => {
    const ci = await ciProject(off);
    await ci.commitConfig(PAGES_CONFIG);
    const outcomes = await publish(ci, { 'public/index.html': 'x' }, 'pages', off);
    assert.equal(outcomes.some((o) => o.kind === 'pages.deploy'), false);
    assert.equal(await off.count('pages_deployments'), 0);
    const res = await off.request('GET', '/api/v4/version', { token: ci.owner.token, headers: { host: `someone.${PAGES_HOST}` } });
    expectStatus(res, 200);
  });
});
