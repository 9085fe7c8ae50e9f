// A project's templates: Quarry's own kinds as the instance lists them (licenses grouped popular
// first), and the issue and merge request description templates of the project's repository at
// its default branch; placeholders, parameters and 404s as the platform's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { createProject } from '../../../test/factories.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { LicenseEntity, TemplateEntity, TemplatesListEntity } from './templates.schemas.ts';

let t: TestApp;
let owner: TestUser;
let projectId: number;
let emptyId: number;

const BUG = '## Summary\n\n(What happened?)\n\n/label ~bug\n';
const YEAR = String(new Date().getUTCFullYear());

async function commit(id: number, branch: string, actions: { action: string; file_path: string; content?: string }[], startBranch?: string): Promise<void> {
  const res = await t.post(`/api/v4/projects/${id}/repository/commits`, {
    token: ROOT_TOKEN,
    body: { branch, commit_message: 'Templates', actions, ...(startBranch ? { start_branch: startBranch } : {}) },
  });
  expectStatus(res, 201);
}

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'tpl-owner', name: 'Olive Owner' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Templated', initialize_with_readme: true } });
  expectStatus(res, 201);
  projectId = res.json().id;
  await commit(projectId, 'main', [
    { action: 'create', file_path: '.gitlab/issue_templates/Bug.md', content: BUG },
    { action: 'create', file_path: '.gitlab/issue_templates/Feature request.md', content: 'Describe the feature.\n' },
    { action: 'create', file_path: '.gitlab/issue_templates/Café ✓.md', content: 'Unicode\n' },
    { action: 'create', file_path: '.gitlab/issue_templates/notes.txt', content: 'not a template\n' },
    { action: 'create', file_path: '.gitlab/issue_templates/nested/Deep.md', content: 'deeper\n' },
    { action: 'create', file_path: '.gitlab/merge_request_templates/Default.md', content: 'Closes #\n' },
  ]);
  // Templates on another branch are not the project's.
  await commit(projectId, 'other', [{ action: 'create', file_path: '.gitlab/issue_templates/Elsewhere.md', content: 'x\n' }], 'main');
  emptyId = (await createProject(t, { visibility: 'private', creatorId: owner.user.id, namespace: undefined, members: [] })).id;
});
after(() => t.close());

const get = (path: string, query?: Record<string, string>, token = owner.token) => t.get(`/api/v4/projects/${projectId}/templates/${path}`, { token, query });

describe('issue and merge request templates from the repository', () => {
  test('lists the Markdown files of the folder at the default branch, sorted by name', async () => {
    const issues = await get('issues');
    expectStatus(issues, 200);
    expectEntities(issues.json(), TemplatesListEntity);
    assert.deepEqual(issues.json(), [
      { key: 'Bug', name: 'Bug' },
      { key: 'Café ✓', name: 'Café ✓' },
      { key: 'Feature request', name: 'Feature request' },
    ]);
    assert.equal(issues.headers['x-total'], '3');
    const mrs = await get('merge_requests');
    expectEntities(mrs.json(), TemplatesListEntity);
    assert.deepEqual(mrs.json(), [{ key: 'Default', name: 'Default' }]);
    const paged = await get('issues', { per_page: '1', page: '2' });
    assert.deepEqual(paged.json(), [{ key: 'Café ✓', name: 'Café ✓' }]);
    assert.equal(paged.headers['x-next-page'], '3');
  });

  test('reads one by name, encoded names too', async () => {
    const bug = await get('issues/Bug');
    expectStatus(bug, 200);
    expectEntity(bug.json(), TemplateEntity);
    assert.deepEqual(bug.json(), { name: 'Bug', content: BUG });
    assert.deepEqual((await get('issues/Feature%20request')).json(), { name: 'Feature request', content: 'Describe the feature.\n' });
    assert.deepEqual((await get(`issues/${encodeURIComponent('Café ✓')}`)).json(), { name: 'Café ✓', content: 'Unicode\n' });
    assert.deepEqual((await get('merge_requests/Default')).json(), { name: 'Default', content: 'Closes #\n' });
  });

  test('what is not a template of the default branch is 404', async () => {
    for (const path of ['issues/Nope', 'issues/notes', 'issues/Elsewhere', 'merge_requests/Bug', 'issues/..%2F..%2FREADME', 'issues/nested%2F..%2FBug', 'issues/%2FBug']) {
      expectError(await get(path), 404, { message: '404 Template Not Found' });
    }
    // Names are word characters, dots, dashes, pluses and percent-encodings as written in the
    // path: others do not route, whatever the kind or the project.
    expectError(await get('issues/Bug(old)'), 404, { error: '404 Not Found' });
    expectError(await t.get('/api/v4/projects/999999/templates/nope/a~b'), 404, { error: '404 Not Found' });
    // A project without a repository has none.
    const empty = await t.get(`/api/v4/projects/${emptyId}/templates/issues`, { token: owner.token });
    expectStatus(empty, 200);
    assert.deepEqual(empty.json(), []);
    expectError(await t.get(`/api/v4/projects/${emptyId}/templates/issues/Bug`, { token: owner.token }), 404, { message: '404 Template Not Found' });
  });
});

describe("Quarry's own templates through a project", () => {
  test('licenses: popular ones first, then the others, each by name', async () => {
    const res = await get('licenses', { per_page: '100' });
    expectStatus(res, 200);
    expectEntities(res.json(), TemplatesListEntity);
    const keys = res.json().map((item: { key: string }) => item.key);
    assert.deepEqual(keys.slice(0, 4), ['apache-2.0', 'gpl-3.0', 'mit', 'bsd-2-clause']);
    assert.equal(keys.length, 13);
    assert.deepEqual(res.json()[2], { key: 'mit', name: 'MIT License' });
  });

  test("a license: the whole entity, the caller's name, the project and fullname parameters", async () => {
    const mit = await get('licenses/mit');
    expectStatus(mit, 200);
    expectEntity(mit.json(), LicenseEntity);
    assert.equal(mit.json().key, 'mit');
    assert.match(mit.json().content, new RegExp(`Copyright \\(c\\) ${YEAR} Olive Owner\\n`));
    const gpl = await get('licenses/gpl-3.0', { project: 'Templated', fullname: 'The Authors', source_template_project_id: '1' });
    expectStatus(gpl, 200);
    expectEntity(gpl.json(), LicenseEntity);
    assert.ok(gpl.json().content.includes(`    Templated\n    Copyright (C) ${YEAR}  The Authors\n`));
    expectError(await get('licenses/nope'), 404, { message: '404 Template Not Found' });
    expectError(await get('licenses/mit', { source_template_project_id: 'abc' }), 400, { error: 'source_template_project_id is invalid' });
  });

  test('gitignores, CI files and Dockerfiles: the instance lists and texts', async () => {
    for (const [type, name] of [['gitignores', 'Node'], ['gitlab_ci_ymls', 'Nodejs'], ['dockerfiles', 'Node']] as const) {
      const list = await get(type, { per_page: '100' });
      expectStatus(list, 200);
      expectEntities(list.json(), TemplatesListEntity);
      const instance = await t.get(`/api/v4/templates/${type}`, { query: { per_page: '100' } });
      assert.deepEqual(list.json(), instance.json(), type);
      assert.equal(list.headers['x-total'], instance.headers['x-total']);
      const one = await get(`${type}/${name}`);
      expectStatus(one, 200);
      expectEntity(one.json(), TemplateEntity);
      assert.deepEqual(one.json(), (await t.get(`/api/v4/templates/${type}/${name}`)).json());
      expectError(await get(`${type}/Nope`), 404, { message: '404 Template Not Found' });
    }
    // Encoded names reach what the instance routes cannot: C++, and the global gitignores and
    // the CI templates in folders by their paths.
    assert.equal((await get('gitignores/C%2B%2B')).json().name, 'C++');
    assert.deepEqual((await get('gitignores/Global%2FVim')).json(), (await get('gitignores/Vim')).json());
    assert.equal((await get('gitlab_ci_ymls/Workflows%2FBranch-Pipelines')).json().name, 'Branch-Pipelines');
    expectError(await get('gitlab_ci_ymls/..%2Fconfig%2Fcompile'), 404, { message: '404 Template Not Found' });
  });

  test('an unknown kind is refused before the project is looked up', async () => {
    expectError(await get('metrics'), 400, { error: 'type does not have a valid value' });
    expectError(await t.get('/api/v4/projects/999999/templates/nope/x'), 400, { error: 'type does not have a valid value' });
    expectError(await t.get('/api/v4/projects/999999/templates/issues'), 404, { message: '404 Project Not Found' });
  });
});
