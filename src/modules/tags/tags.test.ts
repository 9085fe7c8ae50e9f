// Repository tags through the API on real repositories: the entity, order and search, pagination,
// lightweight and annotated creation with the spec's 405 for every failure, deletion, protected
// tags, the read-only flag, odd names, and two requests racing for one tag.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, createProject } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { getCommit } from '../../git/commits.ts';
import { resolveRef, updateRef } from '../../git/refs.ts';
import { runGit } from '../../git/run.ts';
import { identityEnv } from '../../git/signature.ts';
import { AUTHOR, commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { TagEntity } from './tags.schemas.ts';

let t: TestApp;
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let project: ProjectRow;
let dir: string;
let head: string;

before(async () => {
  t = await createTestApp();
  maintainer = await t.user({ username: 'mia' });
  developer = await t.user({ username: 'dev', name: 'Dev <Eloper>' });
  reporter = await t.user({ username: 'rep' });
  project = await createProject(t, {
    path: 'tagged',
    visibility: 'public',
    members: [
      [maintainer.user.id, ACCESS.MAINTAINER],
      [developer.user.id, ACCESS.DEVELOPER],
      [reporter.user.id, ACCESS.REPORTER],
    ],
  });
  ({ dir, head } = await giveRepository(t, project));
});
after(() => t.close());

const url = (suffix = '', p = project) => `/api/v4/projects/${p.id}/repository/tags${suffix}`;
const names = (res: { json(): unknown }) => (res.json() as { name: string }[]).map((tag) => tag.name);
const create = (body: Record<string, unknown>, token = developer.token) => t.post(url(), { token, body });
let sequence = 0;
const fresh = (prefix = 't') => `${prefix}-${++sequence}`;
const setReadOnly = (value: boolean) => t.deps.db.updateTable('projects').set({ repository_read_only: value }).where('id', '=', project.id).execute();
const protect = async (name: string, level: number = ACCESS.MAINTAINER) =>
  expectStatus(await t.post(`/api/v4/projects/${project.id}/protected_tags`, { token: ROOT_TOKEN, body: { name, create_access_level: level } }), 201);

describe('GET /projects/:id/repository/tags', () => {
  let listed: ProjectRow;

  before(async () => {
    listed = await createProject(t, { visibility: 'public' });
    const repo = await giveRepository(t, listed);
    const at = (day: number) => new Date(`2024-01-${String(day).padStart(2, '0')}T00:00:00Z`);
    // Commits from oldest to newest: the tag names run against their dates.
    const commits: string[] = [];
    for (const day of [1, 2, 3, 4]) commits.push(await commitOn(repo.dir, fresh('c'), { from: 'main', date: at(day) }));
    const tags: [string, string][] = [['v1.10.0', commits[0]], ['v1.9.0', commits[1]], ['v1.9.0-rc1', commits[2]], ['Beta', commits[3]], ['v1.2', commits[0]]];
    for (const [name, commit] of tags) await updateRef(repo.dir, `refs/tags/${name}`, commit);
    const tree = (await runGit(repo.dir, ['rev-parse', `${commits[0]}^{tree}`])).stdout.toString().trim();
    await runGit(repo.dir, ['tag', '-a', '-m', 'A tree', '--', 'tree-tag', tree], { env: identityEnv('COMMITTER', AUTHOR, at(5)) });
  });

  const list = (query: Record<string, string> = {}) => t.get(url('', listed), { query });

  test('by default the most recently committed first, a tag of no commit counting as now; anonymous callers read public repositories', async () => {
    const res = await list();
    expectStatus(res, 200);
    expectEntities(res.json(), TagEntity);
    assert.deepEqual(names(res), ['tree-tag', 'Beta', 'v1.9.0-rc1', 'v1.9.0', 'v1.2', 'v1.10.0']);
    assert.deepEqual(names(await list({ order_by: 'updated', sort: 'asc' })), ['v1.10.0', 'v1.2', 'v1.9.0', 'v1.9.0-rc1', 'Beta', 'tree-tag']);
  });

  test('order_by=name: version order, descending unless sort=asc', async () => {
    assert.deepEqual(names(await list({ order_by: 'name', sort: 'asc' })), ['Beta', 'tree-tag', 'v1.2', 'v1.9.0-rc1', 'v1.9.0', 'v1.10.0']);
    assert.deepEqual(names(await list({ order_by: 'name' })), ['v1.10.0', 'v1.9.0', 'v1.9.0-rc1', 'v1.2', 'tree-tag', 'Beta']);
  });

  test('search: contains, ^prefix, suffix$, case-insensitive, exact matches first', async () => {
    assert.deepEqual(names(await list({ search: 'V1.9', order_by: 'name', sort: 'asc' })), ['v1.9.0-rc1', 'v1.9.0']);
    assert.deepEqual(names(await list({ search: '^v1.1' })), ['v1.10.0']);
    assert.deepEqual(names(await list({ search: '.0$', order_by: 'name', sort: 'asc' })), ['v1.9.0', 'v1.10.0']);
    assert.deepEqual(names(await list({ search: 'v1.9.0', order_by: 'name', sort: 'asc' })), ['v1.9.0', 'v1.9.0-rc1']);
  });

  test('pages and headers', async () => {
    const res = await list({ order_by: 'name', sort: 'asc', per_page: '4', page: '2' });
    assert.deepEqual(names(res), ['v1.9.0', 'v1.10.0']);
    assert.deepEqual(
      ['x-page', 'x-per-page', 'x-total', 'x-total-pages', 'x-prev-page', 'x-next-page'].map((h) => res.headers[h]),
      ['2', '4', '6', '2', '1', ''],
    );
  });

  test('values out of the lists: 400', async () => {
    expectError(await list({ order_by: 'version' }), 400, { error: 'order_by does not have a valid value' });
    expectError(await list({ sort: 'up' }), 400, { error: 'sort does not have a valid value' });
  });

  test('a project without a repository has no tags', async () => {
    const bare = await createProject(t, { visibility: 'public' });
    assert.deepEqual((await t.get(url('', bare))).json(), []);
  });
});

describe('GET /projects/:id/repository/tags/:tag_name', () => {
  test('a lightweight tag: no message, the commit as target; protected from the rules; release null', async () => {
    const name = fresh('release/light');
    await updateRef(dir, `refs/tags/${name}`, head);
    await protect('release/*');
    const res = await t.get(url(`/${encodeURIComponent(name)}`), { token: reporter.token });
    expectStatus(res, 200);
    expectEntity(res.json(), TagEntity);
    const commit = await getCommit(dir, head);
    assert.deepEqual(res.json(), {
      name,
      message: null,
      target: head,
      commit: {
        id: head,
        short_id: head.slice(0, 11),
        created_at: commit?.committer.date,
        parent_ids: [],
        title: 'Initial commit',
        message: 'Initial commit',
        author_name: AUTHOR.name,
        author_email: AUTHOR.email,
        authored_date: commit?.author.date,
        committer_name: AUTHOR.name,
        committer_email: AUTHOR.email,
        committed_date: commit?.committer.date,
        trailers: {},
        web_url: `${BASE_URL}/${project.full_path}/-/commit/${head}`,
      },
      release: null,
      protected: true,
    });
  });

  test('absent or impossible names: 404, git never given an option', async () => {
    for (const name of ['nope', 'a..b', '--upload-pack=x', '-x', '..%2F..%2Fx', 'x%00y', '%ED%A0%80']) {
      const res = await t.get(url(`/${name}`), { token: reporter.token });
      assert.ok([400, 404].includes(res.statusCode), `${name}: ${res.statusCode}`);
      if (res.statusCode === 404) assert.deepEqual(res.json(), { message: '404 Tag Not Found' });
    }
  });
});

describe('POST /projects/:id/repository/tags', () => {
  test('lightweight: 201, the commit as target', async () => {
    const name = fresh();
    const res = await create({ tag_name: name, ref: 'main' });
    expectStatus(res, 201);
    expectEntity(res.json(), TagEntity);
    assert.equal(res.json().message, null);
    assert.equal(res.json().target, head);
    assert.equal(await resolveRef(dir, `refs/tags/${name}`), head);
  });

  test('annotated: the message stripped, the caller as tagger, a tag object as target', async () => {
    const name = fresh('v');
    const res = await create({ tag_name: name, ref: head, message: '  Release 7.1.0\n\nNotes  \n' });
    expectStatus(res, 201);
    expectEntity(res.json(), TagEntity);
    assert.equal(res.json().message, 'Release 7.1.0\n\nNotes');
    assert.notEqual(res.json().target, head);
    assert.equal(res.json().commit.id, head);
    const raw = (await runGit(dir, ['cat-file', 'tag', res.json().target])).stdout.toString();
    assert.match(raw, new RegExp(`^object ${head}\\ntype commit\\ntag ${name}\\ntagger Dev Eloper <dev@example.com> \\d+ \\+0000\\n\\nRelease 7.1.0\\n\\nNotes$`));
    // A blank message makes a lightweight tag.
    const blank = await create({ tag_name: fresh(), ref: 'main', message: ' \n ' });
    expectStatus(blank, 201);
    assert.equal(blank.json().target, head);
  });

  test('every failure is a 405 with its reason (spec part 1 §4.4), nothing written', async () => {
    for (const tag_name of ['a b', 'a..b', '-x', '--upload-pack=x', 'refs/heads/x', 'HEAD', 'x.lock', 'x~1', 'x:y', '', 'a/', '\uD800']) {
      expectError(await create({ tag_name, ref: 'main' }), 405, { message: 'Tag name invalid' });
    }
    expectError(await create({ tag_name: fresh(), ref: '' }), 405, { message: 'Target is empty' });
    for (const ref of ['nope', '--upload-pack=x', 'main:README.md', '0000000000000000000000000000000000000000', 'main\uFEFF', 'a\u00A0b']) {
      expectError(await create({ tag_name: fresh(), ref }), 405, { message: `Target ${ref} is invalid` });
    }
    const name = fresh();
    expectStatus(await create({ tag_name: name, ref: 'main' }), 201);
    expectError(await create({ tag_name: name, ref: 'main', message: 'again' }), 405, { message: `Tag ${name} already exists` });
    assert.equal(await resolveRef(dir, `refs/tags/${name}`), head);
  });

  test('parameters: tag_name and ref are required', async () => {
    expectError(await create({ ref: 'main' }), 400, { error: 'tag_name is missing' });
    expectError(await create({ tag_name: 'x' }), 400, { error: 'ref is missing' });
  });

  test('two requests racing for one tag: one 201, the other 405', async () => {
    for (let round = 0; round < 5; round++) {
      const tag_name = fresh('race');
      const results = await Promise.all([create({ tag_name, ref: 'main', message: 'a' }), create({ tag_name, ref: 'main' })]);
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 405]);
      const lost = results.find((r) => r.statusCode === 405);
      assert.deepEqual(lost?.json(), { message: `Tag ${tag_name} already exists` });
    }
  });

  test('protected names: only who passes the create level; reporters never', async () => {
    await protect('prod-*');
    expectError(await create({ tag_name: 'prod-1', ref: 'main' }), 405, { message: 'You are not allowed to create this tag as it is protected.' });
    expectStatus(await create({ tag_name: 'prod-1', ref: 'main' }, maintainer.token), 201);
    expectError(await create({ tag_name: fresh(), ref: 'main' }, reporter.token), 403, { message: '403 Forbidden' });
  });

  test('while the repository is read-only: 405 with the reason', async () => {
    await setReadOnly(true);
    try {
      expectError(await create({ tag_name: fresh(), ref: 'main' }), 405, { message: 'The repository is temporarily read-only. Please try again later.' });
    } finally {
      await setReadOnly(false);
    }
  });
});

describe('DELETE /projects/:id/repository/tags/:tag_name', () => {
  const remove = (name: string, token = developer.token, headers: Record<string, string> = {}) => t.del(url(`/${encodeURIComponent(name)}`), { token, headers });
  const tagged = async (name = fresh()) => {
    await updateRef(dir, `refs/tags/${name}`, head);
    return name;
  };

  test('204 and the tag is gone; then 404', async () => {
    const name = await tagged();
    const res = await remove(name);
    expectStatus(res, 204);
    assert.equal(await resolveRef(dir, `refs/tags/${name}`), null);
    expectError(await remove(name), 404, { message: '404 Tag Not Found' });
  });

  test('the tag is looked up before the ability: reporters get 404 for an absent tag, 403 for a present one', async () => {
    expectError(await remove('nope', reporter.token), 404, { message: '404 Tag Not Found' });
    expectError(await remove(await tagged(), reporter.token), 403, { message: '403 Forbidden' });
  });

  test('a protected tag: maintainers only, through the API', async () => {
    const name = await tagged('locked-1');
    await protect('locked-*', ACCESS.DEVELOPER);
    expectError(await remove(name), 400, {
      message: 'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.',
    });
    expectStatus(await remove(name, maintainer.token), 204);
  });

  test('If-Unmodified-Since before the commit\'s authored date: 412', async () => {
    const name = fresh();
    await updateRef(dir, `refs/tags/${name}`, await commitOn(dir, fresh('dated'), { from: 'main', date: new Date('2024-05-01T10:00:00Z') }));
    expectError(await remove(name, developer.token, { 'if-unmodified-since': 'Wed, 01 May 2024 09:00:00 GMT' }), 412, { message: '412 Precondition Failed' });
    expectStatus(await remove(name, developer.token, { 'if-unmodified-since': 'Wed, 01 May 2024 11:00:00 GMT' }), 204);
  });

  test('while the repository is read-only: 400, the tag kept', async () => {
    const name = await tagged();
    await setReadOnly(true);
    try {
      expectError(await remove(name), 400, { message: 'The repository is temporarily read-only. Please try again later.' });
    } finally {
      await setReadOnly(false);
    }
    assert.equal(await resolveRef(dir, `refs/tags/${name}`), head);
  });
});

describe('every change is recorded as a push', () => {
  test('creating and deleting a tag each leave a push event by the caller', async () => {
    const pushes = () => t.deps.db.selectFrom('events').selectAll().where('project_id', '=', project.id).where('action', '=', 'pushed').orderBy('id').execute();
    const before = (await pushes()).length;
    const name = fresh('recorded');
    const created = await create({ tag_name: name, ref: 'main', message: 'Annotated' });
    expectStatus(created, 201);
    expectStatus(await t.del(url(`/${name}`), { token: developer.token }), 204);
    const data = (await pushes()).slice(before).map((e) => [e.author_id, ...((d) => [d.ref, d.ref_type, d.action])(JSON.parse(e.push_data ?? '{}'))]);
    assert.deepEqual(data, [
      [developer.user.id, name, 'tag', 'created'],
      [developer.user.id, name, 'tag', 'removed'],
    ]);
  });
});

describe('reads need download_code', () => {
  test('a guest of a private project is refused', async () => {
    const guest = await t.user();
    const privateProject = await createProject(t);
    await giveRepository(t, privateProject);
    await addMember(t, privateProject, guest.user.id, ACCESS.GUEST);
    expectError(await t.get(url('', privateProject), { token: guest.token }), 403, { message: '403 Forbidden' });
  });
});
