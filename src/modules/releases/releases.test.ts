// Releases through the API on real repositories: the whole entity as a developer and as a guest
// who may not download the code, creation from a tag or from a ref (through the tags service), the
// platform's errors, milestones, evidence collected in the background, order and pages, updates,
// deletion, protected tags, and the tag entity's `release`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { fewestStatementsDuring, statementsDuring } from '../../../test/sql-spy.ts';
import { AUTHOR, commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { getCommit } from '../../git/commits.ts';
import { resolveRef, updateRef } from '../../git/refs.ts';
import { TagEntity } from '../tags/tags.schemas.ts';
import { ReleaseEntity } from './releases.schemas.ts';

let t: TestApp;
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let project: ProjectRow;
let dir: string;
let head: string;
let sequence = 0;
const fresh = (prefix = 'v') => `${prefix}${++sequence}.0`;

before(async () => {
  t = await createTestApp();
  maintainer = await t.user({ username: 'mia' });
  developer = await t.user({ username: 'dev', name: 'Dev Eloper' });
  reporter = await t.user({ username: 'rep' });
  guest = await t.user({ username: 'gus' });
  project = await createProject(t, {
    path: 'app',
    visibility: 'private',
    members: [
      [maintainer.user.id, ACCESS.MAINTAINER],
      [developer.user.id, ACCESS.DEVELOPER],
      [reporter.user.id, ACCESS.REPORTER],
      [guest.user.id, ACCESS.GUEST],
    ],
  });
  ({ dir, head } = await giveRepository(t, project));
});
after(() => t.close());

const url = (suffix = '', p = project) => `/api/v4/projects/${p.id}/releases${suffix}`;
const tagged = async (name = fresh(), commit = head) => {
  await updateRef(dir, `refs/tags/${name}`, commit);
  return name;
};
const create = (body: Record<string, unknown>, token = developer.token) => t.post(url(), { token, body });
let iid = 0;
async function milestone(title: string, p = project, extra: { due_date?: string; start_date?: string; state?: string } = {}) {
  const at = new Date().toISOString();
  return t.deps.db
    .insertInto('milestones')
    .values({ project_id: p.id, group_id: null, iid: ++iid, title, description: `About ${title}`, created_at: at, updated_at: at, due_date: null, start_date: null, ...extra })
    .returningAll()
    .executeTakeFirstOrThrow();
}
const webUrl = `${BASE_URL}/${'root'}/app`;

describe('POST /projects/:id/releases', () => {
  test('from an existing tag: the whole entity, its links newest first, no new tag', async () => {
    const tag = await tagged();
    const commit = await getCommit(dir, head);
    const res = await create({
      tag_name: tag,
      name: 'First',
      description: 'Super **nice**',
      released_at: '2020-01-02T03:04:05Z',
      assets: { links: [{ name: 'linux', url: 'https://example.com/linux', filepath: '/bin/linux-amd64', link_type: 'package' }, { name: 'docs', url: `${webUrl}/-/wikis/docs` }] },
    });
    expectStatus(res, 201);
    expectEntity(res.json(), ReleaseEntity);
    const body = res.json();
    const [docs, linux] = body.assets.links;
    assert.deepEqual(body, {
      name: 'First',
      tag_name: tag,
      description: 'Super **nice**',
      created_at: body.created_at,
      released_at: '2020-01-02T03:04:05.000Z',
      author: { id: developer.user.id, username: 'dev', name: 'Dev Eloper', state: 'active', avatar_url: null, web_url: `${BASE_URL}/dev` },
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
        web_url: `${webUrl}/-/commit/${head}`,
      },
      upcoming_release: false,
      commit_path: `/root/app/-/commit/${head}`,
      tag_path: `/root/app/-/tags/${tag}`,
      assets: {
        count: 6,
        sources: ['zip', 'tar.gz', 'tar.bz2', 'tar'].map((format) => ({ format, url: `${webUrl}/-/archive/${tag}/app-${tag}.${format}` })),
        links: [
          { id: docs.id, name: 'docs', url: `${webUrl}/-/wikis/docs`, direct_asset_url: `${webUrl}/-/wikis/docs`, external: false, link_type: 'other' },
          { id: linux.id, name: 'linux', url: 'https://example.com/linux', direct_asset_url: `${webUrl}/-/releases/${tag}/downloads/bin/linux-amd64`, external: true, link_type: 'package' },
        ],
      },
      evidences: [],
      _links: { self: `${webUrl}/-/releases/${tag}`, edit_url: `${webUrl}/-/releases/${tag}/edit` },
    });
    assert.ok(linux.id < docs.id);
  });

  test('from a ref: the tag is made through the tags service, the name defaults to it, released_at to now; evidence follows', async () => {
    const tag = fresh();
    const before = Date.now();
    const res = await create({ tag_name: tag, ref: 'main' });
    expectStatus(res, 201);
    expectEntity(res.json(), ReleaseEntity);
    assert.equal(await resolveRef(dir, `refs/tags/${tag}`), head);
    const body = res.json();
    assert.equal(body.name, tag);
    assert.equal(body.description, null);
    assert.ok(Date.parse(body.released_at) >= before - 1000 && Date.parse(body.released_at) <= Date.now());
    assert.deepEqual(body.evidences, []);
    assert.equal(body.milestones, undefined);

    // The evidence is collected in the background, as the platform's worker does.
    await t.runJobs();
    const shown = (await t.get(url(`/${tag}`), { token: reporter.token })).json();
    expectEntity(shown, ReleaseEntity);
    assert.equal(shown.evidences.length, 1);
    assert.match(shown.evidences[0].sha, /^[0-9a-f]{64}$/);
    assert.match(shown.evidences[0].filepath, new RegExp(`^${webUrl}/-/releases/${tag.replace(/\./g, '\\.')}/evidences/\\d+\\.json$`));
    const stored = await t.deps.db.selectFrom('release_evidences').select('summary').executeTakeFirstOrThrow();
    assert.equal(JSON.parse(stored.summary).release.tag_name, tag);

    // The tag shows its release.
    const tagRes = await t.get(`/api/v4/projects/${project.id}/repository/tags/${tag}`, { token: reporter.token });
    expectEntity(tagRes.json(), TagEntity);
    assert.deepEqual(tagRes.json().release, { tag_name: tag, description: null });
  });

  test('released_at: a zone is honoured, none means UTC; a release dated before or after now collects no evidence', async () => {
    const local = (await create({ tag_name: await tagged(), released_at: '2019-03-25T10:00:00+09:00' })).json();
    assert.equal(local.released_at, '2019-03-25T01:00:00.000Z');
    const bare = (await create({ tag_name: await tagged(), released_at: '2019-03-25 10:00:00' })).json();
    assert.equal(bare.released_at, '2019-03-25T10:00:00.000Z');
    const future = (await create({ tag_name: await tagged(), released_at: '2999-01-01T00:00:00Z' })).json();
    assert.equal(future.upcoming_release, true);
    assert.deepEqual(await t.runJobs(), []);
    expectError(await create({ tag_name: await tagged(), released_at: 'soon' }), 400, { error: 'released_at is invalid' });
  });

  test('milestones by title, in date then title order, with their issue counts', async () => {
    await milestone('m-late', project, { due_date: '2030-01-01' });
    const early = await milestone('m-early', project, { due_date: '2020-01-01' });
    await milestone('m-none');
    const at = new Date().toISOString();
    for (const state of ['opened', 'closed', 'closed']) {
      await t.deps.db.insertInto('issues').values({ project_id: project.id, iid: ++iid, title: 'Bug', state, milestone_id: early.id, created_at: at, updated_at: at }).execute();
    }
    const res = await create({ tag_name: await tagged(), milestones: ['m-none', 'm-late', 'm-early'] });
    expectStatus(res, 201);
    expectEntity(res.json(), ReleaseEntity);
    const milestones = res.json().milestones;
    assert.deepEqual(milestones.map((m: { title: string }) => m.title), ['m-early', 'm-late', 'm-none']);
    assert.deepEqual(milestones[0], {
      id: early.id,
      iid: early.iid,
      project_id: project.id,
      title: 'm-early',
      description: 'About m-early',
      state: 'active',
      created_at: early.created_at,
      updated_at: early.updated_at,
      due_date: '2020-01-01',
      start_date: null,
      expired: true,
      web_url: `${webUrl}/-/milestones/${early.iid}`,
      issue_stats: { total: 3, closed: 2 },
    });
    assert.equal(milestones[1].expired, false);
    assert.equal(milestones[2].expired, null);
    assert.deepEqual(milestones[2].issue_stats, { total: 0, closed: 0 });
  });

  test('errors as the platform answers them, nothing written', async () => {
    const tag = await tagged();
    expectStatus(await create({ tag_name: tag }), 201);
    const releases = await t.count('releases');
    expectError(await create({ tag_name: tag }), 409, { message: 'Release already exists' });
    expectError(await create({ tag_name: await tagged(), milestones: ['nope', 'm-late', 'gone'] }), 400, { message: 'Milestone(s) not found: nope, gone' });
    const other = await createProject(t, { visibility: 'public' });
    await milestone('theirs', other);
    expectError(await create({ tag_name: await tagged(), milestones: 'theirs' }), 400, { message: 'Milestone(s) not found: theirs' });
    expectError(await create({ tag_name: fresh() }), 422, { message: 'Ref is not specified' });
    expectError(await create({ tag_name: 'HEAD', ref: 'main' }), 400, { message: 'Tag name invalid' });
    expectError(await create({ tag_name: fresh(), ref: 'no-such-branch' }), 400, { message: 'Target no-such-branch is invalid' });
    expectError(await create({}), 400, { error: 'tag_name is missing' });
    const links = (list: unknown[]) => create({ tag_name: tag + '-x', ref: 'main', assets: { links: list } });
    expectError(await links([{ name: 'a', url: 'javascript:alert(1)' }, { name: ' ', url: 'https://x.example/a' }]), 400, {
      message: 'Validation failed: Links url is blocked: Only allowed schemes are http, https, ftp, Links name can\'t be blank',
    });
    expectError(await links([{ name: 'a', url: 'https://x.example/a', filepath: 'bin/app' }]), 400, { message: 'Validation failed: Links filepath is in an invalid format' });
    expectError(await links([{ name: 'a', url: 'https://x.example/a' }, { name: 'a', url: 'https://x.example/b' }]), 400, { message: 'Validation failed: Links have duplicate values (a)' });
    expectError(await links([{ name: 'a', url: 'https://x.example/a', link_type: 'binary' }]), 400, { message: "'binary' is not a valid link_type" });
    expectError(await links([{ url: 'https://x.example/a' }]), 400, { error: 'assets[links][][name] is missing' });
    assert.equal(await t.count('releases'), releases);
    assert.equal(await resolveRef(dir, `refs/tags/${tag}-x`), null);
  });

  test('a protected tag: developers who may not create it are refused ("Access Denied"), maintainers are not', async () => {
    expectStatus(await t.post(`/api/v4/projects/${project.id}/protected_tags`, { token: ROOT_TOKEN, body: { name: 'stable-*', create_access_level: ACCESS.MAINTAINER } }), 201);
    const tag = await tagged('stable-1');
    expectError(await create({ tag_name: tag }), 403, { message: 'Access Denied' });
    const res = await create({ tag_name: tag }, maintainer.token);
    expectStatus(res, 201);
    expectEntity(res.json(), ReleaseEntity);
    // A developer reads it without its edit_url, and may neither change nor delete it.
    const read = (await t.get(url(`/${tag}`), { token: developer.token })).json();
    assert.deepEqual(read._links, { self: `${webUrl}/-/releases/${tag}` });
    expectError(await t.put(url(`/${tag}`), { token: developer.token, body: { name: 'x' } }), 403, { message: '403 Forbidden' });
    expectError(await t.del(url(`/${tag}`), { token: developer.token }), 403, { message: '403 Forbidden' });
    expectError(await create({ tag_name: 'stable-2', ref: 'main' }), 403, { message: 'Access Denied' });
  });
});

describe('GET /projects/:id/releases', () => {
  let listed: ProjectRow;
  let listedDir: string;

  before(async () => {
    listed = await createProject(t, { visibility: 'private', members: [[developer.user.id, ACCESS.DEVELOPER], [guest.user.id, ACCESS.GUEST]] });
    ({ dir: listedDir } = await giveRepository(t, listed));
    const commit = await commitOn(listedDir, 'main');
    const days = [3, 1, 2];
    for (const [i, day] of days.entries()) {
      await updateRef(listedDir, `refs/tags/r${i}`, commit);
      const body = { tag_name: `r${i}`, released_at: `2024-01-0${day}T00:00:00Z`, description: `# R${i}`, assets: { links: [{ name: 'l', url: `https://example.com/${i}` }] } };
      expectStatus(await t.post(url('', listed), { token: developer.token, body }), 201);
    }
  });

  const names = (res: { json(): unknown }) => (res.json() as { tag_name: string }[]).map((r) => r.tag_name);
  const list = (query: Record<string, string> = {}, token = developer.token) => t.get(url('', listed), { token, query });

  test('by released_at, newest first unless sort=asc; by created_at', async () => {
    const res = await list();
    expectStatus(res, 200);
    expectEntities(res.json(), ReleaseEntity);
    assert.deepEqual(names(res), ['r0', 'r2', 'r1']);
    assert.deepEqual(names(await list({ sort: 'asc' })), ['r1', 'r2', 'r0']);
    assert.deepEqual(names(await list({ order_by: 'created_at', sort: 'asc' })), ['r0', 'r1', 'r2']);
    assert.deepEqual(names(await list({ order_by: 'created_at' })), ['r2', 'r1', 'r0']);
    expectError(await list({ order_by: 'name' }), 400, { error: 'order_by does not have a valid value' });
  });

  test('pages, cut in the database; a page costs the same number of queries whatever its size', async () => {
    const res = await list({ per_page: '2', page: '2' });
    assert.deepEqual(names(res), ['r1']);
    assert.deepEqual(['x-page', 'x-per-page', 'x-total', 'x-total-pages', 'x-prev-page', 'x-next-page'].map((h) => res.headers[h]), ['2', '2', '3', '2', '1', '']);
    const one = await fewestStatementsDuring(t, () => list({ per_page: '1' }));
    const three = await fewestStatementsDuring(t, () => list({ per_page: '3' }));
    assert.equal(three, one);
  });

  test('include_html_description renders the Markdown', async () => {
    const res = await list({ include_html_description: 'true', per_page: '1' });
    expectEntities(res.json(), ReleaseEntity);
    assert.equal(res.json()[0].description_html, '<h1>R0</h1>');
    assert.equal((await list({ per_page: '1' })).json()[0].description_html, undefined);
  });

  test('a guest of a private project: no tag, commit, sources, evidences or paths, and a name of its id', async () => {
    const res = await list({ per_page: '1' }, guest.token);
    expectStatus(res, 200);
    expectEntities(res.json(), ReleaseEntity);
    const [release] = res.json();
    const row = await t.deps.db.selectFrom('releases').select('id').where('project_id', '=', listed.id).where('tag', '=', 'r0').executeTakeFirstOrThrow();
    assert.deepEqual(Object.keys(release), ['name', 'description', 'created_at', 'released_at', 'author', 'upcoming_release', 'assets', '_links']);
    assert.equal(release.name, `Release-${row.id}`);
    assert.deepEqual(Object.keys(release.assets), ['count', 'links']);
    assert.equal(release.assets.count, 1);
    // A single release needs download_code.
    expectError(await t.get(url('/r0', listed), { token: guest.token }), 403, { message: '403 Forbidden' });
  });
});

describe('GET /projects/:id/releases/:tag_name', () => {
  test('absent: 404; a tag name with a slash, encoded', async () => {
    expectError(await t.get(url('/nope'), { token: reporter.token }), 404, { message: '404 Not Found' });
    const tag = await tagged('debian/2.4.0-1');
    expectStatus(await create({ tag_name: tag }), 201);
    const res = await t.get(url(`/${encodeURIComponent(tag)}`), { token: reporter.token });
    expectStatus(res, 200);
    expectEntity(res.json(), ReleaseEntity);
    assert.equal(res.json().tag_path, `/root/app/-/tags/${tag}`);
    assert.equal(res.json()._links.self, `${webUrl}/-/releases/debian%2F2.4.0-1`);
    assert.equal(res.json().assets.sources[0].url, `${webUrl}/-/archive/${tag}/app-debian-2.4.0-1.zip`);
  });

  test('milestones are hidden from callers who may read neither issues nor merge requests', async () => {
    const pub = await createProject(t, { visibility: 'public', members: [[developer.user.id, ACCESS.DEVELOPER]] });
    const repo = await giveRepository(t, pub);
    await updateRef(repo.dir, 'refs/tags/v1', repo.head);
    await milestone('pm', pub);
    expectStatus(await t.post(url('', pub), { token: developer.token, body: { tag_name: 'v1', milestones: ['pm'] } }), 201);
    const outsider = await t.user();
    assert.equal((await t.get(url('/v1', pub), { token: outsider.token })).json().milestones.length, 1);
    expectStatus(await t.put(`/api/v4/projects/${pub.id}`, { token: ROOT_TOKEN, body: { issues_access_level: 'private' } }), 200);
    assert.equal((await t.get(url('/v1', pub), { token: outsider.token })).json().milestones.length, 1);
    expectStatus(await t.put(`/api/v4/projects/${pub.id}`, { token: ROOT_TOKEN, body: { merge_requests_access_level: 'private' } }), 200);
    const hidden = await t.get(url('/v1', pub), { token: outsider.token });
    expectEntity(hidden.json(), ReleaseEntity);
    assert.equal(hidden.json().milestones, undefined);
    assert.equal((await t.get(url('/v1', pub), { token: developer.token })).json().milestones.length, 1);
    // Anonymous callers read the releases of public projects.
    expectStatus(await t.get(url('', pub)), 200);
  });

  test('a repository closed to the caller: 403 on every release route', async () => {
    const closed = await createProject(t, { visibility: 'public' });
    expectStatus(await t.put(`/api/v4/projects/${closed.id}`, { token: ROOT_TOKEN, body: { repository_access_level: 'disabled' } }), 200);
    const outsider = await t.user();
    expectError(await t.get(url('', closed), { token: outsider.token }), 403, { message: '403 Forbidden' });
  });
});

describe('PUT /projects/:id/releases/:tag_name', () => {
  test('changes what is given, milestones replaced or removed', async () => {
    const tag = await tagged();
    await milestone('u1');
    await milestone('u2');
    expectStatus(await create({ tag_name: tag, name: 'Old', description: 'Old notes', released_at: '2018-03-01T22:00:00Z', milestones: ['u1'] }), 201);
    const res = await t.put(url(`/${tag}`), { token: developer.token, body: { description: 'Best release ever!' } });
    expectStatus(res, 200);
    expectEntity(res.json(), ReleaseEntity);
    assert.equal(res.json().description, 'Best release ever!');
    assert.equal(res.json().name, 'Old');
    assert.equal(res.json().released_at, '2018-03-01T22:00:00.000Z');
    assert.deepEqual(res.json().milestones.map((m: { title: string }) => m.title), ['u1']);
    const swapped = await t.put(url(`/${tag}`), { token: developer.token, body: { milestones: ['u2'], released_at: '2015-10-10T05:00:00Z', name: 'New' } });
    assert.deepEqual(swapped.json().milestones.map((m: { title: string }) => m.title), ['u2']);
    assert.equal(swapped.json().released_at, '2015-10-10T05:00:00.000Z');
    const cleared = await t.put(url(`/${tag}`), { token: developer.token, body: { milestones: [] } });
    expectEntity(cleared.json(), ReleaseEntity);
    assert.equal(cleared.json().milestones, undefined);
  });

  test('errors: params empty, unknown milestones, a missing release (403), a tag gone (404)', async () => {
    const tag = await tagged();
    expectStatus(await create({ tag_name: tag }), 201);
    expectError(await t.put(url(`/${tag}`), { token: developer.token, body: {} }), 400, { message: 'params is empty' });
    expectError(await t.put(url(`/${tag}`), { token: developer.token, body: { sha: 'x' } }), 400, { message: 'params is empty' });
    expectError(await t.put(url(`/${tag}`), { token: developer.token, body: { milestones: ['zzz'] } }), 400, { message: 'Milestone(s) not found: zzz' });
    expectError(await t.put(url('/no-release'), { token: developer.token, body: { name: 'x' } }), 403, { message: '403 Forbidden' });
    expectError(await t.put(url(`/${tag}`), { token: reporter.token, body: { name: 'x' } }), 403, { message: '403 Forbidden' });
    await t.del(`/api/v4/projects/${project.id}/repository/tags/${tag}`, { token: developer.token });
    // Deleting the tag through the API took the release with it.
    expectError(await t.get(url(`/${tag}`), { token: developer.token }), 404, { message: '404 Not Found' });
    const orphan = await tagged();
    expectStatus(await create({ tag_name: orphan }), 201);
    await updateRef(dir, `refs/tags/${orphan}`, '0'.repeat(40), head);
    expectError(await t.put(url(`/${orphan}`), { token: developer.token, body: { name: 'x' } }), 404, { message: 'Tag does not exist' });
  });
});

describe('DELETE /projects/:id/releases/:tag_name', () => {
  test('answers the release as it reads once deleted; the tag stays, without a release', async () => {
    const tag = await tagged();
    expectStatus(await create({ tag_name: tag, milestones: ['u1'], assets: { links: [{ name: 'a', url: 'https://example.com/a' }] } }), 201);
    const res = await t.del(url(`/${tag}`), { token: developer.token });
    expectStatus(res, 200);
    expectEntity(res.json(), ReleaseEntity);
    assert.deepEqual(res.json().assets.links, []);
    assert.equal(res.json().assets.count, 4);
    assert.equal(res.json().milestones, undefined);
    assert.equal(await resolveRef(dir, `refs/tags/${tag}`), head);
    expectError(await t.get(url(`/${tag}`), { token: developer.token }), 404, { message: '404 Not Found' });
    const tagRes = await t.get(`/api/v4/projects/${project.id}/repository/tags/${tag}`, { token: developer.token });
    assert.equal(tagRes.json().release, null);
    expectError(await t.del(url(`/${tag}`), { token: developer.token }), 403, { message: '403 Forbidden' });
  });
});

describe('the tags list', () => {
  test('shows each tag\'s release, read in one query for the page', async () => {
    const res = await t.get(`/api/v4/projects/${project.id}/repository/tags`, { token: developer.token, query: { per_page: '100' } });
    expectEntities(res.json(), TagEntity);
    const withRelease = (res.json() as { release: unknown }[]).filter((tag) => tag.release !== null);
    assert.ok(withRelease.length > 3);
    const statements = await statementsDuring(t, () => t.get(`/api/v4/projects/${project.id}/repository/tags`, { token: developer.token, query: { per_page: '100' } }));
    assert.equal(statements.filter((sql) => /from "releases"/.test(sql)).length, 1);
  });
});
