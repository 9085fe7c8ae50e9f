// A real client against a real socket: @gitbeaker/rest lists and reads gitignore, CI and
// Dockerfile templates, and a project's templates of every kind, licenses and issue templates
// included.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { LicenseEntity, TemplateEntity, TemplatesListEntity } from './templates.schemas.ts';

let t: TestApp;
let api: InstanceType<typeof Gitlab>;
let projectId: number;
const YEAR = String(new Date().getUTCFullYear());

before(async () => {
  let host: string;
  ({ t, host } = await listeningTestApp());
  api = new Gitlab({ host, token: ROOT_TOKEN });
  const project = await api.Projects.create({ name: 'gb-templates', initializeWithReadme: true });
  projectId = project.id;
  await api.Commits.create(projectId, 'main', 'Description templates', [
    { action: 'create', filePath: '.gitlab/issue_templates/Bug.md', content: '## Bug\n' },
    { action: 'create', filePath: '.gitlab/merge_request_templates/Default.md', content: '## Change\n' },
  ]);
});
after(() => t.close());

test('LicenseTemplates, GitignoreTemplates, GitLabCIYMLTemplates, DockerfileTemplates', async () => {
  // This client spells the licenses' path templates/Licenses; the platform's routes are
  // case-sensitive, so it is refused there as here (the licenses are read below through
  // ProjectTemplates, whose path is right).
  assert.deepEqual(await failureOf(api.LicenseTemplates.all()), { status: 404, body: '404 Not Found' });
  assert.deepEqual(await failureOf(api.LicenseTemplates.show('mit')), { status: 404, body: '404 Not Found' });

  const gitignores = await api.GitignoreTemplates.all({ perPage: 100, maxPages: 3 });
  expectEntities(gitignores, TemplatesListEntity);
  assert.ok(gitignores.length > 150);
  const go = await api.GitignoreTemplates.show('Go');
  expectEntity(go, TemplateEntity);
  assert.equal(go.name, 'Go');
  // The instance route takes no encoded names (C++ is C%2B%2B); a project's does.
  assert.deepEqual(await failureOf(api.GitignoreTemplates.show('C++')), { status: 404, body: '404 Not Found' });
  const cpp = await api.ProjectTemplates.show(projectId, 'gitignores', 'C++');
  expectEntity(cpp, TemplateEntity);
  assert.equal(cpp.name, 'C++');

  const ci = await api.GitLabCIYMLTemplates.all();
  expectEntities(ci, TemplatesListEntity);
  const bash = await api.GitLabCIYMLTemplates.show('Bash');
  expectEntity(bash, TemplateEntity);
  assert.match(String(bash.content), /^# This file is a template/);

  const dockerfiles = await api.DockerfileTemplates.all();
  expectEntities(dockerfiles, TemplatesListEntity);
  assert.equal(dockerfiles.length, 18);
  expectEntity(await api.DockerfileTemplates.show('Golang'), TemplateEntity);
  assert.deepEqual(await failureOf(api.DockerfileTemplates.show('Nope')), { status: 404, body: '404 dockerfile Not Found' });
});

test('ProjectTemplates: every kind, with the license placeholders', async () => {
  for (const type of ['dockerfiles', 'gitignores', 'gitlab_ci_ymls', 'licenses', 'issues', 'merge_requests'] as const) {
    const list = await api.ProjectTemplates.all(projectId, type, { perPage: 100 });
    expectEntities(list, TemplatesListEntity);
    assert.ok(list.length > 0, type);
  }
  assert.deepEqual(await api.ProjectTemplates.all(projectId, 'issues'), [{ key: 'Bug', name: 'Bug' }]);
  const bug = await api.ProjectTemplates.show(projectId, 'issues', 'Bug');
  expectEntity(bug, TemplateEntity);
  assert.deepEqual(bug, { name: 'Bug', content: '## Bug\n' });
  assert.deepEqual(await api.ProjectTemplates.show(projectId, 'merge_requests', 'Default'), { name: 'Default', content: '## Change\n' });
  const license = await api.ProjectTemplates.show(projectId, 'licenses', 'gpl-3.0', { project: 'gb-templates', fullname: 'The Authors', sourceTemplateProjectId: projectId });
  expectEntity(license, LicenseEntity);
  assert.ok(String(license.content).includes(`    gb-templates\n    Copyright (C) ${YEAR}  The Authors\n`));
  const mit = await api.ProjectTemplates.show(projectId, 'licenses', 'mit');
  expectEntity(mit, LicenseEntity);
  // The caller (root) holds the copyright when no fullname is given.
  assert.match(String(mit.content), new RegExp(`Copyright \\(c\\) ${YEAR} Administrator\\n`));
  assert.deepEqual(await failureOf(api.ProjectTemplates.show(projectId, 'licenses', 'nope')), { status: 404, body: '404 Template Not Found' });
  assert.deepEqual(await failureOf(api.ProjectTemplates.show(projectId, 'issues', 'Nope')), { status: 404, body: '404 Template Not Found' });
});
