// Project export and import through the API: an export's statuses and its archive (the platform's
// 14.x layout, the download's name), a round trip (the same labels, milestones, issues, merge
// requests, notes, protected branches, releases and repository), an archive made by hand in the
// platform's own layout, users mapped by email for administrators only, a relation that does not
// hold reported while the rest imports, overwrite, and the refusals in the platform's words.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { list } from 'tar';
import { importForm, platformArchive } from '../../../test/fixtures/export-archives.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError } from '../../../test/matchers.ts';
import { multipart } from '../../../test/ci/ci-test-helpers.ts';
import { periodicTasks } from '../../jobs/tasks.ts';
import { removeExpiredExportsTask } from './import-export.jobs.ts';
import { ExportStatusEntity, ImportStatusEntity } from './import-export.schemas.ts';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let scratch: string;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice' });
  bob = await t.user({ username: 'bob' });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ie-test-'));
  // The tests call these routes more often than the platform's limits allow a minute; one test puts them back.
  await api('PUT', '/application/settings', ROOT_TOKEN, { project_download_export_limit: 0, project_import_limit: 0, project_export_limit: 0 });
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

/** Imports an archive as `token`'s user and runs the job; answers the import status. */
async function importArchive(archive: Buffer, fields: Record<string, string>, token = ROOT_TOKEN) {
  const form = importForm(fields, archive);
  const res = await t.post('/api/v4/projects/import', { token, body: form.body, headers: form.headers });
  assert.equal(res.statusCode, 201, res.body);
  expectEntity(res.json(), ImportStatusEntity);
  assert.equal(res.json().import_status, 'scheduled');
  await t.runJobs();
  const status = await t.get(`/api/v4/projects/${res.json().id}/import`, { token });
  assert.equal(status.statusCode, 200, status.body);
  expectEntity(status.json(), ImportStatusEntity);
  return status.json();
}

/** A project with a repository, labels, a milestone, issues and a merge request with notes. */
async function sourceProject() {
  const project = await api('POST', '/projects', alice.token, { name: 'Source', path: 'source', initialize_with_readme: true, description: 'original' });
  const id = project.id;
  await api('POST', `/projects/${id}/repository/branches`, alice.token, { branch: 'feature', ref: 'main' });
  await api('POST', `/projects/${id}/repository/files/app.txt`, alice.token, { branch: 'feature', content: 'hello', commit_message: 'Add app' });
  await api('POST', `/projects/${id}/labels`, alice.token, { name: 'bug', color: '#FF0000', description: 'Broken' });
  await api('POST', `/projects/${id}/labels`, alice.token, { name: 'feature', color: '#00FF00' });
  const milestone = await api('POST', `/projects/${id}/milestones`, alice.token, { title: 'v1', description: 'first', due_date: '2030-01-31' });
  const { body, contentType } = multipart({ filename: 'crash log.png', content: Buffer.from('PNG of the crash') });
  const uploaded = await t.post(`/api/v4/projects/${id}/uploads`, { token: alice.token, headers: { 'content-type': contentType }, body });
  assert.equal(uploaded.statusCode, 201, uploaded.body);
  const issue = await api('POST', `/projects/${id}/issues`, alice.token, { title: 'Crash', description: `It crashes ${uploaded.json().markdown}`, labels: 'bug', milestone_id: milestone.id });
  await api('POST', `/projects/${id}/badges`, alice.token, { name: 'pipeline', link_url: 'https://ci.example.com/%{project_path}', image_url: 'https://ci.example.com/%{project_path}/badge.svg' });
  const board = await api('POST', `/projects/${id}/boards`, alice.token, { name: 'Development' });
  await api('PUT', `/projects/${id}/boards/${board.id}`, alice.token, { hide_closed_list: true });
  const projectLabels = await api('GET', `/projects/${id}/labels`, alice.token);
  for (const name of ['feature', 'bug']) await api('POST', `/projects/${id}/boards/${board.id}/lists`, alice.token, { label_id: projectLabels.find((l: { name: string }) => l.name === name).id });
  await api('POST', `/projects/${id}/issues/${issue.iid}/notes`, alice.token, { body: 'Seen it too' });
  await api('POST', `/projects/${id}/issues`, alice.token, { title: 'Second', confidential: true });
  const mr = await api('POST', `/projects/${id}/merge_requests`, alice.token, { title: 'Add app', source_branch: 'feature', target_branch: 'main', labels: 'feature' });
  await api('POST', `/projects/${id}/merge_requests/${mr.iid}/notes`, alice.token, { body: 'Looks good' });
  await api('POST', `/projects/${id}/protected_tags`, alice.token, { name: 'v*' });
  await api('POST', `/projects/${id}/releases`, alice.token, { tag_name: 'v1.0', ref: 'main', name: 'First', description: 'notes' });
  await t.runJobs();
  return project;
}

/** What a project holds, as the API shows it, without the ids and times an import changes. */
async function contents(id: number, token: string) {
  const issues = (await api('GET', `/projects/${id}/issues?sort=asc&order_by=created_at`, token)) as Record<string, unknown>[];
  const issueNotes = [];
  for (const issue of issues) issueNotes.push((await api('GET', `/projects/${id}/issues/${issue.iid}/notes?sort=asc`, token)).filter((n: { system: boolean }) => !n.system).map((n: { body: string; author: { username: string } }) => [n.body, n.author.username]));
  const mrs = (await api('GET', `/projects/${id}/merge_requests`, token)) as Record<string, unknown>[];
  const mrNotes = [];
  for (const mr of mrs) mrNotes.push((await api('GET', `/projects/${id}/merge_requests/${mr.iid}/notes?sort=asc`, token)).filter((n: { system: boolean }) => !n.system).map((n: { body: string }) => n.body));
  return {
    labels: (await api('GET', `/projects/${id}/labels`, token)).map((l: Record<string, unknown>) => [l.name, l.color, l.description]),
    milestones: (await api('GET', `/projects/${id}/milestones`, token)).map((m: Record<string, unknown>) => [m.iid, m.title, m.description, m.due_date, m.state]),
    issues: issues.map((i) => [i.iid, i.title, i.description, i.state, i.confidential, i.labels, (i.milestone as { title: string } | null)?.title ?? null, (i.author as { username: string }).username, i.created_at]),
    issueNotes,
    mrs: mrs.map((m) => [m.iid, m.title, m.source_branch, m.target_branch, m.state, m.labels, m.sha]),
    mrNotes,
    branches: (await api('GET', `/projects/${id}/repository/branches`, token)).map((b: { name: string; commit: { id: string } }) => [b.name, b.commit.id]),
    protectedBranches: (await api('GET', `/projects/${id}/protected_branches`, token)).map((b: { name: string }) => b.name),
    protectedTags: (await api('GET', `/projects/${id}/protected_tags`, token)).map((b: { name: string }) => b.name),
    releases: (await api('GET', `/projects/${id}/releases`, token)).map((r: Record<string, unknown>) => [r.tag_name, r.name, r.description]),
    badges: (await api('GET', `/projects/${id}/badges`, token)).map((b: Record<string, unknown>) => [b.name, b.link_url, b.image_url, b.kind]),
    boards: (await api('GET', `/projects/${id}/boards`, token)).map((b: { name: string; hide_backlog_list: boolean; hide_closed_list: boolean; lists: { position: number; label: { name: string } }[] }) => [
      b.name,
      b.hide_backlog_list,
      b.hide_closed_list,
      b.lists.map((l) => [l.position, l.label.name]),
    ]),
  };
}

let exported: Buffer;
let sourceId: number;

describe('export', () => {
  test('an export goes from none through queued to finished, and its archive follows the platform layout', async () => {
    const project = await sourceProject();
    sourceId = project.id;
    const status0 = await api('GET', `/projects/${sourceId}/export`, alice.token);
    expectEntity(status0, ExportStatusEntity);
    assert.equal(status0.export_status, 'none');
    expectError(await t.get(`/api/v4/projects/${sourceId}/export/download`, { token: alice.token }), 404, { message: '404 Not found or has expired' });

    const res = await t.post(`/api/v4/projects/${sourceId}/export`, { token: alice.token, body: { description: 'exported copy' } });
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual(res.json(), { message: '202 Accepted' });
    const queued = await api('GET', `/projects/${sourceId}/export`, alice.token);
    expectEntity(queued, ExportStatusEntity);
    assert.equal(queued.export_status, 'queued');
    assert.equal(queued._links, undefined);
    expectError(await t.get(`/api/v4/projects/${sourceId}/export/download`, { token: alice.token }), 404, { message: 'The project export file is not available yet' });

    await t.runJobs();
    const finished = await api('GET', `/projects/${sourceId}/export`, alice.token);
    expectEntity(finished, ExportStatusEntity);
    assert.equal(finished.export_status, 'finished');
    assert.equal(finished.created_at, project.created_at);
    assert.deepEqual(finished._links, {
      api_url: `http://quarry.test/api/v4/projects/${sourceId}/export/download`,
      web_url: `http://quarry.test/alice/source/download_export`,
    });

    const download = await t.get(`/api/v4/projects/${sourceId}/export/download`, { token: alice.token });
    assert.equal(download.statusCode, 200);
    const name = /filename="([^"]+)"/.exec(String(download.headers['content-disposition']))?.[1] ?? '';
    assert.match(name, /^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{3}_alice_source_export\.tar\.gz$/);
    exported = download.rawPayload;
    const file = path.join(scratch, 'export.tar.gz');
    fs.writeFileSync(file, exported);
    const entries: string[] = [];
    await list({ file, onReadEntry: (e) => entries.push(e.path) });
    for (const entry of ['VERSION', 'GITLAB_VERSION', 'GITLAB_REVISION', 'tree/project.json', 'tree/project/issues.ndjson', 'tree/project/labels.ndjson', 'tree/project/milestones.ndjson', 'tree/project/merge_requests.ndjson', 'tree/project/project_members.ndjson', 'tree/project/protected_branches.ndjson', 'project.bundle']) {
      assert.ok(entries.includes(entry), `${entry} is missing from ${entries.join(', ')}`);
    }
    const dir = path.join(scratch, 'unpacked');
    fs.mkdirSync(dir);
    execFileSync('tar', ['-xzf', file, '-C', dir]);
    assert.equal(fs.readFileSync(path.join(dir, 'VERSION'), 'utf8'), '0.2.4');
    const attributes = JSON.parse(fs.readFileSync(path.join(dir, 'tree/project.json'), 'utf8'));
    assert.equal(attributes.description, 'exported copy');
    const issues = fs.readFileSync(path.join(dir, 'tree/project/issues.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(issues.length, 2);
    assert.equal(issues[0].notes[0].note, 'Seen it too');
    assert.equal(issues[0].label_links[0].label.title, 'bug');
    assert.equal(issues[0].milestone.title, 'v1');
    const members = fs.readFileSync(path.join(dir, 'tree/project/project_members.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(Object.keys(members[0].user).sort(), ['email', 'id', 'username']);
    // No secrets: no runner token, variables or hooks anywhere in the tree.
    const everything = execFileSync('cat', [path.join(dir, 'tree/project.json'), ...fs.readdirSync(path.join(dir, 'tree/project')).map((f) => path.join(dir, 'tree/project', f))], { encoding: 'utf8' });
    for (const secret of ['runners_token', 'variables', 'hooks', 'token_encrypted']) assert.ok(!everything.includes(secret), secret);
    execFileSync('git', ['bundle', 'list-heads', path.join(dir, 'project.bundle')]);
    // Badges, boards and uploads, in the platform's relation names and places.
    const [badge] = fs.readFileSync(path.join(dir, 'tree/project/project_badges.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual({ ...badge, id: 0, created_at: '', updated_at: '' }, {
      id: 0, link_url: 'https://ci.example.com/%{project_path}', image_url: 'https://ci.example.com/%{project_path}/badge.svg', project_id: sourceId, created_at: '', updated_at: '', name: 'pipeline', type: 'ProjectBadge',
    });
    const [board] = fs.readFileSync(path.join(dir, 'tree/project/boards.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(board.name, 'Development');
    assert.equal(board.hide_closed_list, true);
    assert.ok(!('milestone_id' in board));
    assert.deepEqual(board.lists.map((l: { list_type: string; position: number | null; label?: { title: string; type: string } }) => [l.list_type, l.position, l.label?.title ?? null, l.label?.type ?? null]), [
      ['backlog', null, null, null],
      ['label', 0, 'feature', 'ProjectLabel'],
      ['label', 1, 'bug', 'ProjectLabel'],
      ['closed', null, null, null],
    ]);
    assert.ok(!('board_id' in board.lists[1]) && !('label_id' in board.lists[1]));
    const secret = /\/uploads\/([0-9a-f]{32})\/crash_log\.png/.exec(issues[0].description)?.[1] ?? '';
    assert.equal(fs.readFileSync(path.join(dir, 'uploads', secret, 'crash_log.png'), 'utf8'), 'PNG of the crash');
  });

  test('upload[http_method] other than PUT or POST is refused; an upload without url is ignored', async () => {
    const other = await api('POST', '/projects', alice.token, { path: 'other' });
    expectError(await t.post(`/api/v4/projects/${other.id}/export`, { token: alice.token, body: { upload: { url: 'https://example.com/x', http_method: 'GET' } } }), 400, {
      message: { http_method: ['invalid. Only PUT and POST methods allowed.'] },
    });
    const res = await t.post(`/api/v4/projects/${other.id}/export`, { token: alice.token, body: { upload: { http_method: 'post' } } });
    assert.equal(res.statusCode, 202, res.body);
    expectError(await t.post(`/api/v4/projects/${other.id}/export`, { token: alice.token, body: { upload: { url: 'ftp://example.com/x' } } }), 400, {
      message: { url: ['is blocked: Only allowed schemes are http, https'] },
    });
    await t.runJobs();
  });

});

describe('import', () => {
  test('an export round-trips: the same records and repository (an administrator imports: authors kept)', async () => {
    const status = await importArchive(exported, { path: 'copy', namespace: 'alice' });
    assert.equal(status.import_status, 'finished', status.import_error);
    assert.deepEqual(status.failed_relations, []);
    assert.equal(status.import_error, null);
    assert.equal(status.import_type, 'gitlab_project');
    const source = await contents(sourceId, ROOT_TOKEN);
    const copy = await contents(status.id, ROOT_TOKEN);
    assert.deepEqual(copy, source);
    assert.deepEqual(copy.badges, [['pipeline', 'https://ci.example.com/%{project_path}', 'https://ci.example.com/%{project_path}/badge.svg', 'project']]);
    assert.deepEqual(copy.boards, [['Development', false, true, [[0, 'feature'], [1, 'bug']]]]);
    const project = await api('GET', `/projects/${status.id}`, ROOT_TOKEN);
    assert.equal(project.description, 'exported copy');
    assert.equal(project.default_branch, 'main');
    assert.equal(project.import_status, 'finished');
    // The upload the issue's Markdown links to is there under the same secret.
    const issue = (await api('GET', `/projects/${status.id}/issues?search=Crash`, ROOT_TOKEN))[0];
    const link = /\/uploads\/[0-9a-f]{32}\/crash_log\.png/.exec(issue.description)?.[0] ?? '';
    assert.ok(link, issue.description);
    const file = await t.get(`/${project.path_with_namespace}${link}`, { token: ROOT_TOKEN });
    assert.equal(file.statusCode, 200);
    assert.equal(file.body, 'PNG of the crash');
  });

  test('a user who is no administrator becomes the author of everything; notes say who wrote them', async () => {
    const status = await importArchive(exported, { path: 'bobs-copy' }, bob.token);
    assert.equal(status.import_status, 'finished', status.import_error);
    const issues = await api('GET', `/projects/${status.id}/issues?sort=asc`, bob.token);
    assert.ok(issues.every((i: { author: { username: string } }) => i.author.username === 'bob'));
    const notes = await api('GET', `/projects/${status.id}/issues/${issues[0].iid}/notes`, bob.token);
    const note = notes.find((n: { system: boolean }) => !n.system);
    assert.match(note.body, /^Seen it too\n\n \*By User alice on \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2} \(imported from GitLab\)\*$/);
    const members = await api('GET', `/projects/${status.id}/members`, bob.token);
    assert.deepEqual(members.map((m: { username: string }) => m.username), ['bob']);
  });

  test('override_params take precedence over the archive', async () => {
    const status = await importArchive(exported, { path: 'overridden', 'override_params[description]': 'from the request', 'override_params[issues_access_level]': 'disabled' });
    assert.equal(status.import_status, 'finished', status.import_error);
    const project = await api('GET', `/projects/${status.id}`, ROOT_TOKEN);
    assert.equal(project.description, 'from the request');
    assert.equal(project.issues_access_level, 'disabled');
  });

  test('overwrite replaces the project at the path', async () => {
    const first = await importArchive(exported, { path: 'replaced' }, bob.token);
    const second = await importArchive(exported, { path: 'replaced', overwrite: 'true', 'override_params[description]': 'second' }, bob.token);
    assert.equal(second.import_status, 'finished', second.import_error);
    const project = await api('GET', `/projects/${second.id}`, bob.token);
    assert.equal(project.path, 'replaced');
    assert.equal(project.description, 'second');
    assert.equal((await t.get(`/api/v4/projects/${first.id}`, { token: bob.token })).statusCode, 404);
    expectError(await t.post('/api/v4/projects/import', { token: bob.token, ...importForm({ path: 'replaced', name: 'Another name' }, exported) }), 400, { message: 'Path has already been taken' });
  });

  test('an archive made by hand in the platform 14.x layout imports with its repository and records', async () => {
    const archive = await platformArchive(scratch);
    const status = await importArchive(archive, { path: 'from-platform' });
    assert.equal(status.import_status, 'finished', status.import_error);
    const id = status.id;
    const labels = await api('GET', `/projects/${id}/labels`, ROOT_TOKEN);
    assert.deepEqual(labels.map((l: { name: string }) => l.name).sort(), ['Another label', 'test2', 'testlabel']);
    const badges = await api('GET', `/projects/${id}/badges`, ROOT_TOKEN);
    assert.deepEqual(badges.map((b: Record<string, unknown>) => [b.link_url, b.image_url, b.kind]), [['http://www.example.com', 'http://www.example.com', 'project']]);
    const boards = await api('GET', `/projects/${id}/boards`, ROOT_TOKEN);
    assert.deepEqual(boards.map((b: { name: string; lists: { position: number; label: { name: string } }[] }) => [b.name, b.lists.map((l) => [l.position, l.label.name])]), [['TestBoardABC', [[0, 'testlabel']]]]);
    const upload = await t.get(`/${status.path_with_namespace}/uploads/72a497a02fe3ee09edae2ed06d390038/dummy.txt`, { token: ROOT_TOKEN });
    assert.equal(upload.statusCode, 200);
    assert.equal(upload.body, 'dummy upload');
    const milestones = await api('GET', `/projects/${id}/milestones`, ROOT_TOKEN);
    assert.deepEqual(milestones.map((m: { title: string }) => m.title), ['A milestone']);
    const issues = await api('GET', `/projects/${id}/issues`, ROOT_TOKEN);
    assert.equal(issues.length, 1);
    assert.equal(issues[0].iid, 20);
    assert.equal(issues[0].title, 'Fugiat est minima quae maxime non similique.');
    assert.deepEqual(issues[0].labels, ['Another label']);
    assert.equal(issues[0].milestone.title, 'A milestone');
    const notes = await api('GET', `/projects/${id}/issues/20/notes`, ROOT_TOKEN);
    assert.match(notes[0].body, /^Quam totam fuga\n\n \*By Author on 2020-03-28T01:37:42 \(imported from GitLab\)\*$/);
    const mrs = await api('GET', `/projects/${id}/merge_requests`, ROOT_TOKEN);
    assert.equal(mrs.length, 1);
    assert.equal(mrs[0].iid, 9);
    assert.equal(mrs[0].source_branch, 'feature');
    const mrNotes = await api('GET', `/projects/${id}/merge_requests/9/notes`, ROOT_TOKEN);
    assert.ok(mrNotes.some((n: { body: string }) => n.body.startsWith('Sit voluptatibus eveniet architecto quidem.')));
    const branches = await api('GET', `/projects/${id}/repository/branches`, ROOT_TOKEN);
    assert.deepEqual(branches.map((b: { name: string }) => b.name).sort(), ['feature', 'master']);
    const project = await api('GET', `/projects/${id}`, ROOT_TOKEN);
    assert.equal(project.default_branch, 'master');
    // The archive's level (internal), within what the namespace allows.
    assert.equal(project.visibility, 'internal');
    const file = await api('GET', `/projects/${id}/repository/files/README.md?ref=master`, ROOT_TOKEN);
    assert.equal(Buffer.from(file.content, 'base64').toString(), '# platform\n');
    const pb = await api('GET', `/projects/${id}/protected_branches`, ROOT_TOKEN);
    assert.deepEqual(pb.map((b: { name: string }) => b.name), ['master']);
  });

  test('one record that does not hold is a failed relation while the rest imports', async () => {
    const archive = await platformArchive(scratch, { extraLabels: ['{"title":"bad","color":"not-a-colour","type":"ProjectLabel"}', '{"title":"","color":"#000000"}'] });
    const status = await importArchive(archive, { path: 'partly' });
    assert.equal(status.import_status, 'finished', status.import_error);
    assert.equal(status.failed_relations.length, 2);
    for (const failure of status.failed_relations) {
      assert.equal(failure.relation_name, 'labels');
      assert.equal(failure.exception_class, 'ActiveRecord::RecordInvalid');
      assert.equal(failure.source, 'process_relation_item!');
    }
    assert.deepEqual(status.failed_relations.map((f: { exception_message: string }) => f.exception_message).sort(), ["Validation failed: Color must be a valid color code", "Validation failed: Title can't be blank"]);
    const issues = await api('GET', `/projects/${status.id}/issues`, ROOT_TOKEN);
    assert.equal(issues.length, 1);
  });

  test('refusals: the file name, a missing path or file, a namespace that is not there, remote import switched off', async () => {
    expectError(await t.post('/api/v4/projects/import', { token: alice.token, ...importForm({ path: 'x' }, exported, 'export.zip') }), 422, {
      message: { error: 'You need to upload a GitLab project export archive (ending in .gz).' },
    });
    expectError(await t.post('/api/v4/projects/import', { token: alice.token, ...importForm({}, exported) }), 400, { error: 'path is missing' });
    expectError(await t.post('/api/v4/projects/import', { token: alice.token, ...importForm({ path: 'x' }, null) }), 400, { error: 'file is missing' });
    expectError(await t.post('/api/v4/projects/import', { token: alice.token, ...importForm({ path: 'x', namespace: 'nowhere' }, exported) }), 404, { message: '404 Namespace Not Found' });
    expectError(await t.post('/api/v4/projects/import', { token: alice.token, ...importForm({ path: 'x', namespace: 'bob' }, exported) }), 404, { message: '404 Namespace Not Found' });
    expectError(await t.post('/api/v4/projects/import', { ...importForm({ path: 'x' }, exported) }), 401, { message: '401 Unauthorized' });
    expectError(await t.post('/api/v4/projects/remote-import', { token: alice.token, body: { url: 'https://example.com/a.tar.gz', path: 'r' } }), 404, { message: '404 Not Found' });
  });

  test('import status: the error is shown to maintainers only', async () => {
    const status = await importArchive(Buffer.from('not an archive'), { path: 'broken' }, alice.token);
    assert.equal(status.import_status, 'failed');
    assert.match(status.import_error, /Unable to decompress the archive/);
    await api('POST', `/projects/${status.id}/members`, alice.token, { user_id: bob.user.id, access_level: 30 });
    const seen = await api('GET', `/projects/${status.id}/import`, bob.token);
    assert.equal(seen.import_error, 'Ask a maintainer to check the import status for more details.');
    expectError(await t.get(`/api/v4/projects/${status.id}/import`), 401, { message: '401 Unauthorized' });
  });
});

test('the export, its download and imports are rate limited as the platform limits them', async () => {
  await api('PUT', '/application/settings', ROOT_TOKEN, { project_download_export_limit: 1, project_import_limit: 1 });
  const tooMany = { message: { error: 'This endpoint has been requested too many times. Try again later.' } };
  assert.equal((await t.get(`/api/v4/projects/${sourceId}/export/download`, { token: alice.token })).statusCode, 200);
  expectError(await t.get(`/api/v4/projects/${sourceId}/export/download`, { token: alice.token }), 429, tooMany);
  assert.equal((await t.post('/api/v4/projects/import', { token: bob.token, ...importForm({}, null) })).statusCode, 400);
  expectError(await t.post('/api/v4/projects/import', { token: bob.token, ...importForm({}, null) }), 429, tooMany);
  await api('PUT', '/application/settings', ROOT_TOKEN, { project_download_export_limit: 0, project_import_limit: 0 });
});

test('an archive a day old is removed by the hourly task; the status reads none and the download 404s, as the platform answers once it expired', async () => {
  const old = await api('POST', '/projects', alice.token, { path: 'expiring' });
  const fresh = await api('POST', '/projects', alice.token, { path: 'fresh' });
  for (const p of [old, fresh]) assert.equal((await t.post(`/api/v4/projects/${p.id}/export`, { token: alice.token })).statusCode, 202);
  await t.runJobs();
  const stored = async (id: number) => (await t.deps.db.selectFrom('project_exports').selectAll().where('project_id', '=', id).executeTakeFirstOrThrow());
  const oldFile = (await stored(old.id)).file_path as string;
  const freshFile = (await stored(fresh.id)).file_path as string;
  const onDisk = (file: string) => fs.existsSync(path.join(t.deps.config.dataDir, 'artifacts', file));
  assert.ok(onDisk(oldFile) && onDisk(freshFile));
  const dayAgo = new Date(Date.now() - 24 * 3600 * 1000 - 60_000).toISOString();
  await t.deps.db.updateTable('project_exports').set({ exported_at: dayAgo }).where('project_id', '=', old.id).execute();
  // Past its time it is no longer offered, before the task has run too.
  assert.equal((await api('GET', `/projects/${old.id}/export`, alice.token)).export_status, 'none');
  expectError(await t.get(`/api/v4/projects/${old.id}/export/download`, { token: alice.token }), 404, { message: '404 Not found or has expired' });

  assert.ok(periodicTasks.includes(removeExpiredExportsTask));
  await removeExpiredExportsTask.run(t.deps);
  assert.equal(onDisk(oldFile), false);
  assert.equal(fs.existsSync(path.dirname(path.join(t.deps.config.dataDir, 'artifacts', oldFile))), false);
  assert.deepEqual(await stored(old.id).then((r) => [r.status, r.file_path, r.file_name, r.file_size]), ['finished', null, null, null]);
  const status = await api('GET', `/projects/${old.id}/export`, alice.token);
  expectEntity(status, ExportStatusEntity);
  assert.equal(status.export_status, 'none');
  expectError(await t.get(`/api/v4/projects/${old.id}/export/download`, { token: alice.token }), 404, { message: '404 Not found or has expired' });
  // A younger archive stays.
  assert.ok(onDisk(freshFile));
  assert.equal((await t.get(`/api/v4/projects/${fresh.id}/export/download`, { token: alice.token })).statusCode, 200);
  // A new export is offered again.
  assert.equal((await t.post(`/api/v4/projects/${old.id}/export`, { token: alice.token })).statusCode, 202);
  await t.runJobs();
  assert.equal((await t.get(`/api/v4/projects/${old.id}/export/download`, { token: alice.token })).statusCode, 200);
});
