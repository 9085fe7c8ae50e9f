// with_counts=true: opened and closed issues per label as the caller may see them (confidential
// issues for Reporters and above, their authors and assignees; administrators see all), counted by
// title in the label's own project, or for a group label in the projects directly in its group
// that the caller reads with issues open to them; one query for the whole page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectStatus } from '../../../test/matchers.ts';
import { insertIssue } from '../../../test/fixtures/labelled-issues.ts';
import { fewestStatementsDuring } from '../../../test/sql-spy.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { GroupLabelEntity, ProjectLabelEntity } from './labels.schemas.ts';

let t: TestApp;
let author: TestUser;
let assignee: TestUser;
let reporter: TestUser;
let guest: TestUser;
let outsider: TestUser;
let group: NamespaceRow;
let project: ProjectRow;
let hidden: ProjectRow;
let nested: ProjectRow;
let bug: number;
let groupBug: number;

async function label(path: string, name: string): Promise<number> {
  const res = await t.post(`/api/v4/${path}/labels`, { token: ROOT_TOKEN, body: { name, color: '#000' } });
  expectStatus(res, 201);
  return (res.json() as { id: number }).id;
}

before(async () => {
  t = await createTestApp();
  author = await t.user({ username: 'author' });
  assignee = await t.user({ username: 'assignee' });
  reporter = await t.user({ username: 'reporter' });
  guest = await t.user({ username: 'guest' });
  outsider = await t.user({ username: 'outsider' });
  group = await createGroup(t, { visibility: 'public' });
  const members: [number, number][] = [
    [reporter.user.id, ACCESS.REPORTER],
    [guest.user.id, ACCESS.GUEST],
    [author.user.id, ACCESS.GUEST],
    [assignee.user.id, ACCESS.GUEST],
  ];
  project = await createProject(t, { visibility: 'public', namespace: group, members });
  hidden = await createProject(t, { visibility: 'private', namespace: group, members: [[reporter.user.id, ACCESS.REPORTER]] });
  const subgroup = await createGroup(t, { visibility: 'public', parent: group });
  nested = await createProject(t, { visibility: 'public', namespace: subgroup });

  bug = await label(`projects/${project.id}`, 'bug');
  groupBug = await label(`groups/${group.id}`, 'shared');
  await label(`projects/${hidden.id}`, 'shared-here');
  const nestedShared = await label(`projects/${nested.id}`, 'nested');

  // The project label: 2 open (one confidential by the author, assigned to the assignee), 1 closed, 1 confidential closed.
  await insertIssue(t, project.id, { labelIds: [bug] });
  await insertIssue(t, project.id, { labelIds: [bug], confidential: true, authorId: author.user.id, assigneeIds: [assignee.user.id] });
  await insertIssue(t, project.id, { labelIds: [bug], state: 'closed' });
  await insertIssue(t, project.id, { labelIds: [bug], state: 'closed', confidential: true });
  await insertIssue(t, project.id, {});
  // The group label: one open issue in the public project, an open and a closed one in the private
  // one, and one in a project below the group, which its count leaves out.
  await insertIssue(t, project.id, { labelIds: [groupBug] });
  await insertIssue(t, hidden.id, { labelIds: [groupBug] });
  await insertIssue(t, hidden.id, { labelIds: [groupBug], state: 'closed' });
  await insertIssue(t, nested.id, { labelIds: [groupBug, nestedShared] });
});
after(() => t.close());

type Counted = { name: string; open_issues_count: number; closed_issues_count: number; open_merge_requests_count: number };

async function countsIn(path: string, token: string, name: string): Promise<[number, number, number]> {
  const res = await t.get(`/api/v4/${path}/labels`, { token, query: { with_counts: 'true', search: name } });
  expectStatus(res, 200);
  const found = (res.json() as Counted[]).find((l) => l.name === name);
  assert.ok(found, `${name} listed`);
  return [found.open_issues_count, found.closed_issues_count, found.open_merge_requests_count];
}

describe('a project label', () => {
  test('confidential issues count for Reporters, authors, assignees and administrators only', async () => {
    const path = `projects/${project.id}`;
    assert.deepEqual(await countsIn(path, reporter.token, 'bug'), [2, 2, 0]);
    assert.deepEqual(await countsIn(path, ROOT_TOKEN, 'bug'), [2, 2, 0]);
    assert.deepEqual(await countsIn(path, author.token, 'bug'), [2, 1, 0]);
    assert.deepEqual(await countsIn(path, assignee.token, 'bug'), [2, 1, 0]);
    assert.deepEqual(await countsIn(path, guest.token, 'bug'), [1, 1, 0]);
    assert.deepEqual(await countsIn(path, outsider.token, 'bug'), [1, 1, 0]);
  });

  test('issues kept to members by the project’s issues setting count for members only', async () => {
    const { db } = t.deps;
    await db.updateTable('project_features').set({ issues_access_level: 10 }).where('project_id', '=', project.id).execute();
    try {
      assert.deepEqual(await countsIn(`projects/${project.id}`, outsider.token, 'bug'), [0, 0, 0]);
      assert.deepEqual(await countsIn(`projects/${project.id}`, guest.token, 'bug'), [1, 1, 0]);
    } finally {
      await db.updateTable('project_features').set({ issues_access_level: 20 }).where('project_id', '=', project.id).execute();
    }
  });
});

describe('a group label', () => {
  test('counts in the projects directly in its group that the caller reads, from the group and from a project alike', async () => {
    assert.deepEqual(await countsIn(`groups/${group.id}`, reporter.token, 'shared'), [2, 1, 0]);
    assert.deepEqual(await countsIn(`groups/${group.id}`, outsider.token, 'shared'), [1, 0, 0]);
    assert.deepEqual(await countsIn(`projects/${project.id}`, reporter.token, 'shared'), [2, 1, 0]);
  });

  test('the group’s list with its projects’ labels, entities strict', async () => {
    const res = await t.get(`/api/v4/groups/${group.id}/labels`, { token: reporter.token, query: { with_counts: 'true', only_group_labels: 'false', include_descendant_groups: 'true' } });
    expectEntities(res.json(), GroupLabelEntity);
    const byName = Object.fromEntries((res.json() as Counted[]).map((l) => [l.name, [l.open_issues_count, l.closed_issues_count]]));
    assert.deepEqual(byName, { bug: [2, 2], nested: [1, 0], shared: [2, 1], 'shared-here': [0, 0] });
  });

  test('a guest’s page: each label’s counts', async () => {
    const res = await t.get(`/api/v4/projects/${project.id}/labels`, { token: guest.token, query: { with_counts: 'true' } });
    expectEntities(res.json(), ProjectLabelEntity);
    assert.deepEqual(
      (res.json() as Counted[]).map((l) => [l.name, l.open_issues_count, l.closed_issues_count]),
      [
        ['bug', 1, 1],
        ['shared', 1, 0],
      ],
    );
  });
});

describe('the cost of a page', () => {
  test('the same statements for a page of one label as for a page of twenty: no query per label', async () => {
    const many = await createProject(t, { visibility: 'public' });
    for (let i = 0; i < 20; i++) await label(`projects/${many.id}`, `many-${String(i).padStart(2, '0')}`);
    const list = (perPage: string) => () => t.get(`/api/v4/projects/${many.id}/labels`, { token: guest.token, query: { with_counts: 'true', per_page: perPage } });
    const one = await fewestStatementsDuring(t, list('1'));
    const twenty = await fewestStatementsDuring(t, list('20'));
    assert.equal(twenty, one);
  });
});
