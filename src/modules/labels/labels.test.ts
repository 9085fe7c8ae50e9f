// Project labels through the API: the entity, colours by name, the model's refusals in the
// platform's words, the list with its ancestor groups, search and pages, lookups by id or title,
// updates that keep assignments, priorities, deletion with what hangs on a label, the deprecated
// routes, promotion to the group (merging the labels of that title), and subscriptions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGroup, createProject } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { insertIssue, linkLabel } from '../../../test/fixtures/labelled-issues.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { GroupLabelEntity, ProjectLabelEntity } from './labels.schemas.ts';

let t: TestApp;
let maintainer: TestUser;
let reporter: TestUser;
let top: NamespaceRow;
let sub: NamespaceRow;
let project: ProjectRow;
let sibling: ProjectRow;
let personal: ProjectRow;
let topLabel: number;
let subLabel: number;

before(async () => {
  t = await createTestApp();
  maintainer = await t.user({ username: 'mia' });
  reporter = await t.user({ username: 'rep' });
  top = await createGroup(t, { path: 'top', name: 'Top', visibility: 'public' });
  sub = await createGroup(t, { path: 'sub', name: 'Sub', visibility: 'public', parent: top, members: [[maintainer.user.id, ACCESS.MAINTAINER]] });
  const members: [number, number][] = [[reporter.user.id, ACCESS.REPORTER]];
  project = await createProject(t, { path: 'app', visibility: 'public', namespace: sub, members });
  sibling = await createProject(t, { path: 'lib', visibility: 'public', namespace: sub });
  personal = await createProject(t, { path: 'mine', visibility: 'private', members: [[maintainer.user.id, ACCESS.MAINTAINER]] });
  topLabel = (await groupLabel(top, 'from-top', '#FFEEDD')).id;
  subLabel = (await groupLabel(sub, 'from-sub', '#123')).id;
});
after(() => t.close());

const url = (suffix = '', p: { id: number } = project) => `/api/v4/projects/${p.id}/labels${suffix}`;
type Label = { id: number; name: string; priority?: number | null; subscribed?: boolean };
const names = (res: { json(): unknown }) => (res.json() as Label[]).map((l) => l.name);
let sequence = 0;
const fresh = (prefix = 'label') => `${prefix}-${++sequence}`;

async function create(body: Record<string, unknown>, p: { id: number } = project, token = maintainer.token): Promise<Label> {
  const res = await t.post(url('', p), { token, body });
  expectStatus(res, 201);
  return res.json() as Label;
}

async function groupLabel(group: NamespaceRow, name: string, color = '#00FF00'): Promise<Label> {
  const res = await t.post(`/api/v4/groups/${group.id}/labels`, { token: ROOT_TOKEN, body: { name, color } });
  expectStatus(res, 201);
  return res.json() as Label;
}

describe('POST /projects/:id/labels', () => {
  test('the whole entity: colour, text colour, description and its HTML, priority; no counts', async () => {
    const res = await t.post(url(), { token: reporter.token, body: { name: 'bug', color: '#d9534f', description: 'Broken <em>when</em> 1 < 2 & "x", see https://example.com/a?b=1.', priority: 3 } });
    expectStatus(res, 201);
    expectEntity(res.json(), ProjectLabelEntity);
    const body = res.json() as Label;
    assert.deepEqual(body, {
      id: body.id,
      name: 'bug',
      color: '#d9534f',
      description: 'Broken when 1 < 2 & "x", see https://example.com/a?b=1.',
      description_html:
        'Broken when 1 &lt; 2 &amp; &quot;x&quot;, see <a href="https://example.com/a?b=1" rel="nofollow noreferrer noopener" target="_blank">https://example.com/a?b=1</a>.',
      text_color: '#FFFFFF',
      subscribed: false,
      priority: 3,
      is_project_label: true,
    });
  });

  test('CSS colour names become their hex codes; a light colour gets dark text; titles lose HTML and surrounding spaces', async () => {
    const named = await t.post(url(), { token: maintainer.token, body: { name: ' <b>light</b> one ', color: ' LightYellow ' } });
    expectStatus(named, 201);
    assert.deepEqual(
      (({ name, color, text_color, description, description_html }) => ({ name, color, text_color, description, description_html }))(named.json()),
      { name: 'light one', color: '#FFFFE0', text_color: '#333333', description: null, description_html: null },
    );
    const short = await create({ name: fresh(), color: '#fff' });
    assert.equal((short as unknown as { text_color: string }).text_color, '#333333');
  });

  test('refusals in the platform’s words', async () => {
    expectError(await t.post(url(), { token: maintainer.token, body: {} }), 400, { error: 'name is missing, color is missing' });
    expectError(await t.post(url(), { token: maintainer.token, body: { name: fresh(), color: 'cyan' } }), 400, { message: { color: ['must be a valid color code'] } });
    expectError(await t.post(url(), { token: maintainer.token, body: { name: fresh(), color: '#12345' } }), 400, { message: { color: ['must be a valid color code'] } });
    expectError(await t.post(url(), { token: maintainer.token, body: { name: '  ', color: '' } }), 400, {
      message: { color: ['must be a valid color code'], title: ["can't be blank", 'is invalid'] },
    });
    expectError(await t.post(url(), { token: maintainer.token, body: { name: 'a,b', color: '#000' } }), 400, { message: { title: ['is invalid'] } });
    expectError(await t.post(url(), { token: maintainer.token, body: { name: 'x'.repeat(256), color: '#000' } }), 400, {
      message: { title: ['is too long (maximum is 255 characters)'] },
    });
    expectError(await t.post(url(), { token: maintainer.token, body: { name: fresh(), color: '#000', priority: -1 } }), 400, {
      message: { priority: ['must be greater than or equal to 0'] },
    });
    expectError(await t.post(url(), { token: maintainer.token, body: { name: fresh(), color: '#000', priority: 'high' } }), 400, { error: 'priority is invalid' });
  });

  test('a title the project or one of its groups has: 409; another project may take it', async () => {
    const title = fresh('taken');
    await create({ name: title, color: '#000' });
    expectError(await t.post(url(), { token: maintainer.token, body: { name: title, color: '#000' } }), 409, { message: 'Label already exists' });
    expectError(await t.post(url(), { token: maintainer.token, body: { name: 'from-top', color: '#000' } }), 409, { message: 'Label already exists' });
    await create({ name: title, color: '#000' }, sibling, ROOT_TOKEN);
  });
});

describe('GET /projects/:id/labels', () => {
  let listed: ProjectRow;

  before(async () => {
    listed = await createProject(t, { visibility: 'public', namespace: sub });
    for (const name of ['delta', 'alpha', 'charlie']) await create({ name, color: '#000', description: `about ${name}` }, listed, ROOT_TOKEN);
  });

  test('by title, with the labels of the project’s groups; is_project_label tells them apart', async () => {
    const res = await t.get(url('', listed), { token: reporter.token });
    expectStatus(res, 200);
    expectEntities(res.json(), ProjectLabelEntity);
    assert.deepEqual(names(res), ['alpha', 'charlie', 'delta', 'from-sub', 'from-top']);
    assert.deepEqual(
      (res.json() as { name: string; is_project_label: boolean }[]).map((l) => l.is_project_label),
      [true, true, true, false, false],
    );
    for (const label of res.json() as Record<string, unknown>[]) assert.equal('open_issues_count' in label, false);
  });

  test('include_ancestor_groups=false keeps the project’s own group', async () => {
    assert.deepEqual(names(await t.get(url('', listed), { token: reporter.token, query: { include_ancestor_groups: 'false' } })), ['alpha', 'charlie', 'delta', 'from-sub']);
  });

  test('search: titles and descriptions, any word however short', async () => {
    assert.deepEqual(names(await t.get(url('', listed), { token: reporter.token, query: { search: 'ALPHA' } })), ['alpha']);
    assert.deepEqual(names(await t.get(url('', listed), { token: reporter.token, query: { search: 'about a' } })), ['alpha', 'charlie', 'delta']);
    assert.deepEqual(names(await t.get(url('', listed), { token: reporter.token, query: { search: 'from' } })), ['from-sub', 'from-top']);
  });

  test('pages and headers', async () => {
    const res = await t.get(url('', listed), { token: reporter.token, query: { per_page: '2', page: '2' } });
    assert.deepEqual(names(res), ['delta', 'from-sub']);
    assert.deepEqual(
      ['x-page', 'x-per-page', 'x-total', 'x-total-pages', 'x-prev-page', 'x-next-page'].map((h) => res.headers[h]),
      ['2', '2', '5', '3', '1', '3'],
    );
    assert.match(String(res.headers.link), new RegExp(`<${BASE_URL}/api/v4/projects/${listed.id}/labels\\?id=${listed.id}&include_ancestor_groups=true&page=3&per_page=2&with_counts=false>; rel="next"`));
  });

  test('with_counts=true adds the three counts', async () => {
    const res = await t.get(url('', listed), { token: reporter.token, query: { with_counts: 'true', search: 'alpha' } });
    expectEntities(res.json(), ProjectLabelEntity);
    const [alpha] = res.json() as Record<string, unknown>[];
    assert.deepEqual([alpha.open_issues_count, alpha.closed_issues_count, alpha.open_merge_requests_count], [0, 0, 0]);
  });

  test('a personal project has only its own labels', async () => {
    await create({ name: 'own', color: '#000' }, personal);
    assert.deepEqual(names(await t.get(url('', personal), { token: maintainer.token })), ['own']);
  });

  test('anonymous callers: 401, even on a public project', async () => {
    expectError(await t.get(url('', listed)), 401, { message: '401 Unauthorized' });
  });
});

describe('GET /projects/:id/labels/:label_id', () => {
  test('by id or by URL-encoded title; a project label before a group label of the same title', async () => {
    const label = await create({ name: 'needs review/ui', color: '#000' });
    for (const key of [String(label.id), encodeURIComponent('needs review/ui')]) {
      const res = await t.get(url(`/${key}`), { token: reporter.token });
      expectStatus(res, 200);
      expectEntity(res.json(), ProjectLabelEntity);
      assert.equal((res.json() as Label).id, label.id);
    }
    // A group label may take a title its projects already have.
    const own = await create({ name: 'shadowed', color: '#000' }, sibling, ROOT_TOKEN);
    const shadow = await groupLabel(top, 'shadowed');
    assert.equal(((await t.get(url('/shadowed', sibling), { token: ROOT_TOKEN })).json() as Label).id, own.id);
    assert.equal(((await t.get(url(`/${shadow.id}`, sibling), { token: ROOT_TOKEN })).json() as Label).id, shadow.id);
  });

  test('group labels by id, unless include_ancestor_groups=false leaves their group out', async () => {
    expectStatus(await t.get(url(`/${topLabel}`), { token: reporter.token }), 200);
    expectError(await t.get(url(`/${topLabel}`), { token: reporter.token, query: { include_ancestor_groups: 'false' } }), 404, { message: '404 Label Not Found' });
    expectStatus(await t.get(url(`/${subLabel}`), { token: reporter.token, query: { include_ancestor_groups: 'false' } }), 200);
  });

  test('absent, or another project’s: 404', async () => {
    const other = await create({ name: fresh(), color: '#000' }, personal);
    for (const key of ['nope', String(other.id), '99999999999999999999']) {
      expectError(await t.get(url(`/${key}`), { token: reporter.token }), 404, { message: '404 Label Not Found' });
    }
  });
});

describe('PUT /projects/:id/labels/:label_id', () => {
  test('renames (keeping the issues it is on), recolours by name, describes, prioritizes', async () => {
    const label = await create({ name: fresh('old'), color: '#000' });
    const issue = await insertIssue(t, project.id, { labelIds: [label.id] });
    const name = fresh('new');
    const res = await t.put(url(`/${label.id}`), { token: reporter.token, body: { new_name: name, color: 'navy', description: 'Renamed', priority: 7 } });
    expectStatus(res, 200);
    expectEntity(res.json(), ProjectLabelEntity);
    assert.deepEqual(
      (({ id, name, color, description, priority }) => ({ id, name, color, description, priority }))(res.json()),
      { id: label.id, name, color: '#000080', description: 'Renamed', priority: 7 },
    );
    const link = await t.deps.db.selectFrom('label_links').select('label_id').where('target_id', '=', issue).executeTakeFirstOrThrow();
    assert.equal(link.label_id, label.id);
  });

  test('priority alone: set, changed, and removed by null or a blank value', async () => {
    const label = await create({ name: fresh(), color: '#000', priority: 1 });
    assert.equal(((await t.put(url(`/${label.id}`), { token: reporter.token, body: { priority: 2 } })).json() as Label).priority, 2);
    assert.equal(((await t.put(url(`/${label.id}`), { token: reporter.token, body: { priority: null } })).json() as Label).priority, null);
    await t.put(url(`/${label.id}`), { token: reporter.token, body: { priority: 5 } });
    assert.equal(((await t.put(url(`/${label.id}`), { token: reporter.token, form: 'priority=' })).json() as Label).priority, null);
  });

  test('a blank name or description changes nothing', async () => {
    const label = await create({ name: fresh(), color: '#000', description: 'Kept' });
    const res = await t.put(url(`/${label.id}`), { token: reporter.token, body: { new_name: ' ', description: '' } });
    expectStatus(res, 200);
    assert.deepEqual([(res.json() as Label).name, (res.json() as { description: string }).description], [label.name, 'Kept']);
  });

  test('refusals: nothing to change, a taken title, its group’s title, a bad colour', async () => {
    const label = await create({ name: fresh(), color: '#000' });
    const other = await create({ name: fresh(), color: '#000' });
    expectError(await t.put(url(`/${label.id}`), { token: reporter.token, body: {} }), 400, {
      error: 'new_name, color, description, priority are missing, at least one parameter must be provided',
    });
    expectError(await t.put(url(`/${label.id}`), { token: reporter.token, body: { new_name: other.name } }), 400, { message: { title: ['has already been taken'] } });
    expectError(await t.put(url(`/${label.id}`), { token: reporter.token, body: { new_name: 'from-sub' } }), 400, {
      message: { title: ['already exists at group level for Sub. Please choose another one.'] },
    });
    expectError(await t.put(url(`/${label.id}`), { token: reporter.token, body: { color: 'nocolour' } }), 400, { message: { color: ['must be a valid color code'] } });
    expectError(await t.put(url('/nope'), { token: reporter.token, body: { color: '#fff' } }), 404, { message: '404 Label Not Found' });
  });

  test('a group label: its group’s reporters may change it, a project reporter only its priority here', async () => {
    expectError(await t.put(url(`/${subLabel}`), { token: reporter.token, body: { color: '#fff' } }), 403, { message: '403 Forbidden' });
    const prioritized = await t.put(url(`/${subLabel}`), { token: reporter.token, body: { priority: 4 } });
    expectStatus(prioritized, 200);
    assert.deepEqual([(prioritized.json() as Label).priority, (prioritized.json() as { color: string }).color], [4, '#123']);
    const recoloured = await t.put(url(`/${subLabel}`), { token: maintainer.token, body: { description: 'From the group' } });
    expectStatus(recoloured, 200);
    assert.equal((recoloured.json() as { description: string }).description, 'From the group');
    // Above the project's own group, labels are not found for changes.
    expectError(await t.put(url(`/${topLabel}`), { token: ROOT_TOKEN, body: { priority: 1 } }), 404, { message: '404 Label Not Found' });
  });

  test('the deprecated PUT /projects/:id/labels names the label by name or label_id, exactly one', async () => {
    const label = await create({ name: fresh(), color: '#000' });
    const byName = await t.put(url(), { token: reporter.token, body: { name: label.name, color: '#111' } });
    expectStatus(byName, 200);
    assert.equal((byName.json() as { color: string }).color, '#111');
    const byId = await t.put(url(), { token: reporter.token, body: { label_id: label.id, color: '#222' } });
    assert.equal((byId.json() as { color: string }).color, '#222');
    expectError(await t.put(url(), { token: reporter.token, body: { color: '#222' } }), 400, { error: 'label_id, name are missing, exactly one parameter must be provided' });
    expectError(await t.put(url(), { token: reporter.token, body: { label_id: label.id, name: label.name, color: '#222' } }), 400, { error: 'label_id, name are mutually exclusive' });
  });
});

describe('DELETE /projects/:id/labels/:label_id', () => {
  test('takes its links, priorities and subscriptions with it; 204', async () => {
    const label = await create({ name: fresh(), color: '#000', priority: 1 });
    const issue = await insertIssue(t, project.id, { labelIds: [label.id] });
    expectStatus(await t.post(url(`/${label.id}/subscribe`), { token: reporter.token }), 201);
    const res = await t.del(url(`/${encodeURIComponent(label.name)}`), { token: reporter.token });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    const db = t.deps.db;
    assert.equal((await db.selectFrom('label_links').select('id').where('target_id', '=', issue).execute()).length, 0);
    assert.equal((await db.selectFrom('label_priorities').select('id').where('label_id', '=', label.id).execute()).length, 0);
    assert.equal((await db.selectFrom('subscriptions').select('id').where('subscribable_id', '=', label.id).where('subscribable_type', '=', 'Label').execute()).length, 0);
    expectError(await t.del(url(`/${label.id}`), { token: reporter.token }), 404, { message: '404 Label Not Found' });
  });

  test('a group label: 403 to a project reporter; If-Unmodified-Since before its last change: 412', async () => {
    expectError(await t.del(url(`/${subLabel}`), { token: reporter.token }), 403, { message: '403 Forbidden' });
    const label = await create({ name: fresh(), color: '#000' });
    expectError(await t.del(url(`/${label.id}`), { token: reporter.token, headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } }), 412, {
      message: '412 Precondition Failed',
    });
  });

  test('the deprecated DELETE /projects/:id/labels with name or label_id', async () => {
    const one = await create({ name: fresh(), color: '#000' });
    const two = await create({ name: fresh(), color: '#000' });
    expectStatus(await t.del(url(), { token: reporter.token, body: { name: one.name } }), 204);
    expectStatus(await t.del(url(), { token: reporter.token, query: { label_id: String(two.id) } }), 204);
    expectError(await t.del(url(), { token: reporter.token }), 400, { error: 'label_id, name are missing, exactly one parameter must be provided' });
  });
});

describe('PUT /projects/:id/labels/:label_id/promote', () => {
  test('the label becomes its group’s, merging the group’s projects’ labels of that title: links, priorities, subscriptions move', async () => {
    const title = fresh('promoted');
    const mine = await create({ name: title, color: '#AB0000', description: 'Promote me', priority: 2 });
    const theirs = await create({ name: title, color: '#00AB00' }, sibling, ROOT_TOKEN);
    const mineIssue = await insertIssue(t, project.id, { labelIds: [mine.id] });
    const theirIssue = await insertIssue(t, sibling.id, { labelIds: [theirs.id] });
    expectStatus(await t.post(url(`/${mine.id}/subscribe`), { token: reporter.token }), 201);

    const res = await t.put(url(`/${encodeURIComponent(title)}/promote`), { token: maintainer.token });
    expectStatus(res, 200);
    expectEntity(res.json(), GroupLabelEntity);
    const promoted = res.json() as Label;
    assert.deepEqual(promoted, {
      id: promoted.id,
      name: title,
      color: '#AB0000',
      description: 'Promote me',
      description_html: 'Promote me',
      text_color: '#FFFFFF',
      subscribed: false,
    });
    const db = t.deps.db;
    const labels = await db.selectFrom('labels').select(['id', 'group_id', 'project_id']).where('title', '=', title).execute();
    assert.deepEqual(labels, [{ id: promoted.id, group_id: sub.id, project_id: null }]);
    const links = await db.selectFrom('label_links').select(['target_id', 'label_id']).where('target_id', 'in', [mineIssue, theirIssue]).orderBy('target_id').execute();
    assert.deepEqual(links, [
      { target_id: mineIssue, label_id: promoted.id },
      { target_id: theirIssue, label_id: promoted.id },
    ]);
    const shown = (await t.get(url(`/${promoted.id}`), { token: reporter.token })).json() as Label & { is_project_label: boolean };
    assert.deepEqual([shown.priority, shown.is_project_label, shown.subscribed], [2, false, true]);
  });

  test('refusals: a personal project, a group label, a caller who may not manage the group’s labels', async () => {
    const own = await create({ name: fresh(), color: '#000' }, personal);
    expectError(await t.put(url(`/${own.id}/promote`, personal), { token: maintainer.token }), 400, { message: 'Failed to promote project label to group label' });
    expectError(await t.put(url(`/${subLabel}/promote`), { token: maintainer.token }), 400, { message: 'Failed to promote project label to group label' });
    const label = await create({ name: fresh(), color: '#000' });
    expectError(await t.put(url(`/${label.id}/promote`), { token: reporter.token }), 403, { message: '403 Forbidden' });
    expectError(await t.put(url('/nope/promote'), { token: maintainer.token }), 404, { message: '404 Label Not Found' });
  });

  test('the deprecated PUT /projects/:id/labels/promote with name', async () => {
    const label = await create({ name: fresh(), color: '#000' });
    const res = await t.put(url('/promote'), { token: maintainer.token, body: { name: label.name } });
    expectStatus(res, 200);
    expectEntity(res.json(), GroupLabelEntity);
  });
});

describe('POST /projects/:id/labels/:label_id/subscribe and unsubscribe', () => {
  test('201 with the label when it changes, 304 without a body when it already was so', async () => {
    const label = await create({ name: fresh(), color: '#000' });
    const subscribe = await t.post(url(`/${label.id}/subscribe`), { token: reporter.token });
    expectStatus(subscribe, 201);
    expectEntity(subscribe.json(), ProjectLabelEntity);
    assert.equal((subscribe.json() as Label).subscribed, true);
    const again = await t.post(url(`/${encodeURIComponent(label.name)}/subscribe`), { token: reporter.token });
    expectStatus(again, 304);
    assert.equal(again.body, '');
    // Subscriptions are the caller's own.
    assert.equal(((await t.get(url(`/${label.id}`), { token: maintainer.token })).json() as Label).subscribed, false);
    assert.equal(((await t.get(url(`/${label.id}`), { token: reporter.token })).json() as Label).subscribed, true);
    const unsubscribe = await t.post(url(`/${label.id}/unsubscribe`), { token: reporter.token });
    expectStatus(unsubscribe, 201);
    assert.equal((unsubscribe.json() as Label).subscribed, false);
    expectStatus(await t.post(url(`/${label.id}/unsubscribe`), { token: reporter.token }), 304);
    expectError(await t.post(url('/nope/subscribe'), { token: reporter.token }), 404, { message: '404 Label Not Found' });
  });

  test('a group label subscribed in the project counts for the project only', async () => {
    expectStatus(await t.post(url(`/${topLabel}/subscribe`), { token: reporter.token }), 201);
    assert.equal(((await t.get(url(`/${topLabel}`), { token: reporter.token })).json() as Label).subscribed, true);
    assert.equal(((await t.get(`/api/v4/groups/${top.id}/labels/${topLabel}`, { token: reporter.token })).json() as Label).subscribed, false);
    expectStatus(await t.post(url(`/${topLabel}/unsubscribe`), { token: reporter.token }), 201);
  });
});

describe('links of labels', () => {
  test('a label on a merge request does not count yet: open_merge_requests_count stays 0', async () => {
    const label = await create({ name: fresh('mr'), color: '#000' });
    await linkLabel(t, label.id, 'MergeRequest', 424242);
    const [shown] = (await t.get(url(), { token: reporter.token, query: { with_counts: 'true', search: label.name } })).json() as Record<string, unknown>[];
    assert.equal(shown.open_merge_requests_count, 0);
  });
});
