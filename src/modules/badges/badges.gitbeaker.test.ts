// A real client against a listening server: @gitbeaker/rest keeps project and group badges.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { BadgeEntity, BasicBadgeEntity } from './badges.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(() => t.close());

test('@gitbeaker/rest: ProjectBadges and GroupBadges', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const group = await api.Groups.create('beaker-badges', 'beaker-badges');
  const project = await api.Projects.create({ name: 'shields', namespaceId: group.id });

  const badge = await api.ProjectBadges.add(project.id, 'https://example.com/%{project_path}', 'https://example.com/%{project_id}.svg', { name: 'coverage' });
  expectEntity(badge, BadgeEntity);
  assert.deepEqual([badge.kind, badge.rendered_link_url, badge.rendered_image_url], ['project', 'https://example.com/beaker-badges/shields', `https://example.com/${project.id}.svg`]);
  const edited = await api.ProjectBadges.edit(project.id, badge.id, { name: 'pipeline' });
  assert.equal(edited.name, 'pipeline');
  expectEntity(await api.ProjectBadges.show(project.id, badge.id), BadgeEntity);
  const preview = await api.ProjectBadges.preview(project.id, 'https://example.com/%{default_branch}', 'https://example.com/i.svg');
  expectEntity(preview, BasicBadgeEntity);
  assert.equal(preview.link_url, 'https://example.com/%{default_branch}');
  const refusal = await failureOf(api.ProjectBadges.add(project.id, 'not a url', 'https://example.com/i.svg'));
  assert.deepEqual(refusal, { status: 400, body: JSON.stringify({ link_url: ['must be a valid URL'] }) });

  const groupBadge = await api.GroupBadges.add(group.id, 'https://example.com/g', 'https://example.com/g.svg');
  expectEntity(groupBadge, BadgeEntity);
  expectEntities(await api.GroupBadges.all(group.id), BadgeEntity);
  const all = await api.ProjectBadges.all(project.id);
  expectEntities(all, BadgeEntity);
  assert.deepEqual(all.map((b) => [b.id, b.kind]), [[badge.id, 'project'], [groupBadge.id, 'group']]);
  assert.equal((await failureOf(api.ProjectBadges.remove(project.id, groupBadge.id))).status, 403);
  await api.GroupBadges.remove(group.id, groupBadge.id);
  await api.ProjectBadges.remove(project.id, badge.id);
  assert.deepEqual(await api.ProjectBadges.all(project.id), []);
});
