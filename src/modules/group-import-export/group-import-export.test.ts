// Group export and import through the API: the export's archive (the platform's 14.x ndjson group
// layout, the download's name), a round trip (the same labels, milestones, members and subgroups
// with theirs), an archive made by hand in the platform's layout, users mapped by email for
// administrators only, visibility under a parent, and the refusals in the platform's words.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { create, list } from 'tar';
import { importForm } from '../../../test/fixtures/export-archives.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError } from '../../../test/matchers.ts';
import { GroupLabelEntity } from '../labels/labels.schemas.ts';
import { MemberEntity } from '../members/members.schemas.ts';
import { MilestoneEntity } from '../milestones/milestones.schemas.ts';
import { GroupDetailEntity } from '../groups/groups.schemas.ts';
import { BadgeEntity } from '../badges/badges.schemas.ts';
import { periodicTasks } from '../../jobs/tasks.ts';
import { removeExpiredGroupExportsTask } from './group-import-export.jobs.ts';
import { BoardEntity } from '../boards/boards.schemas.ts';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let scratch: string;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice', email: 'alice@example.com' });
  bob = await t.user({ username: 'bob', email: 'bob@example.com' });
  carol = await t.user({ username: 'carol', email: 'carol@example.com' });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-group-ie-'));
  await api('PUT', '/application/settings', ROOT_TOKEN, { group_export_limit: 0, group_download_export_limit: 0, group_import_limit: 0 });
});
after(async () => {
  await t.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function api(method: 'GET' | 'POST' | 'PUT', url: string, token: string, body?: unknown) {
  const res = await t.request(method, `/api/v4${url}`, { token, body });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Exports the group and downloads its archive. */
async function exportGroup(id: number, token = ROOT_TOKEN): Promise<{ archive: Buffer; filename: string }> {
  const res = await t.post(`/api/v4/groups/${id}/export`, { token });
  assert.equal(res.statusCode, 202, res.body);
  assert.deepEqual(res.json(), { message: '202 Accepted' });
  await t.runJobs();
  const download = await t.get(`/api/v4/groups/${id}/export/download`, { token });
  assert.equal(download.statusCode, 200, download.body);
  const filename = /filename="([^"]+)"/.exec(String(download.headers['content-disposition']))?.[1] ?? '';
  return { archive: download.rawPayload, filename };
}

/** Imports an archive and runs the job; answers the new group (found by its full path). */
async function importGroup(archive: Buffer, fields: Record<string, string>, token = ROOT_TOKEN) {
  const form = importForm(fields, archive);
  const res = await t.post('/api/v4/groups/import', { token, body: form.body, headers: form.headers });
  assert.equal(res.statusCode, 202, res.body);
  assert.deepEqual(res.json(), { message: '202 Accepted' });
  await t.runJobs();
  const parent = fields.parent_id ? (await api('GET', `/groups/${fields.parent_id}`, ROOT_TOKEN)).full_path : null;
  const fullPath = parent ? `${parent}/${fields.path}` : fields.path;
  const group = await t.get(`/api/v4/groups/${encodeURIComponent(fullPath)}`, { token: ROOT_TOKEN });
  assert.equal(group.statusCode, 200, group.body);
  expectEntity(group.json(), GroupDetailEntity);
  const state = await t.deps.db.selectFrom('group_import_states').selectAll().where('group_id', '=', group.json().id).executeTakeFirstOrThrow();
  return { group: group.json(), state };
}

const titles = (records: { title: string }[]) => records.map((r) => r.title).sort();

/** What a group holds, as the API shows it. */
async function contents(id: number) {
  const labels = await api('GET', `/groups/${id}/labels?per_page=100&include_ancestor_groups=false`, ROOT_TOKEN);
  expectEntities(labels, GroupLabelEntity);
  const milestones = await api('GET', `/groups/${id}/milestones?per_page=100`, ROOT_TOKEN);
  expectEntities(milestones, MilestoneEntity);
  const members = await api('GET', `/groups/${id}/members?per_page=100`, ROOT_TOKEN);
  expectEntities(members, MemberEntity);
  const subgroups = await api('GET', `/groups/${id}/subgroups?per_page=100`, ROOT_TOKEN);
  const badges = await api('GET', `/groups/${id}/badges?per_page=100`, ROOT_TOKEN);
  expectEntities(badges, BadgeEntity);
  const boards = await api('GET', `/groups/${id}/boards?per_page=100`, ROOT_TOKEN);
  expectEntities(boards, BoardEntity);
  return {
    badges: badges.map((b: Record<string, unknown>) => ({ name: b.name, link_url: b.link_url, image_url: b.image_url, kind: b.kind })),
    boards: boards.map((b: { name: string; hide_backlog_list: boolean; hide_closed_list: boolean; lists: { position: number; label: { name: string } }[] }) => ({
      name: b.name,
      hide_backlog_list: b.hide_backlog_list,
      hide_closed_list: b.hide_closed_list,
      lists: b.lists.map((l) => [l.position, l.label.name]),
    })),
    labels: labels.map((l: Record<string, unknown>) => ({ name: l.name, color: l.color, description: l.description })).sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name)),
    milestones: milestones
      .map((m: Record<string, unknown>) => ({ iid: m.iid, title: m.title, description: m.description, state: m.state, due_date: m.due_date, start_date: m.start_date }))
      .sort((a: { iid: number }, b: { iid: number }) => a.iid - b.iid),
    members: members.map((m: Record<string, unknown>) => ({ username: m.username, access_level: m.access_level })).sort((a: { username: string }, b: { username: string }) => a.username.localeCompare(b.username)),
    subgroups: subgroups.map((g: Record<string, unknown>) => ({ id: g.id as number, path: g.path, name: g.name, description: g.description, visibility: g.visibility })),
  };
}

async function sourceGroup() {
  const top = await api('POST', '/groups', alice.token, { name: 'Source Group', path: 'source-group', description: 'the original', visibility: 'public' });
  await api('POST', `/groups/${top.id}/labels`, alice.token, { name: 'bug', color: '#FF0000', description: 'broken' });
  await api('POST', `/groups/${top.id}/labels`, alice.token, { name: 'feature', color: '#00FF00' });
  await api('POST', `/groups/${top.id}/milestones`, alice.token, { title: 'v1', description: 'first', due_date: '2026-12-01', start_date: '2026-11-01' });
  const m2 = await api('POST', `/groups/${top.id}/milestones`, alice.token, { title: 'v2' });
  await api('POST', `/groups/${top.id}/badges`, alice.token, { name: 'coverage', link_url: 'https://ci.example.com/%{project_path}', image_url: 'https://ci.example.com/badge.svg' });
  const board = await api('POST', `/groups/${top.id}/boards`, alice.token, { name: 'Triage' });
  await api('PUT', `/groups/${top.id}/boards/${board.id}`, alice.token, { hide_backlog_list: true });
  const topLabels = await api('GET', `/groups/${top.id}/labels`, alice.token);
  for (const name of ['feature', 'bug']) {
    await api('POST', `/groups/${top.id}/boards/${board.id}/lists`, alice.token, { label_id: topLabels.find((l: { name: string }) => l.name === name).id });
  }
  await api('PUT', `/groups/${top.id}/milestones/${m2.id}`, alice.token, { state_event: 'close' });
  await api('POST', `/groups/${top.id}/members`, alice.token, { user_id: bob.user.id, access_level: 40 });
  const sub = await api('POST', '/groups', alice.token, { name: 'Sub', path: 'sub', parent_id: top.id, description: 'below', visibility: 'internal' });
  await api('POST', `/groups/${sub.id}/labels`, alice.token, { name: 'sub-label', color: '#0000FF' });
  await api('POST', `/groups/${sub.id}/milestones`, alice.token, { title: 'sub milestone' });
  await api('POST', `/groups/${sub.id}/members`, alice.token, { user_id: carol.user.id, access_level: 30 });
  // A subgroup's board may list its parent's label.
  const subBoard = await api('POST', `/groups/${sub.id}/boards`, alice.token, { name: 'Sub board' });
  const subLabels = await api('GET', `/groups/${sub.id}/labels`, alice.token);
  for (const name of ['sub-label', 'bug']) {
    await api('POST', `/groups/${sub.id}/boards/${subBoard.id}/lists`, alice.token, { label_id: subLabels.find((l: { name: string }) => l.name === name).id });
  }
  const deep = await api('POST', '/groups', alice.token, { name: 'Deep', path: 'deep', parent_id: sub.id, visibility: 'private' });
  await api('POST', `/groups/${deep.id}/labels`, alice.token, { name: 'deep-label', color: '#123456' });
  return { top, sub, deep };
}

describe('export', () => {
  test('the archive holds VERSION and the ndjson group tree, named as the platform names it', async () => {
    const { top, sub, deep } = await sourceGroup();
    const missing = await t.get(`/api/v4/groups/${top.id}/export/download`, { token: alice.token });
    expectError(missing, 404, { message: '404 Not found or has expired' });
    const { archive, filename } = await exportGroup(top.id, alice.token);
    assert.match(filename, /^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{3}_source-group_export\.tar\.gz$/);
    const file = path.join(scratch, 'export.tar.gz');
    fs.writeFileSync(file, archive);
    const entries: string[] = [];
    await list({ file, onReadEntry: (e) => entries.push(e.path) });
    for (const name of ['VERSION', 'GITLAB_VERSION', 'GITLAB_REVISION', 'tree/groups/_all.ndjson', `tree/groups/${top.id}.json`, `tree/groups/${top.id}/labels.ndjson`, `tree/groups/${top.id}/milestones.ndjson`, `tree/groups/${top.id}/members.ndjson`, `tree/groups/${sub.id}.json`, `tree/groups/${deep.id}/labels.ndjson`]) {
      assert.ok(entries.includes(name), `${name} in ${entries.join(', ')}`);
    }
    const out = fs.mkdtempSync(path.join(scratch, 'x-'));
    const { extract } = await import('tar');
    await extract({ file, cwd: out });
    assert.equal(fs.readFileSync(path.join(out, 'VERSION'), 'utf8'), '0.2.4');
    assert.deepEqual(fs.readFileSync(path.join(out, 'tree/groups/_all.ndjson'), 'utf8').trim().split('\n').map(Number), [top.id, sub.id, deep.id]);
    const attributes = JSON.parse(fs.readFileSync(path.join(out, `tree/groups/${sub.id}.json`), 'utf8'));
    assert.equal(attributes.parent_id, top.id);
    assert.equal(attributes.visibility_level, 10);
    assert.equal(attributes.description, 'below');
    assert.ok(!('runners_token' in attributes));
    const member = fs.readFileSync(path.join(out, `tree/groups/${top.id}/members.ndjson`), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((m) => m.user.username === 'bob');
    assert.deepEqual(member.user, { id: bob.user.id, email: 'bob@example.com', username: 'bob' });
    assert.equal(member.access_level, 40);
    // Badges and boards in the platform's relation names and shapes.
    const lines = (name: string) => fs.readFileSync(path.join(out, name), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const [badge] = lines(`tree/groups/${top.id}/badges.ndjson`);
    assert.deepEqual({ ...badge, id: 0, created_at: '', updated_at: '' }, {
      id: 0, link_url: 'https://ci.example.com/%{project_path}', image_url: 'https://ci.example.com/badge.svg', group_id: top.id, created_at: '', updated_at: '', name: 'coverage', type: 'GroupBadge',
    });
    const [board] = lines(`tree/groups/${top.id}/boards.ndjson`);
    assert.equal(board.name, 'Triage');
    assert.equal(board.group_id, top.id);
    assert.equal(board.hide_backlog_list, true);
    assert.deepEqual(board.lists.map((l: { list_type: string; position: number | null; label?: { title: string; type: string } }) => [l.list_type, l.position, l.label?.title ?? null, l.label?.type ?? null]), [
      ['backlog', null, null, null],
      ['label', 0, 'feature', 'GroupLabel'],
      ['label', 1, 'bug', 'GroupLabel'],
      ['closed', null, null, null],
    ]);
    assert.equal(board.lists[1].board.id, board.id);
    assert.equal(board.lists[1].board_id, board.id);
    assert.deepEqual(lines(`tree/groups/${deep.id}/boards.ndjson`), []);
    assert.deepEqual(lines(`tree/groups/${deep.id}/badges.ndjson`), []);
  });

  test('a new export replaces the archive; refusals', async () => {
    const g = await api('POST', '/groups', alice.token, { name: 'Again', path: 'again' });
    await exportGroup(g.id, alice.token);
    await exportGroup(g.id, alice.token);
    expectError(await t.post('/api/v4/groups/999999/export', { token: alice.token }), 404, { message: '404 Group Not Found' });
    expectError(await t.post(`/api/v4/groups/${g.id}/export`, {}), 401, { message: '401 Unauthorized' });
    await api('POST', `/groups/${g.id}/members`, alice.token, { user_id: bob.user.id, access_level: 40 });
    expectError(await t.post(`/api/v4/groups/${g.id}/export`, { token: bob.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get(`/api/v4/groups/${g.id}/export/download`, { token: bob.token }), 403, { message: '403 Forbidden' });
    // The archive goes with the group.
    const stored = (await t.deps.db.selectFrom('group_exports').select('file_path').where('group_id', '=', g.id).executeTakeFirstOrThrow()).file_path as string;
    assert.ok(fs.existsSync(path.join(t.deps.config.dataDir, 'artifacts', stored)));
    assert.equal((await t.del(`/api/v4/groups/${g.id}`, { token: alice.token })).statusCode, 202);
    await t.runJobs();
    assert.equal(fs.existsSync(path.join(t.deps.config.dataDir, 'artifacts', stored)), false);
  });

  test('an archive a day old is removed by the hourly task, and the download then answers 404 Not found or has expired', async () => {
    const g = await api('POST', '/groups', alice.token, { name: 'Expiring', path: 'expiring' });
    const fresh = await api('POST', '/groups', alice.token, { name: 'Fresh', path: 'fresh' });
    await exportGroup(g.id, alice.token);
    await exportGroup(fresh.id, alice.token);
    const stored = async (id: number) => t.deps.db.selectFrom('group_exports').selectAll().where('group_id', '=', id).executeTakeFirstOrThrow();
    const file = (await stored(g.id)).file_path as string;
    const onDisk = (f: string) => fs.existsSync(path.join(t.deps.config.dataDir, 'artifacts', f));
    assert.ok(onDisk(file));
    await t.deps.db.updateTable('group_exports').set({ exported_at: new Date(Date.now() - 25 * 3600 * 1000).toISOString() }).where('group_id', '=', g.id).execute();
    expectError(await t.get(`/api/v4/groups/${g.id}/export/download`, { token: alice.token }), 404, { message: '404 Not found or has expired' });
    assert.ok(periodicTasks.includes(removeExpiredGroupExportsTask));
    await removeExpiredGroupExportsTask.run(t.deps);
    assert.equal(onDisk(file), false);
    assert.deepEqual(await stored(g.id).then((r) => [r.file_path, r.file_name, r.file_size]), [null, null, null]);
    expectError(await t.get(`/api/v4/groups/${g.id}/export/download`, { token: alice.token }), 404, { message: '404 Not found or has expired' });
    assert.equal((await t.get(`/api/v4/groups/${fresh.id}/export/download`, { token: alice.token })).statusCode, 200);
  });

  test('the rate limits are the platform\'s: 429 past group_export_limit and group_download_export_limit', async () => {
    const g = await api('POST', '/groups', carol.token, { name: 'Limited', path: 'limited' });
    await api('PUT', '/application/settings', ROOT_TOKEN, { group_export_limit: 1, group_download_export_limit: 1 });
    try {
      assert.equal((await t.post(`/api/v4/groups/${g.id}/export`, { token: carol.token })).statusCode, 202);
      expectError(await t.post(`/api/v4/groups/${g.id}/export`, { token: carol.token }), 429, { message: { error: 'This endpoint has been requested too many times. Try again later.' } });
      await t.runJobs();
      assert.equal((await t.get(`/api/v4/groups/${g.id}/export/download`, { token: carol.token })).statusCode, 200);
      expectError(await t.get(`/api/v4/groups/${g.id}/export/download`, { token: carol.token }), 429, { message: { error: 'This endpoint has been requested too many times. Try again later.' } });
    } finally {
      await api('PUT', '/application/settings', ROOT_TOKEN, { group_export_limit: 0, group_download_export_limit: 0 });
    }
  });
});

describe('round trip', () => {
  test('an administrator imports the same labels, milestones, members and subgroups', async () => {
    const source = await t.deps.db.selectFrom('namespaces').select('id').where('full_path', '=', 'source-group').executeTakeFirstOrThrow();
    const { archive } = await exportGroup(source.id);
    const { group, state } = await importGroup(archive, { name: 'Imported', path: 'imported' });
    assert.equal(state.status, 'finished', state.last_error ?? '');
    assert.equal(group.name, 'Imported');
    assert.equal(group.description, 'the original');
    // Imported groups are private without a parent.
    assert.equal(group.visibility, 'private');
    const before = await contents(source.id);
    const after = await contents(group.id);
    assert.deepEqual(after.labels, before.labels);
    assert.deepEqual(after.milestones, before.milestones);
    assert.deepEqual(after.badges, before.badges);
    assert.deepEqual(after.boards, [{ name: 'Triage', hide_backlog_list: true, hide_closed_list: false, lists: [[0, 'feature'], [1, 'bug']] }]);
    assert.deepEqual(after.boards, before.boards);
    // Bob is mapped by his email; the importer (root) is Owner as the group's creator, alice is not mapped... but she is, by email.
    assert.deepEqual(after.members, [...before.members, { username: 'root', access_level: 50 }].sort((a, b) => a.username.localeCompare(b.username)));
    assert.equal(after.subgroups.length, 1);
    const [sub] = after.subgroups;
    assert.deepEqual({ ...sub, id: 0 }, { id: 0, path: 'sub', name: 'Sub', description: 'below', visibility: 'private' });
    const subBefore = await contents(before.subgroups[0].id);
    const subAfter = await contents(sub.id);
    assert.deepEqual(subAfter.labels, subBefore.labels);
    assert.deepEqual(subAfter.milestones, subBefore.milestones);
    // The parent's label a subgroup's board lists is the imported parent's.
    assert.deepEqual(subAfter.boards, [{ name: 'Sub board', hide_backlog_list: false, hide_closed_list: false, lists: [[0, 'sub-label'], [1, 'bug']] }]);
    const subBoard = (await api('GET', `/groups/${sub.id}/boards`, ROOT_TOKEN))[0];
    const importedBug = (await api('GET', `/groups/${group.id}/labels?include_ancestor_groups=false`, ROOT_TOKEN)).find((l: { name: string }) => l.name === 'bug');
    assert.equal(subBoard.lists[1].label.id, importedBug.id);
    assert.deepEqual(subAfter.members.filter((m: { username: string }) => m.username !== 'root'), subBefore.members);
    assert.equal(subAfter.subgroups.length, 1);
    assert.deepEqual(titles((await api('GET', `/groups/${subAfter.subgroups[0].id}/labels?include_ancestor_groups=false`, ROOT_TOKEN)).map((l: { name: string }) => ({ title: l.name }))), ['deep-label']);
    // Milestones keep their iids, and new ones follow them.
    const next = await api('POST', `/groups/${group.id}/milestones`, ROOT_TOKEN, { title: 'v3' });
    assert.equal(next.iid, Math.max(...before.milestones.map((m: { iid: number }) => m.iid)) + 1);
  });

  test('under a parent the group takes the closest visibility the parent allows, subgroups capped to theirs', async () => {
    const source = await t.deps.db.selectFrom('namespaces').select('id').where('full_path', '=', 'source-group').executeTakeFirstOrThrow();
    const { archive } = await exportGroup(source.id);
    const parent = await api('POST', '/groups', ROOT_TOKEN, { name: 'Internal parent', path: 'internal-parent', visibility: 'internal' });
    const { group, state } = await importGroup(archive, { name: 'Nested', path: 'nested', parent_id: String(parent.id) });
    assert.equal(state.status, 'finished', state.last_error ?? '');
    assert.equal(group.full_path, 'internal-parent/nested');
    assert.equal(group.visibility, 'internal');
    const [sub] = (await contents(group.id)).subgroups;
    assert.equal(sub.visibility, 'internal');
  });

  test('someone who is no administrator imports without mapping anyone', async () => {
    const source = await t.deps.db.selectFrom('namespaces').select('id').where('full_path', '=', 'source-group').executeTakeFirstOrThrow();
    const { archive } = await exportGroup(source.id);
    const { group, state } = await importGroup(archive, { name: 'Carols', path: 'carols' }, carol.token);
    assert.equal(state.status, 'finished', state.last_error ?? '');
    const got = await contents(group.id);
    assert.deepEqual(got.members, [{ username: 'carol', access_level: 50 }]);
    assert.equal(got.labels.length, 2);
  });
});

/** An archive written by hand in the platform's 14.x group layout, records shaped as its own spec fixtures shape them. */
async function platformGroupArchive(): Promise<Buffer> {
  const root = fs.mkdtempSync(path.join(scratch, 'platform-'));
  const put = (name: string, body: string) => {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), body);
  };
  put('VERSION', '0.2.4');
  put('GITLAB_VERSION', '14.4.2');
  put('GITLAB_REVISION', 'b5e6d2b4b4d');
  put('tree/groups/_all.ndjson', '4351\n4352\n4353\n');
  const group = (id: number, extra: Record<string, unknown>) => JSON.stringify({
    id, name: `Group ${id}`, path: `group-${id}`, owner_id: null, description: `Group ${id} description`, visibility_level: 20, parent_id: null, type: 'Group',
    avatar: { url: null }, share_with_group_lock: false, request_access_enabled: true, lfs_enabled: null, require_two_factor_authentication: false, two_factor_grace_period: 48,
    project_creation_level: 2, subgroup_creation_level: 1, auto_devops_enabled: null, emails_disabled: null, mentions_disabled: null, default_branch_protection: 2, ...extra,
  });
  put('tree/groups/4351.json', group(4351, { description: 'Group Description' }));
  put('tree/groups/4352.json', group(4352, { parent_id: 4351, visibility_level: 10, subgroup_creation_level: 0 }));
  // A subgroup whose parent is not in the archive: reported, the rest goes in.
  put('tree/groups/4353.json', group(4353, { parent_id: 9999 }));
  put(
    'tree/groups/4351/labels.ndjson',
    [
      '{"id":21,"title":"group label 1","color":"#6699cc","project_id":null,"created_at":"2019-11-20T17:02:20.546Z","updated_at":"2019-11-20T17:02:20.546Z","template":false,"description":"","group_id":4351,"type":"GroupLabel","priorities":[],"textColor":"#FFFFFF"}',
      '{"id":22,"title":"group label 2","color":"#cc0033","project_id":null,"created_at":"2019-11-20T17:02:20.546Z","updated_at":"2019-11-20T17:02:20.546Z","template":false,"description":"second","group_id":4351,"type":"GroupLabel","priorities":[]}',
      '{"id":23,"title":"","color":"#cc0033","type":"GroupLabel"}',
    ].join('\n'),
  );
  put(
    'tree/groups/4351/milestones.ndjson',
    '{"id":7642,"title":"v4.0","project_id":null,"description":"Et laudantium enim omnis ea reprehenderit iure.","due_date":null,"created_at":"2019-11-20T17:02:14.336Z","updated_at":"2019-11-20T17:02:14.336Z","state":"closed","iid":5,"start_date":null,"group_id":4351}\n',
  );
  put(
    'tree/groups/4351/members.ndjson',
    [
      '{"id":13766,"access_level":30,"source_id":4351,"source_type":"Namespace","user_id":42,"notification_level":3,"created_at":"2020-02-03T09:33:19.256Z","updated_at":"2020-02-03T09:33:19.256Z","created_by_id":null,"invite_email":null,"invite_token":null,"invite_accepted_at":null,"requested_at":null,"expires_at":null,"ldap":false,"override":false,"user":{"id":42,"email":"bob@example.com","username":"bobby"}}',
      '{"id":13767,"access_level":50,"source_id":4351,"source_type":"Namespace","user_id":43,"notification_level":3,"user":{"id":43,"email":"nobody-here@example.com","username":"ghost"}}',
    ].join('\n'),
  );
  put(
    'tree/groups/4351/badges.ndjson',
    [
      '{"id":1,"link_url":"https://example.com","image_url":"https://example.com/b.svg","group_id":4351,"created_at":"2019-12-01T10:00:00.000Z","updated_at":"2019-12-01T10:00:00.000Z","name":null,"type":"GroupBadge"}',
      '{"id":2,"link_url":"javascript:alert(1)","image_url":"https://example.com/b.svg","group_id":4351,"type":"GroupBadge"}',
    ].join('\n'),
  );
  put(
    'tree/groups/4351/boards.ndjson',
    [
      JSON.stringify({
        id: 173, project_id: null, created_at: '2020-02-11T14:35:51.561Z', updated_at: '2020-02-11T14:35:51.561Z', name: 'first board', milestone_id: 7642, group_id: 4351, weight: null, hide_backlog_list: false, hide_closed_list: true,
        lists: [
          { id: 189, board_id: 173, label_id: null, list_type: 'backlog', position: null, created_at: '2020-02-11T14:35:51.561Z', updated_at: '2020-02-11T14:35:51.561Z', user_id: null, milestone_id: null, max_issue_count: 0, max_weight: 0, limit_metric: null, board: { id: 173, name: 'first board' } },
          { id: 191, board_id: 173, label_id: 22, list_type: 'label', position: 1, created_at: '2020-02-11T14:35:57.131Z', updated_at: '2020-02-11T14:35:57.131Z', user_id: null, milestone_id: null, max_issue_count: 3, max_weight: 0, limit_metric: 'issue_count',
            label: { id: 22, title: 'group label 2', color: '#cc0033', type: 'GroupLabel' }, board: { id: 173 } },
          { id: 192, board_id: 173, label_id: 99, list_type: 'label', position: 0, created_at: '2020-02-11T14:35:57.131Z', updated_at: '2020-02-11T14:35:57.131Z', user_id: null, max_issue_count: 0, max_weight: 0, limit_metric: null,
            label: { id: 99, title: 'only on the board', color: '#00aa00', description: 'from a list', type: 'GroupLabel' } },
          { id: 193, list_type: 'label', position: 2, label: { id: 100, title: 'bad colour', color: 'red', type: 'GroupLabel' } },
          { id: 190, board_id: 173, label_id: null, list_type: 'closed', position: null, created_at: '2020-02-11T14:35:51.561Z', updated_at: '2020-02-11T14:35:51.561Z', user_id: null, milestone_id: null, max_issue_count: 0, max_weight: 0, limit_metric: null },
        ],
      }),
      JSON.stringify({ id: 174, group_id: 4351, name: '', lists: [] }),
    ].join('\n'),
  );
  put('tree/groups/4352/labels.ndjson', '{"id":24,"title":"subgroup label","color":"#428bca","type":"GroupLabel"}\n');
  put('tree/groups/4352/members.ndjson', '{"id":13768,"access_level":40,"source_id":4352,"source_type":"Namespace","user_id":44,"user":{"id":44,"email":"carol@example.com","username":"carol"}}\n');
  const file = path.join(scratch, `platform-${Date.now()}.tar.gz`);
  await create({ gzip: true, cwd: root, file, portable: true }, ['VERSION', 'GITLAB_VERSION', 'GITLAB_REVISION', 'tree']);
  return fs.readFileSync(file);
}

describe('an archive in the platform\'s 14.x group layout', () => {
  test('imports its groups and records; what does not hold is reported', async () => {
    const { group, state } = await importGroup(await platformGroupArchive(), { name: 'From platform', path: 'from-platform' });
    assert.equal(state.status, 'finished', state.last_error ?? '');
    assert.equal(group.description, 'Group Description');
    assert.equal(group.visibility, 'private');
    assert.equal(group.project_creation_level, 'developer');
    assert.equal(group.subgroup_creation_level, 'maintainer');
    const got = await contents(group.id);
    assert.deepEqual(got.labels, [
      { name: 'group label 1', color: '#6699cc', description: null },
      { name: 'group label 2', color: '#cc0033', description: 'second' },
      { name: 'only on the board', color: '#00aa00', description: 'from a list' },
    ]);
    assert.deepEqual(got.badges, [{ name: null, link_url: 'https://example.com', image_url: 'https://example.com/b.svg', kind: 'group' }]);
    // The milestone id of another instance is not carried over; the list with a bad label is left out.
    assert.deepEqual(got.boards, [{ name: 'first board', hide_backlog_list: false, hide_closed_list: true, lists: [[0, 'only on the board'], [1, 'group label 2']] }]);
    const [board] = await api('GET', `/groups/${group.id}/boards`, ROOT_TOKEN);
    assert.equal(board.milestone, null);
    assert.deepEqual([board.lists[1].max_issue_count, board.lists[1].limit_metric], [3, 'issue_count']);
    assert.deepEqual(got.milestones, [{ iid: 5, title: 'v4.0', description: 'Et laudantium enim omnis ea reprehenderit iure.', state: 'closed', due_date: null, start_date: null }]);
    assert.deepEqual(got.members, [{ username: 'bob', access_level: 30 }, { username: 'root', access_level: 50 }]);
    assert.equal(got.subgroups.length, 1);
    const sub = await api('GET', `/groups/${got.subgroups[0].id}`, ROOT_TOKEN);
    assert.equal(sub.full_path, 'from-platform/group-4352');
    assert.equal(sub.visibility, 'private');
    assert.equal(sub.subgroup_creation_level, 'owner');
    const subContents = await contents(sub.id);
    assert.deepEqual(subContents.labels.map((l: { name: string }) => l.name), ['subgroup label']);
    assert.deepEqual(subContents.members, [{ username: 'carol', access_level: 40 }, { username: 'root', access_level: 50 }]);
    const failures = await t.deps.db.selectFrom('import_failures').selectAll().where('group_id', '=', group.id).orderBy('id').execute();
    assert.deepEqual(
      failures.map((f) => [f.relation_key, f.relation_index, f.exception_message, f.source]),
      [
        ['badges', 1, 'Validation failed: Link url must be a valid URL', 'process_relation_item!'],
        ['labels', 2, "Validation failed: Title can't be blank", 'process_relation_item!'],
        ['boards', 1, "Validation failed: Name can't be blank", 'process_relation_item!'],
        ['group', null, 'Parent group not found', 'process_child'],
      ],
    );
  });
});

describe('POST /groups/import refusals', () => {
  const archive = Buffer.from('not read');
  const post = (fields: Record<string, string>, token: string | undefined, file: Buffer | null = archive, filename?: string) => {
    const form = importForm(fields, file, filename);
    return t.post('/api/v4/groups/import', { token, body: form.body, headers: form.headers });
  };

  test('missing and invalid parameters', async () => {
    expectError(await post({ name: 'x' }, alice.token), 400, { error: 'path is missing' });
    expectError(await post({}, alice.token, null), 400, { error: 'path is missing, name is missing, file is missing' });
    expectError(await post({ name: 'x', path: 'x', parent_id: 'abc' }, alice.token), 400, { error: 'parent_id is invalid' });
    expectError(await t.post('/api/v4/groups/import', { token: alice.token, body: { name: 'x', path: 'x' } }), 400, { error: 'path is missing, name is missing, file is missing' });
  });

  test('who may import, and where', async () => {
    expectError(await post({ name: 'x', path: 'x' }, undefined), 401, { message: '401 Unauthorized' });
    const parent = await api('POST', '/groups', alice.token, { name: 'Private parent', path: 'private-parent' });
    expectError(await post({ name: 'x', path: 'x', parent_id: String(parent.id) }, carol.token), 404, { message: '404 Group Not Found' });
    expectError(await post({ name: 'x', path: 'x', parent_id: '999999' }, carol.token), 404, { message: '404 Group Not Found' });
    await api('POST', `/groups/${parent.id}/members`, alice.token, { user_id: carol.user.id, access_level: 30 });
    expectError(await post({ name: 'x', path: 'x', parent_id: String(parent.id) }, carol.token), 403, { message: '403 Forbidden' });
    const noGroups = await t.user({ username: 'nogroups', can_create_group: false });
    expectError(await post({ name: 'x', path: 'x' }, noGroups.token), 403, { message: '403 Forbidden' });
    const groupsBefore = await t.count('namespaces');
    expectError(await post({ name: 'x', path: 'x' }, alice.token, archive, 'export.zip'), 422, { message: { error: 'You need to upload a GitLab project export archive (ending in .gz).' } });
    expectError(await post({ name: 'Taken', path: 'source-group' }, alice.token, archive), 400, { message: 'Failed to save group {:path=>["has already been taken"]}' });
    assert.equal(await t.count('namespaces'), groupsBefore);
  });

  test('a maintainer of the parent may import into it (create_subgroup), and the rate limit', async () => {
    const parent = await api('POST', '/groups', alice.token, { name: 'Open parent', path: 'open-parent' });
    await api('POST', `/groups/${parent.id}/members`, alice.token, { user_id: bob.user.id, access_level: 40 });
    const { group, state } = await importGroup(await platformGroupArchive(), { name: 'By maintainer', path: 'by-maintainer', parent_id: String(parent.id) }, bob.token);
    assert.equal(state.status, 'finished', state.last_error ?? '');
    assert.equal(group.full_path, 'open-parent/by-maintainer');
    await api('PUT', '/application/settings', ROOT_TOKEN, { group_import_limit: 1 });
    try {
      assert.equal((await post({ name: 'L1', path: 'l1' }, carol.token)).statusCode, 202);
      expectError(await post({ name: 'L2', path: 'l2' }, carol.token), 429, { message: { error: 'This endpoint has been requested too many times. Try again later.' } });
    } finally {
      await api('PUT', '/application/settings', ROOT_TOKEN, { group_import_limit: 0 });
    }
    await t.runJobs();
  });
});

describe('a failed import', () => {
  test('keeps the group, empty, with its import state failed and the reason, as the platform keeps it; the importer may then delete it', async () => {
    const archive = await platformGroupArchive();
    // The importer loses the right to administer the group before the job runs (valid_user_permissions?).
    const parent = await api('POST', '/groups', alice.token, { name: 'Shrinking parent', path: 'shrinking-parent' });
    await api('POST', `/groups/${parent.id}/members`, alice.token, { user_id: carol.user.id, access_level: 40 });
    const form = importForm({ name: 'Doomed', path: 'doomed', parent_id: String(parent.id) }, archive);
    const res = await t.post('/api/v4/groups/import', { token: carol.token, body: form.body, headers: form.headers });
    assert.equal(res.statusCode, 202, res.body);
    const group = await t.deps.db.selectFrom('namespaces').selectAll().where('full_path', '=', 'shrinking-parent/doomed').executeTakeFirstOrThrow();
    const kept = (await t.deps.db.selectFrom('group_import_states').select('file_path').where('group_id', '=', group.id).executeTakeFirstOrThrow()).file_path as string;
    // Carol's role in the group she made goes below Owner, and her parent role to Developer.
    await t.deps.db.updateTable('members').set({ access_level: 30 }).where('user_id', '=', carol.user.id).where('source_type', '=', 'Namespace').where('source_id', 'in', [parent.id, group.id]).execute();
    await t.runJobs();
    const state = await t.deps.db.selectFrom('group_import_states').selectAll().where('group_id', '=', group.id).executeTakeFirstOrThrow();
    assert.equal(state.status, 'failed');
    assert.equal(state.last_error, `User with ID: ${carol.user.id} does not have required permissions for Group: Doomed with ID: ${group.id}`);
    // The uploaded archive is removed all the same.
    assert.equal(fs.existsSync(path.join(t.deps.config.dataDir, 'artifacts', kept)), false);
    const shown = await t.get(`/api/v4/groups/${group.id}`, { token: ROOT_TOKEN });
    assert.equal(shown.statusCode, 200);
    expectEntity(shown.json(), GroupDetailEntity);
    const got = await contents(group.id);
    assert.deepEqual([got.labels, got.milestones, got.subgroups, got.badges, got.boards], [[], [], [], [], []]);
    assert.equal((await t.del(`/api/v4/groups/${group.id}`, { token: alice.token })).statusCode, 202);
    await t.runJobs();
    assert.equal((await t.get(`/api/v4/groups/${group.id}`, { token: ROOT_TOKEN })).statusCode, 404);
  });
});
