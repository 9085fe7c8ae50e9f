// Seed documents (validation, idempotent application) and ephemeral mode's /-/test routes, in process.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../test/harness.ts';
import { DATA_TABLES, KEPT_TABLES } from '../db/tables.ts';
import { SeedDocumentError, parseSeedDocument, validateSeedDocument } from './seed-document.ts';
import { SeedError, applySeed } from './seed.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);

const DOC = `
users:
  - username: alice
    name: Alice
    password: alice-password-1
    tokens:
      - { name: ci, value: glpat-alice-seeded-token-0001, scopes: [api] }
      - { name: generated }
  - username: bob
groups:
  - path: acme
    visibility: internal
    members:
      - { user: alice, access_level: owner }
  - path: acme/platform
    members:
      - { user: bob, access_level: 30 }
projects:
  - path: acme/platform/widgets
    description: Widgets
    files:
      - { path: src/app.py, content: "print('hello')\\n" }
      - { path: docs/feature.md, content: "# Feature\\n", branch: feature }
      - { path: README.md, content: "# Docs\\n", branch: docs }
    branches:
      - { name: feature }
      - { name: release, ref: main }
    members:
      - { user: bob, access_level: maintainer }
  - path: alice/notes
    visibility: private
    initialize_with_readme: false
    files:
      - { path: notes.txt, content: "first\\n" }
`;

describe('seed documents: validation', () => {
  test('a document that does not match is refused with one line per problem, each naming where', () => {
    const text = `
users:
  - username: carol
    emial: carol@example.com
    tokens:
      - { name: t, value: short }
  - { name: no-username }
groups:
  - { path: "", visibility: secret }
projects:
  - path: just-a-name
    files: [{ path: a.txt }]
    members: [{ user: carol, access_level: boss }]
extra: true
`;
    assert.throws(
      () => parseSeedDocument(text, 'seed.yaml'),
      (error: unknown) => {
        assert.ok(error instanceof SeedDocumentError);
        const lines = error.problems;
        const expectPlace = (prefix: string) => assert.ok(lines.some((l) => l.startsWith(`seed.yaml: ${prefix}`)), `${prefix} in:\n${lines.join('\n')}`);
        expectPlace('users[0].emial: ');
        expectPlace('users[0].tokens[0].value: ');
        expectPlace('users[1].username: ');
        expectPlace('groups[0].path: ');
        expectPlace('groups[0].visibility: ');
        expectPlace('projects[0].path: ');
        expectPlace('projects[0].files[0].content: ');
        expectPlace('projects[0].members[0].access_level: ');
        expectPlace('extra: ');
        assert.ok(lines.every((l) => !l.includes('\n')));
        return true;
      },
    );
  });

  test('duplicates, YAML syntax and an empty document', () => {
    assert.throws(() => validateSeedDocument({ users: [{ username: 'dan' }, { username: 'Dan' }] }), /users\[1\]\.username: "Dan" is already users\[0\]/);
    assert.throws(() => parseSeedDocument('users: [unclosed', 'bad.yaml'), /^SeedDocumentError: bad\.yaml: not YAML or JSON/);
    assert.throws(() => parseSeedDocument('- a list', 'list.yaml'), /list\.yaml: \(document\): Expected object/);
    assert.deepEqual(parseSeedDocument('', 'empty.yaml'), {});
    // JSON is YAML.
    assert.deepEqual(parseSeedDocument('{"users": [{"username": "erin"}]}', 'seed.json'), { users: [{ username: 'erin' }] });
  });
});

describe('seed documents: application', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('creates what the document describes, through the API, and a second run changes nothing', async () => {
    const doc = parseSeedDocument(DOC, 'seed.yaml');
    const first = await applySeed(t.app, doc);
    assert.deepEqual(first.created, [
      'user alice',
      'token alice/ci',
      'token alice/generated',
      'user bob',
      'group acme',
      'member alice of acme',
      'group acme/platform',
      'member bob of acme/platform',
      'project acme/platform/widgets',
      'file acme/platform/widgets:main:src/app.py',
      'branch acme/platform/widgets:feature',
      'branch acme/platform/widgets:release',
      'file acme/platform/widgets:feature:docs/feature.md',
      'file acme/platform/widgets:docs:README.md',
      'member bob of acme/platform/widgets',
      'project alice/notes',
      'file alice/notes:main:notes.txt',
    ]);
    assert.match(first.tokens['alice/generated'], /^glpat-/);
    assert.deepEqual(Object.keys(first.tokens), ['alice/generated']);

    const tables = ['users', 'personal_access_tokens', 'namespaces', 'projects', 'members', 'events', 'project_authorizations'] as const;
    const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await t.count(table)])));
    const before = await counts();
    const second = await applySeed(t.app, doc);
    assert.deepEqual(second, { created: [], tokens: {} });
    assert.deepEqual(await counts(), before);

    // What the API shows: the given token works, the files and branches are where they were asked for.
    const me = await t.get('/api/v4/user', { token: 'glpat-alice-seeded-token-0001' });
    assert.equal(me.json().username, 'alice');
    const project = (await t.get('/api/v4/projects/acme%2Fplatform%2Fwidgets', { token: ROOT_TOKEN })).json();
    assert.equal(project.default_branch, 'main');
    assert.equal(project.empty_repo, false);
    assert.equal(project.description, 'Widgets');
    const file = (path: string, ref: string) => t.get(`/api/v4/projects/${project.id}/repository/files/${encodeURIComponent(path)}/raw?ref=${ref}`, { token: ROOT_TOKEN });
    assert.equal((await file('src/app.py', 'feature')).body, "print('hello')\n");
    assert.equal((await file('docs/feature.md', 'feature')).body, '# Feature\n');
    assert.equal((await file('docs/feature.md', 'main')).statusCode, 404);
    assert.equal((await file('src/app.py', 'release')).statusCode, 200);
    // A new branch from the default one, where the file was already: the branch has the document's content.
    assert.equal((await file('README.md', 'docs')).body, '# Docs\n');
    assert.notEqual((await file('README.md', 'main')).body, '# Docs\n');
    const members = (await t.get(`/api/v4/projects/${project.id}/members/all`, { token: ROOT_TOKEN })).json() as { username: string; access_level: number }[];
    assert.equal(members.find((m) => m.username === 'bob')?.access_level, 40);
    assert.equal(members.find((m) => m.username === 'alice')?.access_level, 50);
    // A personal project without a README: its first file made the default branch.
    const notes = (await t.get('/api/v4/projects/alice%2Fnotes', { token: ROOT_TOKEN })).json();
    assert.equal(notes.default_branch, 'main');
    assert.equal(notes.owner.username, 'alice');
    assert.equal(notes.visibility, 'private');
    // The seeding's own token is gone.
    assert.equal(await t.deps.db.selectFrom('personal_access_tokens').select('id').where('name', '=', 'seed').executeTakeFirst(), undefined);
  });

  test('a step the instance refuses names the place in the document', async () => {
    await assert.rejects(applySeed(t.app, { groups: [{ path: 'acme', members: [{ user: 'nobody', access_level: 'guest' }] }] }), (error: unknown) => {
      assert.ok(error instanceof SeedError);
      assert.match(error.message, /^groups\[0\]\.members\[0\]\.user: no user "nobody"/);
      return true;
    });
    await assert.rejects(applySeed(t.app, { groups: [{ path: 'nowhere/sub' }] }), /groups\[0\]\.path: no group "nowhere" to hold "nowhere\/sub"/);
    await assert.rejects(applySeed(t.app, { projects: [{ path: 'ghost/project' }] }), /projects\[0\]\.path: no group or user "ghost"/);
    await assert.rejects(applySeed(t.app, { users: [{ username: 'frank', email: 'not-an-email' }] }), /users\[0\]: POST \/api\/v4\/users answered 400/);
  });
});

describe('ephemeral mode: /-/test routes', { skip: onPostgres ? 'the start state is kept for SQLite (ephemeral mode) only' : false }, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({}, { testMode: true });
  });
  after(() => t?.close());

  test('every table of the schema is either emptied by a reset or kept', async () => {
    const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'namespaces_search%'`.execute(t.deps.db);
    const listed = new Set<string>([...DATA_TABLES, ...KEPT_TABLES]);
    assert.deepEqual(rows.map((r) => r.name).filter((name) => !listed.has(name)), []);
    assert.equal(new Set(DATA_TABLES).size + new Set(KEPT_TABLES).size, listed.size, 'no table in both lists');
  });

  test('reset and seed need an administrator', async () => {
    const user = await t.user();
    for (const route of ['/-/test/reset', '/-/test/seed']) {
      const anonymous = await t.post(route, { body: {} });
      assert.equal(anonymous.statusCode, 401);
      assert.deepEqual(anonymous.json(), { message: '401 Unauthorized' });
      const forbidden = await t.post(route, { token: user.token, body: {} });
      assert.equal(forbidden.statusCode, 403);
      assert.deepEqual(forbidden.json(), { message: '403 Forbidden' });
    }
  });

  test('reset puts everything back as it started, root and its token kept, in well under 100 ms', async () => {
    // From the start state (an earlier test added a user).
    assert.equal((await t.post('/-/test/reset', { token: ROOT_TOKEN })).statusCode, 200);
    const rowCounts = async () => Object.fromEntries(await Promise.all(DATA_TABLES.map(async (table) => [table, await t.count(table)])));
    const atStart = await rowCounts();
    const settingsAtStart = (await t.get('/api/v4/application/settings', { token: ROOT_TOKEN })).json().default_branch_name;
    const seeded = await t.post('/-/test/seed', { token: ROOT_TOKEN, body: parseSeedDocument(DOC, 'seed.yaml') });
    assert.equal(seeded.statusCode, 201, seeded.body);
    assert.ok(seeded.json().created.includes('project acme/platform/widgets'));
    const project = (await t.get('/api/v4/projects/acme%2Fplatform%2Fwidgets', { token: ROOT_TOKEN })).json();
    // Reads that fill the caches: settings, refs, objects and a reader process.
    assert.equal((await t.get(`/api/v4/projects/${project.id}/repository/branches`, { token: ROOT_TOKEN })).statusCode, 200);
    assert.equal((await t.get(`/api/v4/projects/${project.id}/repository/files/src%2Fapp.py/raw?ref=main`, { token: ROOT_TOKEN })).statusCode, 200);
    // Issues, labels, comments and a release: their tables and the label counters go too.
    const issue = await t.post(`/api/v4/projects/${project.id}/issues`, { token: ROOT_TOKEN, body: { title: 'Reset me', labels: 'bug' } });
    assert.equal(issue.statusCode, 201, issue.body);
    assert.equal((await t.post(`/api/v4/projects/${project.id}/issues/1/notes`, { token: ROOT_TOKEN, body: { body: 'gone soon' } })).statusCode, 201);
    assert.equal((await t.post(`/api/v4/projects/${project.id}/releases`, { token: ROOT_TOKEN, body: { tag_name: 'v-reset', ref: 'main' } })).statusCode, 201);
    const changed = await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { default_branch_name: 'trunk' } });
    assert.equal(changed.statusCode, 200);
    const repository = path.join(t.deps.config.dataDir, 'repositories', '@hashed');
    assert.ok(fs.readdirSync(repository).length > 0);

    const started = performance.now();
    const reset = await t.post('/-/test/reset', { token: ROOT_TOKEN });
    const took = performance.now() - started;
    assert.equal(reset.statusCode, 200, reset.body);
    assert.equal(reset.json().status, 'ok');
    process.stdout.write(`# reset after a small seed: ${took.toFixed(1)} ms (server-side ${reset.json().duration_ms} ms)\n`);
    assert.ok(took < 1000, `reset took ${took} ms`);

    assert.equal((await t.get('/api/v4/user', { token: ROOT_TOKEN })).json().username, 'root');
    assert.equal((await t.get('/api/v4/user', { token: 'glpat-alice-seeded-token-0001' })).statusCode, 401);
    assert.deepEqual(((await t.get('/api/v4/users', { token: ROOT_TOKEN })).json() as { username: string }[]).map((u) => u.username), ['root']);
    assert.deepEqual((await t.get('/api/v4/projects', { token: ROOT_TOKEN })).json(), []);
    assert.deepEqual((await t.get('/api/v4/groups', { token: ROOT_TOKEN })).json(), []);
    assert.equal((await t.get('/api/v4/application/settings', { token: ROOT_TOKEN })).json().default_branch_name, settingsAtStart);
    assert.deepEqual(fs.existsSync(repository) ? fs.readdirSync(repository) : [], []);
    assert.deepEqual(await rowCounts(), atStart);
    // Ids start again where the first start left them, and a new project's repository is a new one.
    const again = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'again', initialize_with_readme: true } });
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(again.json().id, 1);
    assert.equal(again.json().default_branch, 'main');
    const branches = (await t.get(`/api/v4/projects/1/repository/branches`, { token: ROOT_TOKEN })).json() as { name: string }[];
    assert.deepEqual(branches.map((b) => b.name), ['main']);
    assert.equal((await t.get('/api/v4/projects/1/repository/files/src%2Fapp.py/raw?ref=main', { token: ROOT_TOKEN })).statusCode, 404);
    assert.equal((await t.get('/api/v4/projects/1/repository/files/README.md/raw?ref=main', { token: ROOT_TOKEN })).statusCode, 200);
  });

  test('a seed document sent to /-/test/seed is validated first, every problem on its line', async () => {
    const res = await t.post('/-/test/seed', { token: ROOT_TOKEN, body: { users: [{ username: 'x', admin: 'yes' }], groups: [{}] } });
    assert.equal(res.statusCode, 400);
    const { error } = res.json() as { error: string[] };
    assert.ok(error.some((line) => line.startsWith('users[0].admin: ')), error.join('\n'));
    assert.ok(error.some((line) => line.startsWith('groups[0].path: ')), error.join('\n'));
    assert.equal(await t.count('users'), 1);
  });
});

describe('outside ephemeral mode', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('the /-/test routes do not exist', async () => {
    for (const route of ['/-/test/reset', '/-/test/seed']) {
      const res = await t.post(route, { token: ROOT_TOKEN, body: {} });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), { error: '404 Not Found' });
    }
  });
});
