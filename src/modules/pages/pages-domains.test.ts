// Pages domains through the API, with real certificates made by `openssl`: the entity in its two
// forms (the certificate described as OpenSSL describes it, the key never shown and sealed at
// rest), certificates and keys as text or uploaded files, chains in any order, updates (a
// certificate alone keeps the key, empty ones remove both), removal, the refusals in the
// platform's words, uniqueness whatever the case, the pages host, the instance's switch, archived
// projects, and DNS verification against a DNS server of the test's own.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGroup, createProject } from '../../../test/factories.ts';
import { type CertificateSet, certificates, opensslSubject, opensslText } from '../../../test/fixtures/certificates.ts';
import { type DnsServer, startDnsServer } from '../../../test/fixtures/dns-server.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { PagesDomainBasicEntity, PagesDomainEntity } from './pages-domains.schemas.ts';

const PAGES_HOST = 'pages.quarry.test';
const MISMATCH = { message: { key: ["doesn't match the certificate"] } };

let t: TestApp;
let dns: DnsServer;
let certs: CertificateSet;
let mia: TestUser;
let dev: TestUser;
let web: NamespaceRow;
let site: ProjectRow;
let other: ProjectRow;
let archived: ProjectRow;

before(async () => {
  certs = certificates();
  dns = await startDnsServer();
  t = await createTestApp({ QUARRY_PAGES_DOMAIN: PAGES_HOST, QUARRY_PAGES_DNS_SERVERS: dns.address });
  mia = await t.user({ username: 'mia' });
  dev = await t.user({ username: 'dev' });
  web = await createGroup(t, { path: 'web', members: [[mia.user.id, ACCESS.MAINTAINER], [dev.user.id, ACCESS.DEVELOPER]] });
  site = await createProject(t, { path: 'site', namespace: web });
  other = await createProject(t, { path: 'other', namespace: web });
  archived = await createProject(t, { path: 'old', namespace: web, archived: true });
});
after(async () => {
  await t.close();
  await dns.close();
});

const url = (suffix = '', p: { id: number } = site) => `/api/v4/projects/${p.id}/pages/domains${suffix}`;
let sequence = 0;
const fresh = () => `d${++sequence}.example.com`;

async function create(body: Record<string, unknown>, p: { id: number } = site) {
  const res = await t.post(url('', p), { token: mia.token, body });
  expectStatus(res, 201);
  expectEntity(res.json(), PagesDomainEntity);
  return res.json();
}

async function refused(body: Record<string, unknown>, status: number, expected: unknown) {
  const before = await t.count('pages_domains');
  expectError(await t.post(url(), { token: mia.token, body }), status, expected);
  assert.equal(await t.count('pages_domains'), before, 'a refused domain was written');
}

/** A multipart body of text fields and file parts. */
function multipart(fields: Record<string, string>, files: Record<string, string>) {
  const boundary = `----pages${Math.random().toString(16).slice(2)}`;
  const parts = [
    ...Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    ...Object.entries(files).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.pem"\r\nContent-Type: application/x-pem-file\r\n\r\n${value}\r\n`),
  ];
  return { body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('POST /projects/:id/pages/domains', () => {
  test('a domain without a certificate: the whole entity, http, unverified, with a verification code', async () => {
    const domain = fresh();
    const body = await create({ domain });
    assert.deepEqual({ ...body, verification_code: 'x' }, { domain, url: `http://${domain}`, verified: false, verification_code: 'x', enabled_until: null, auto_ssl_enabled: false });
    assert.match(body.verification_code, /^[0-9a-f]{32}$/);
  });

  test('with a self-signed certificate: described as OpenSSL describes it, https, the key never shown and sealed at rest', async () => {
    const domain = fresh();
    const res = await t.post(url(), { token: mia.token, body: { domain, certificate: certs.selfSigned.cert, key: certs.selfSigned.key, auto_ssl_enabled: true } });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, PagesDomainEntity);
    assert.equal(body.url, `https://${domain}`);
    assert.equal(body.auto_ssl_enabled, true);
    assert.deepEqual(body.certificate, {
      subject: '/CN=test-certificate',
      expired: false,
      certificate: certs.selfSigned.cert,
      certificate_text: opensslText(certs, certs.selfSigned.certFile),
    });
    assert.equal(body.certificate.subject, opensslSubject(certs, certs.selfSigned.certFile));
    assert.ok(!res.body.includes('PRIVATE KEY'), 'the key was shown');
    const row = await t.deps.db.selectFrom('pages_domains').selectAll().where('domain', '=', domain).executeTakeFirstOrThrow();
    assert.ok(row.key_encrypted && !row.key_encrypted.includes('PRIVATE KEY'));
    assert.equal(secretBox(t.deps.config.dataDir).open(row.key_encrypted), certs.selfSigned.key);
  });

  test('an EC certificate and its key uploaded as files', async () => {
    const domain = fresh();
    const { body, headers } = multipart({ domain }, { certificate: certs.ecSelfSigned.cert, key: certs.ecSelfSigned.key });
    const res = await t.post(url(), { token: mia.token, headers, body });
    expectStatus(res, 201);
    expectEntity(res.json(), PagesDomainEntity);
    assert.equal(res.json().certificate.subject, '/C=FR/O=Quarry Tests/CN=ec.example.com');
    assert.equal(res.json().certificate.certificate_text, opensslText(certs, certs.ecSelfSigned.certFile));
  });

  test('an expired certificate is taken and shown expired', async () => {
    const body = await create({ domain: fresh(), certificate: certs.expired.cert, key: certs.expired.key });
    assert.equal(body.certificate.expired, true);
    assert.equal(body.certificate.subject, '/CN=expired.example.com');
    assert.equal(body.certificate.certificate_text, opensslText(certs, certs.expired.certFile));
  });

  test('a certificate with its intermediates, in any order after it', async () => {
    const { leaf, intermediate, root } = certs;
    for (const chain of [[leaf, intermediate, root], [leaf, root, intermediate]]) {
      const certificate = chain.map((c) => c.cert).join('');
      const body = await create({ domain: fresh(), certificate, key: leaf.key });
      assert.equal(body.certificate.subject, '/CN=site.example.com');
      assert.equal(body.certificate.certificate, certificate);
      assert.equal(body.certificate.certificate_text, opensslText(certs, leaf.certFile));
    }
  });

  test('a certificate whose chain does not reach a trusted root misses intermediates', async () => {
    const { leaf, intermediate, root } = certs;
    const misses = { message: { certificate: ['misses intermediates'] } };
    await refused({ domain: fresh(), certificate: leaf.cert, key: leaf.key }, 400, misses);
    await refused({ domain: fresh(), certificate: leaf.cert + intermediate.cert, key: leaf.key }, 400, misses);
    await refused({ domain: fresh(), certificate: leaf.cert + root.cert, key: leaf.key }, 400, misses);
  });

  test('a key of another certificate does not match it', async () => {
    await refused({ domain: fresh(), certificate: certs.selfSigned.cert, key: certs.ecSelfSigned.key }, 400, MISMATCH);
  });

  test('text that is no certificate, or no private key, as the platform words it', async () => {
    await refused({ domain: fresh(), certificate: 'not a certificate', key: certs.selfSigned.key }, 400, {
      message: { certificate: ['must be a valid PEM certificate', 'misses intermediates'], key: ["doesn't match the certificate"] },
    });
    await refused({ domain: fresh(), certificate: certs.selfSigned.cert, key: 'not a key' }, 400, { message: { key: ['must be a valid PEM private key', "doesn't match the certificate"] } });
    // A public key is no private key.
    const publicKey = certs.openssl('pkey', '-in', certs.selfSigned.keyFile, '-pubout');
    await refused({ domain: fresh(), certificate: certs.selfSigned.cert, key: publicKey }, 400, { message: { key: ['must be a valid PEM private key', "doesn't match the certificate"] } });
  });

  test('an ECDSA key with explicit curve parameters is refused', async () => {
    const { cert, key } = certs.explicitCurve;
    await refused({ domain: fresh(), certificate: cert, key }, 400, { message: { key: ['ECDSA keys with explicit curves are not supported'] } });
    const pkcs8 = certs.openssl('pkcs8', '-topk8', '-nocrypt', '-in', certs.explicitCurve.keyFile);
    await refused({ domain: fresh(), certificate: cert, key: pkcs8 }, 400, { message: { key: ['ECDSA keys with explicit curves are not supported'] } });
  });

  test('parameters: the domain is required; certificate and key go together', async () => {
    await refused({}, 400, { error: 'domain is missing' });
    await refused({ domain: fresh(), certificate: certs.selfSigned.cert }, 400, { error: 'certificate, key provide all or none of parameters' });
    await refused({ domain: fresh(), key: certs.selfSigned.key }, 400, { error: 'certificate, key provide all or none of parameters' });
    await refused({ domain: fresh(), auto_ssl_enabled: 'maybe' }, 400, { error: 'auto_ssl_enabled is invalid' });
  });

  test('the domain: a host name, not under the pages host, unique across the instance whatever its case', async () => {
    await refused({ domain: 'not a host!' }, 400, { message: { domain: ['contains invalid characters (valid characters: [a-z0-9\\-])'] } });
    await refused({ domain: `blog.${PAGES_HOST}` }, 400, { message: { domain: [`*.${PAGES_HOST} is restricted`] } });
    const domain = fresh();
    await create({ domain });
    await refused({ domain: domain.toUpperCase() }, 400, { message: { domain: ['has already been taken'] } });
    expectError(await t.post(url('', other), { token: mia.token, body: { domain } }), 400, { message: { domain: ['has already been taken'] } });
    // Numeric labels are host names too.
    await create({ domain: '123.example.com' });
  });
});

describe('reading', () => {
  let project: ProjectRow;
  before(async () => {
    project = await createProject(t, { path: 'reads', namespace: web });
    for (const domain of ['b.reads.example.com', 'a.reads.example.com', 'c.reads.example.com']) await create({ domain }, project);
    await create({ domain: 'd.reads.example.com', certificate: certs.selfSigned.cert, key: certs.selfSigned.key }, project);
  });

  test('GET the project\'s domains: by name, paginated, each in the project form', async () => {
    const res = await t.get(url('', project), { token: mia.token, query: { per_page: '2' } });
    expectStatus(res, 200);
    expectEntities(res.json(), PagesDomainEntity);
    assert.deepEqual(res.json().map((d: { domain: string }) => d.domain), ['a.reads.example.com', 'b.reads.example.com']);
    assert.equal(res.headers['x-total'], '4');
    const last = await t.get(url('', project), { token: mia.token, query: { per_page: '2', page: '2' } });
    assert.deepEqual(last.json().map((d: { domain: string }) => d.domain), ['c.reads.example.com', 'd.reads.example.com']);
    assert.equal(last.json()[1].certificate.subject, '/CN=test-certificate');
  });

  test('GET one by its exact name; another name is 404', async () => {
    const res = await t.get(url('/a.reads.example.com', project), { token: mia.token });
    expectStatus(res, 200);
    expectEntity(res.json(), PagesDomainEntity);
    assert.equal(res.json().domain, 'a.reads.example.com');
    expectError(await t.get(url('/A.reads.example.com', project), { token: mia.token }), 404, { message: '404 PagesDomain Not Found' });
    expectError(await t.get(url('/a.reads.example.com', site), { token: mia.token }), 404, { message: '404 PagesDomain Not Found' });
  });

  test('GET /pages/domains: every domain for administrators, with its project and its certificate\'s expiry', async () => {
    const res = await t.get('/api/v4/pages/domains', { token: ROOT_TOKEN, query: { per_page: '100' } });
    expectStatus(res, 200);
    expectEntities(res.json(), PagesDomainBasicEntity);
    const byName = new Map(res.json().map((d: { domain: string }) => [d.domain, d]));
    const plain = byName.get('a.reads.example.com') as Record<string, unknown>;
    assert.equal(plain.project_id, project.id);
    assert.equal('certificate_expiration' in plain, false);
    const secured = byName.get('d.reads.example.com') as { certificate_expiration: { expired: boolean; expiration: string }; url: string };
    assert.equal(secured.url, 'https://d.reads.example.com');
    const notAfter = certs.openssl('x509', '-in', certs.selfSigned.certFile, '-noout', '-enddate').trim().replace('notAfter=', '');
    assert.deepEqual(secured.certificate_expiration, { expired: false, expiration: new Date(notAfter).toISOString() });
    expectError(await t.get('/api/v4/pages/domains', { token: mia.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get('/api/v4/pages/domains'), 401, { message: '401 Unauthorized' });
  });
});

describe('PUT /projects/:id/pages/domains/:domain', () => {
  test('adds a certificate; a certificate alone keeps the key; empty ones remove both', async () => {
    const domain = fresh();
    await create({ domain });
    let res = await t.put(url(`/${domain}`), { token: mia.token, body: { certificate: certs.selfSigned.cert, key: certs.selfSigned.key } });
    expectStatus(res, 200);
    expectEntity(res.json(), PagesDomainEntity);
    assert.equal(res.json().url, `https://${domain}`);

    // The same certificate again without a key: the stored key still matches it.
    res = await t.put(url(`/${domain}`), { token: mia.token, body: { certificate: certs.selfSigned.cert } });
    expectStatus(res, 200);
    assert.equal(res.json().certificate.subject, '/CN=test-certificate');

    // Another certificate without its key: the stored key does not match it.
    expectError(await t.put(url(`/${domain}`), { token: mia.token, body: { certificate: certs.ecSelfSigned.cert } }), 400, MISMATCH);
    // An empty certificate alone leaves a key without a certificate.
    expectError(await t.put(url(`/${domain}`), { token: mia.token, body: { certificate: '' } }), 400, MISMATCH);

    res = await t.put(url(`/${domain}`), { token: mia.token, body: { certificate: '', key: '' } });
    expectStatus(res, 200);
    expectEntity(res.json(), PagesDomainEntity);
    assert.equal('certificate' in res.json(), false);
    assert.equal(res.json().url, `http://${domain}`);
    const row = await t.deps.db.selectFrom('pages_domains').selectAll().where('domain', '=', domain).executeTakeFirstOrThrow();
    assert.deepEqual([row.certificate, row.key_encrypted, row.certificate_valid_not_after], [null, null, null]);
  });

  test('auto_ssl_enabled; nothing given changes nothing', async () => {
    const domain = fresh();
    const created = await create({ domain });
    let res = await t.put(url(`/${domain}`), { token: mia.token, body: { auto_ssl_enabled: true } });
    expectStatus(res, 200);
    assert.equal(res.json().auto_ssl_enabled, true);
    res = await t.put(url(`/${domain}`), { token: mia.token, body: {} });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), { ...created, auto_ssl_enabled: true });
  });

  test('a new chain is checked again; refusals in the platform\'s words', async () => {
    const domain = fresh();
    await create({ domain });
    expectError(await t.put(url(`/${domain}`), { token: mia.token, body: { certificate: certs.leaf.cert, key: certs.leaf.key } }), 400, { message: { certificate: ['misses intermediates'] } });
    expectError(await t.put(url(`/${domain}`), { token: mia.token, body: { certificate: 'nope', key: 'nope' } }), 400, {
      message: { certificate: ['must be a valid PEM certificate', 'misses intermediates'], key: ['must be a valid PEM private key', "doesn't match the certificate"] },
    });
    expectError(await t.put(url('/missing.example.com'), { token: mia.token, body: { auto_ssl_enabled: true } }), 404, { message: '404 PagesDomain Not Found' });
  });
});

describe('DELETE /projects/:id/pages/domains/:domain', () => {
  test('removes the domain, then it is not found', async () => {
    const domain = fresh();
    await create({ domain, certificate: certs.selfSigned.cert, key: certs.selfSigned.key });
    const res = await t.del(url(`/${domain}`), { token: mia.token });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    expectError(await t.get(url(`/${domain}`), { token: mia.token }), 404, { message: '404 PagesDomain Not Found' });
    expectError(await t.del(url(`/${domain}`), { token: mia.token }), 404, { message: '404 PagesDomain Not Found' });
    // The name is free again.
    await create({ domain });
  });
});

describe('who may', () => {
  test('an archived project\'s domains are read, not changed', async () => {
    const [domain] = [fresh()];
    await t.deps.db.updateTable('projects').set({ archived: false }).where('id', '=', archived.id).execute();
    await create({ domain }, archived);
    await t.deps.db.updateTable('projects').set({ archived: true }).where('id', '=', archived.id).execute();
    expectStatus(await t.get(url(`/${domain}`, archived), { token: mia.token }), 200);
    expectError(await t.post(url('', archived), { token: mia.token, body: { domain: fresh() } }), 403, { message: '403 Forbidden' });
    expectError(await t.put(url(`/${domain}`, archived), { token: mia.token, body: { auto_ssl_enabled: true } }), 403, { message: '403 Forbidden' });
    expectError(await t.del(url(`/${domain}`, archived), { token: mia.token }), 403, { message: '403 Forbidden' });
  });

  test('a developer is refused before the domain is looked for', async () => {
    expectError(await t.get(url('/missing.example.com'), { token: dev.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get(url(), { token: dev.token }), 403, { message: '403 Forbidden' });
  });
});

describe('verification', () => {
  test('a new domain is verified once its code is in a TXT record: verified, served for a week', async () => {
    const domain = fresh();
    const created = await create({ domain });
    dns.txt.set(`_gitlab-pages-verification-code.${domain}`, [['gitlab-pages-verification-code=' + created.verification_code]]);
    const before = Date.now();
    await t.runJobs();
    const body = (await t.get(url(`/${domain}`), { token: mia.token })).json();
    assert.equal(body.verified, true);
    const until = Date.parse(body.enabled_until);
    assert.ok(until >= before + 7 * 24 * 3600 * 1000 - 1000 && until <= Date.now() + 7 * 24 * 3600 * 1000, body.enabled_until);
  });

  test('the code may stand alone in a record of the domain itself, among other words', async () => {
    const domain = fresh();
    const created = await create({ domain });
    dns.txt.set(domain, [['v=spf1 -all'], [`something ${created.verification_code}`]]);
    await t.runJobs();
    assert.equal((await t.get(url(`/${domain}`), { token: mia.token })).json().verified, true);
  });

  test('without the record the domain stays unverified, and is disabled once its time ran out', async () => {
    const domain = fresh();
    await create({ domain });
    await t.runJobs();
    let body = (await t.get(url(`/${domain}`), { token: mia.token })).json();
    assert.deepEqual([body.verified, body.enabled_until], [false, null]);

    // Verified once, then the record went away: unverified but still served until its time, then not.
    const past = new Date(Date.now() - 1000).toISOString();
    await t.deps.db.updateTable('pages_domains').set({ verified_at: past, enabled_until: past }).where('domain', '=', domain).execute();
    const { verifyPagesDomainsTask } = await import('./pages.jobs.ts');
    await verifyPagesDomainsTask.run(t.deps);
    await t.runJobs();
    body = (await t.get(url(`/${domain}`), { token: mia.token })).json();
    assert.deepEqual([body.verified, body.enabled_until], [false, null]);
  });
});

describe('with Pages off', () => {
  let off: TestApp;
  let project: ProjectRow;
  before(async () => {
    off = await createTestApp({ QUARRY_PAGES_ENABLED: 'false' });
    project = await createProject(off, { path: 'pages-off' });
  });
  after(() => off.close());

  test('the routes answer 404 to whoever signed in; a project the caller may not see is still the project\'s 404', async () => {
    const notFound = { message: '404 Not Found' };
    expectError(await off.get('/api/v4/pages/domains', { token: ROOT_TOKEN }), 404, notFound);
    expectError(await off.get(`/api/v4/projects/${project.id}/pages/domains`, { token: ROOT_TOKEN }), 404, notFound);
    expectError(await off.post(`/api/v4/projects/${project.id}/pages/domains`, { token: ROOT_TOKEN, body: { domain: 'x.example.com' } }), 404, notFound);
    expectError(await off.put(`/api/v4/projects/${project.id}/pages/domains/x.example.com`, { token: ROOT_TOKEN, body: {} }), 404, notFound);
    expectError(await off.del(`/api/v4/projects/${project.id}/pages/domains/x.example.com`, { token: ROOT_TOKEN }), 404, notFound);
    const stranger = await off.user();
    expectError(await off.get(`/api/v4/projects/${project.id}/pages/domains`, { token: stranger.token }), 404, { message: '404 Project Not Found' });
    expectError(await off.get('/api/v4/pages/domains'), 401, { message: '401 Unauthorized' });
  });
});
