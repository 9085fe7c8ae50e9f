// A real client against a listening server: @gitbeaker/rest keeps project, group and system hooks.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { GroupHookEntity, ProjectHookEntity, SystemHookEntity } from './hooks.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(() => t.close());

test('@gitbeaker/rest: ProjectHooks, GroupHooks and SystemHooks', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const project = await api.Projects.create({ name: 'beaker-hooks' });
  const hook = await api.ProjectHooks.add(project.id, 'https://example.com/hook', { issuesEvents: true, token: 'secret' });
  expectEntity(hook, ProjectHookEntity);
  assert.equal(hook.issues_events, true);
  const edited = await api.ProjectHooks.edit(project.id, hook.id as number, 'https://example.com/edited', { pipelineEvents: true });
  assert.deepEqual([edited.url, edited.pipeline_events], ['https://example.com/edited', true]);
  expectEntities(await api.ProjectHooks.all(project.id), ProjectHookEntity);
  assert.equal((await api.ProjectHooks.show(project.id, hook.id as number)).url, 'https://example.com/edited');
  const refusal = await failureOf(api.ProjectHooks.add(project.id, 'ftp://example.com'));
  assert.equal(refusal.status, 422);
  await api.ProjectHooks.remove(project.id, hook.id as number);
  assert.deepEqual(await api.ProjectHooks.all(project.id), []);

  const group = await api.Groups.create('beaker-group', 'beaker-group');
  const groupHook = await api.GroupHooks.add(group.id, 'https://example.com/group', { mergeRequestsEvents: true });
  expectEntity(groupHook, GroupHookEntity);
  assert.equal(groupHook.merge_requests_events, true);
  await api.GroupHooks.remove(group.id, groupHook.id as number);

  const system = await api.SystemHooks.add('https://example.com/system', { tagPushEvents: true });
  expectEntity(system, SystemHookEntity);
  assert.equal(system.tag_push_events, true);
  expectEntities(await api.SystemHooks.all(), SystemHookEntity);
  await api.SystemHooks.remove(system.id as number);
});
