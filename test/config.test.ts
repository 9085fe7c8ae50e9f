import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults: port 8080 on 127.0.0.1, ./data, external URL from the address and the port', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.dataDir, path.resolve('./data'));
  assert.equal(c.databaseUrl, null);
  assert.equal(c.externalUrl, 'http://127.0.0.1:8080');
  assert.equal(c.rateLimitRequests, 0);
  assert.equal(c.workers, 1);
  assert.ok(Object.isFrozen(c));
});

test('the external URL follows HOST and PORT and loses its trailing slash', () => {
  assert.equal(loadConfig({ PORT: '9000' }).externalUrl, 'http://127.0.0.1:9000');
  assert.equal(loadConfig({ HOST: '192.0.2.7', PORT: '9000' }).externalUrl, 'http://192.0.2.7:9000');
  assert.equal(loadConfig({ HOST: '::1' }).externalUrl, 'http://[::1]:8080');
  // Listening on every address: no single one to name.
  assert.equal(loadConfig({ HOST: '0.0.0.0' }).externalUrl, 'http://localhost:8080');
  assert.equal(loadConfig({ QUARRY_EXTERNAL_URL: 'https://forge.example.com/' }).externalUrl, 'https://forge.example.com');
});

test('bad values stop with a one-line reason', () => {
  const cases: Record<string, string>[] = [
    { PORT: 'eighty' },
    { PORT: '70000' },
    { DATABASE_URL: 'mysql://x' },
    { QUARRY_EXTERNAL_URL: 'not a url' },
    { QUARRY_ROOT_PASSWORD: 'short' },
    { QUARRY_ROOT_TOKEN: 'has spaces in it and more' },
    { QUARRY_BODY_LIMIT: '-1' },
    { QUARRY_COMMIT_MAX_ACTIONS: '-1' },
    { QUARRY_COMMIT_MAX_ACTIONS: 'many' },
    { QUARRY_RATE_LIMIT_REQUESTS: 'many' },
    { QUARRY_IMPERSONATION_ENABLED: 'maybe' },
    { QUARRY_LOG_LEVEL: 'loud' },
    { QUARRY_PASSWORD_HASH_COST: '3000' },
    { QUARRY_WORKERS: '0' },
    { QUARRY_WORKERS: 'all' },
    { REDIS_URL: 'http://127.0.0.1:6379' },
    { REDIS_URL: 'not a url' },
    { QUARRY_AUTH_BAN_MAX_FAILURES: 'ten' },
    { QUARRY_AUTH_BAN_TIME: '0' },
    { QUARRY_METRICS_ALLOW: '10.0.0.0/33' },
    { QUARRY_METRICS_ALLOW: 'fd00::/129' },
    { QUARRY_METRICS_ALLOW: 'example.com' },
    { QUARRY_METRICS_ALLOW: '10.0.0.0/8/8' },
    { QUARRY_METRICS_ALLOW: '10.0.0.0/x' },
    { QUARRY_METRICS_ALLOW: '10.0.0.0/8,,fd00::/8' },
  ];
  for (const env of cases) {
    assert.throws(() => loadConfig(env), (e: unknown) => e instanceof ConfigError && !e.message.includes('\n'), JSON.stringify(env));
  }
});

test('QUARRY_WORKERS: a count, or auto for one per available core', () => {
  assert.equal(loadConfig({ QUARRY_WORKERS: '3' }).workers, 3);
  assert.equal(loadConfig({ QUARRY_WORKERS: 'auto' }).workers, os.availableParallelism());
  assert.throws(() => loadConfig({ QUARRY_WORKERS: 'all' }), { message: 'QUARRY_WORKERS must be auto or a whole number from 1 to 64, got "all"' });
});

test('ephemeral mode: in memory, quiet, cheap hashes; DATABASE_URL ignored, several workers and outside storages refused', () => {
  const c = loadConfig({ QUARRY_EPHEMERAL: '1', DATABASE_URL: 'postgres://someone@db/app', QUARRY_SEED: 'seed.yaml' });
  assert.equal(c.ephemeral, true);
  assert.equal(c.databaseUrl, null);
  assert.equal(c.ignoredDatabaseUrl, true);
  assert.equal(c.logLevel, 'warn');
  assert.equal(c.passwordHashCost, 1024);
  // Load shedding for a late loop is on in every mode: it acts only on sustained lateness.
  assert.equal(c.overloadLagMs, 200);
  assert.equal(loadConfig({ QUARRY_OVERLOAD_LAG: '0' }).overloadLagMs, 0);
  assert.equal(c.seedFile, path.resolve('seed.yaml'));
  assert.equal(loadConfig({ QUARRY_EPHEMERAL: '1', QUARRY_LOG_LEVEL: 'info', QUARRY_PASSWORD_HASH_COST: '4096' }).logLevel, 'info');
  assert.equal(loadConfig({ QUARRY_EPHEMERAL: 'true' }).ignoredDatabaseUrl, false);
  assert.equal(loadConfig({}).ephemeral, false);
  assert.equal(loadConfig({ QUARRY_EPHEMERAL: '1', QUARRY_REPOSITORY_STORAGES: '{"default":"repos","fast":"fast"}' }).repositoryStorages.fast, path.resolve('./data/fast'));
  assert.throws(() => loadConfig({ QUARRY_EPHEMERAL: '1', QUARRY_WORKERS: '2' }), /^Error: QUARRY_EPHEMERAL keeps the database in one process's memory: QUARRY_WORKERS must be 1, got 2$/);
  assert.throws(() => loadConfig({ QUARRY_EPHEMERAL: '1', QUARRY_REPOSITORY_STORAGES: `{"default":"${os.tmpdir()}/elsewhere"}` }), /storage "default" must be relative/);
  assert.throws(() => loadConfig({ QUARRY_EPHEMERAL: 'maybe' }), ConfigError);
  assert.throws(() => loadConfig({ QUARRY_SEED: 'seed.yaml', QUARRY_WORKERS: '2' }), /QUARRY_SEED applies the seed in the serving process/);
});

test('REDIS_URL: redis:// or rediss://, unset by default; the authentication ban is on: 30 failures in 3 minutes ban for an hour', () => {
  const c = loadConfig({});
  assert.equal(c.redisUrl, null);
  assert.deepEqual([c.authBanMaxFailures, c.authBanFindSeconds, c.authBanSeconds], [30, 180, 3600]);
  assert.equal(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redisUrl, 'redis://127.0.0.1:6379/2');
  assert.equal(loadConfig({ REDIS_URL: 'rediss://cache.example.com:6380' }).redisUrl, 'rediss://cache.example.com:6380');
  assert.throws(() => loadConfig({ REDIS_URL: 'http://127.0.0.1:6379' }), { message: 'REDIS_URL must start with redis:// or rediss://, got "http://127.0.0.1:6379"' });
  assert.equal(loadConfig({ QUARRY_AUTH_BAN_MAX_FAILURES: '0' }).authBanMaxFailures, 0);
});

test('QUARRY_SMTP_URL: smtp:// or smtps://, unset by default (mail goes to the log); the sender is quarry@ the external host unless QUARRY_EMAIL_FROM says', () => {
  const c = loadConfig({ QUARRY_EXTERNAL_URL: 'https://git.example.com/' });
  assert.deepEqual([c.smtpUrl, c.emailFrom], [null, 'quarry@git.example.com']);
  assert.equal(loadConfig({ QUARRY_SMTP_URL: 'smtps://bot:secret@mail.example.com:465' }).smtpUrl, 'smtps://bot:secret@mail.example.com:465');
  assert.equal(loadConfig({ QUARRY_EMAIL_FROM: 'forge@example.com' }).emailFrom, 'forge@example.com');
  assert.throws(() => loadConfig({ QUARRY_SMTP_URL: 'http://mail.example.com' }), { message: 'QUARRY_SMTP_URL must start with smtp:// or smtps://, got "http://mail.example.com"' });
  assert.throws(() => loadConfig({ QUARRY_EMAIL_FROM: 'forge' }), { message: 'QUARRY_EMAIL_FROM must be an email address, got "forge"' });
});

test('QUARRY_COMMIT_MAX_ACTIONS: 10,000 actions per commit request by default; 0 leaves only the body limit', () => {
  assert.equal(loadConfig({}).commitMaxActions, 10_000);
  assert.equal(loadConfig({ QUARRY_COMMIT_MAX_ACTIONS: '0' }).commitMaxActions, 0);
  assert.equal(loadConfig({ QUARRY_COMMIT_MAX_ACTIONS: '50' }).commitMaxActions, 50);
});

test('QUARRY_METRICS_ALLOW: a comma-separated list of IPv4 and IPv6 addresses and CIDR ranges', () => {
  assert.deepEqual(loadConfig({}).metricsAllow, []);
  assert.deepEqual(loadConfig({ QUARRY_METRICS_ALLOW: ' 10.0.0.0/8, 192.0.2.7 ,fd00::/8,::1' }).metricsAllow, ['10.0.0.0/8', '192.0.2.7/32', 'fd00::/8', '::1/128']);
  assert.throws(() => loadConfig({ QUARRY_METRICS_ALLOW: '10.0.0.0/8,10.300.0.0/16' }), {
    message: 'QUARRY_METRICS_ALLOW must be a comma-separated list of IPv4 or IPv6 addresses or CIDR ranges (e.g. 10.0.0.0/8,fd00::/8), got "10.300.0.0/16"',
  });
});

test('QUARRY_SSH_PORT: 2222 by default, off in ephemeral mode and at 0, auto for a free one; ssh_url_to_repo follows it', () => {
  const on = loadConfig({ QUARRY_EXTERNAL_URL: 'https://forge.example.com' });
  assert.deepEqual(on.ssh, { port: 2222, maxConnections: 128, loginGraceMs: 60_000 });
  assert.equal(on.sshUrlPrefix, 'ssh://git@forge.example.com:2222/');
  // Port 22: the scp form, as the platform writes it.
  assert.equal(loadConfig({ QUARRY_EXTERNAL_URL: 'https://forge.example.com', QUARRY_SSH_PORT: '22' }).sshUrlPrefix, 'git@forge.example.com:');
  const off = loadConfig({ QUARRY_SSH_PORT: '0' });
  assert.equal(off.ssh, null);
  assert.equal(off.sshUrlPrefix, 'git@127.0.0.1:');
  assert.equal(loadConfig({ QUARRY_EPHEMERAL: '1' }).ssh, null);
  assert.equal(loadConfig({ QUARRY_EPHEMERAL: '1', QUARRY_SSH_PORT: 'auto' }).ssh?.port, 'auto');
  assert.deepEqual(loadConfig({ QUARRY_SSH_PORT: '2200', QUARRY_SSH_MAX_CONNECTIONS: '5', QUARRY_SSH_LOGIN_GRACE_TIME: '10' }).ssh, { port: 2200, maxConnections: 5, loginGraceMs: 10_000 });
  assert.equal(loadConfig({ HOST: '::1', QUARRY_SSH_PORT: '2200' }).sshUrlPrefix, 'ssh://git@[::1]:2200/');
  assert.throws(() => loadConfig({ QUARRY_SSH_PORT: 'ssh' }), /QUARRY_SSH_PORT must be a whole number/);
  assert.throws(() => loadConfig({ QUARRY_SSH_PORT: '70000' }), /QUARRY_SSH_PORT must be between 0 and 65535/);
});

test('Pages: on, at pages.localhost, no TLS port, domains verified by the system\'s DNS; bad values refused', () => {
  const c = loadConfig({});
  assert.deepEqual([c.pagesEnabled, c.pagesDomain, c.pagesHttpsPort, c.pagesDomainVerification, c.pagesDnsServers], [true, 'pages.localhost', null, true, []]);
  const set = loadConfig({ QUARRY_PAGES_ENABLED: 'off', QUARRY_PAGES_DOMAIN: 'Pages.Example.COM.', QUARRY_PAGES_HTTPS_PORT: '8443', QUARRY_PAGES_DOMAIN_VERIFICATION: '0', QUARRY_PAGES_DNS_SERVERS: '10.0.0.2, [fd00::53]:5353,127.0.0.1:53' });
  assert.deepEqual([set.pagesEnabled, set.pagesDomain, set.pagesHttpsPort, set.pagesDomainVerification, set.pagesDnsServers], [false, 'pages.example.com', 8443, false, ['10.0.0.2', '[fd00::53]:5353', '127.0.0.1:53']]);
  assert.throws(() => loadConfig({ QUARRY_PAGES_DOMAIN: 'pages_example.com' }), /QUARRY_PAGES_DOMAIN must be a host name/);
  assert.throws(() => loadConfig({ QUARRY_PAGES_DNS_SERVERS: 'dns.example.com' }), /QUARRY_PAGES_DNS_SERVERS must be a comma-separated list/);
  assert.throws(() => loadConfig({ QUARRY_PAGES_HTTPS_PORT: 'https' }), ConfigError);
});
