// A real client against a listening server: @gitbeaker/rest manages project and group labels
// (pages followed, counts asked for, a title with a space and a slash, promotion, a conflict).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { GroupLabelEntity, ProjectLabelEntity } from './labels.schemas.ts';

let t: TestApp;
let host: string;
let group: NamespaceRow;
let project: ProjectRow;

before(async () => {
  ({ t, host } = await listeningTestApp());
  group = await createGroup(t, { visibility: 'public' });
  project = await createProject(t, { visibility: 'public', namespace: group });
});
after(() => t.close());

describe('@gitbeaker/rest', () => {
  test('ProjectLabels: create, all (every page, with counts), show by title, edit, promote, remove', async () => {
    const api = new Gitlab({ host, token: ROOT_TOKEN });
    for (const name of ['one', 'two', 'three']) await api.ProjectLabels.create(project.id, name, 'teal', { description: `Label ${name}` });
    const created = await api.ProjectLabels.create(project.id, 'needs review/ui', '#FF0000', { priority: 1 });
    expectEntity(created, ProjectLabelEntity);

    const all = await api.ProjectLabels.all(project.id, { perPage: 2, withCounts: true });
    expectEntities(all, ProjectLabelEntity);
    assert.deepEqual(
      all.map((l) => [l.name, l.color, l.open_issues_count]),
      [
        ['needs review/ui', '#FF0000', 0],
        ['one', '#008080', 0],
        ['three', '#008080', 0],
        ['two', '#008080', 0],
      ],
    );

    const shown = await api.ProjectLabels.show(project.id, 'needs review/ui');
    assert.equal(shown.id, created.id);
    await api.ProjectLabels.edit(project.id, created.id as number, { newName: 'reviewed' });
    const edited = await api.ProjectLabels.edit(project.id, 'reviewed', { color: 'green' });
    assert.deepEqual([edited.name, edited.color, edited.priority], ['reviewed', '#008000', 1]);

    const promoted = await api.ProjectLabels.promote(project.id, 'one');
    expectEntity(promoted, GroupLabelEntity);
    assert.equal(promoted.name, 'one');

    await api.ProjectLabels.remove(project.id, 'two');
    assert.deepEqual(
      (await api.ProjectLabels.all(project.id)).map((l) => [l.name, l.is_project_label]),
      [
        ['one', false],
        ['reviewed', true],
        ['three', true],
      ],
    );
    assert.deepEqual(await failureOf(api.ProjectLabels.create(project.id, 'three', '#000')), { status: 409, body: 'Label already exists' });
  });

  test('GroupLabels: create, all, edit, remove', async () => {
    const api = new Gitlab({ host, token: ROOT_TOKEN });
    const label = await api.GroupLabels.create(group.id, 'platform', '#abc');
    expectEntity(label, GroupLabelEntity);
    await api.GroupLabels.edit(group.id, label.id as number, { color: 'black' });
    const all = await api.GroupLabels.all(group.id);
    expectEntities(all, GroupLabelEntity);
    assert.deepEqual(
      all.map((l) => [l.name, l.color]),
      [
        ['one', '#008080'],
        ['platform', '#000000'],
      ],
    );
    await api.GroupLabels.remove(group.id, 'platform');
    assert.deepEqual(
      (await api.GroupLabels.all(group.id)).map((l) => l.name),
      ['one'],
    );
  });
});
