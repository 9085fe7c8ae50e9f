// Who may read the label, state and milestone events of issues and merge requests, on private,
// internal and public projects: a signed-in caller who reads the project (anonymous callers 401,
// blocked accounts 403, projects they may not see 404) and the issue or merge request itself: a
// confidential issue's events are for Reporters and up (and the administrator), a private
// project's merge requests' not for its guests; those get the noteable's 404.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TSchema } from '@sinclair/typebox';
import { ACCESS } from '../../core/access/levels.ts';
import { type Expectation, type MatrixCall, type MatrixWorld, ROLE_LEVEL, VISIBILITIES, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { ResourceLabelEventEntity, ResourceMilestoneEventEntity, ResourceStateEventEntity } from './resource-events.schemas.ts';

type Kind = 'issue' | 'confidential' | 'mr';
const EVENTS = [
  ['resource_label_events', ResourceLabelEventEntity],
  ['resource_state_events', ResourceStateEventEntity],
  ['resource_milestone_events', ResourceMilestoneEventEntity],
] as const satisfies readonly (readonly [string, TSchema])[];
type EventPath = (typeof EVENTS)[number][0];

let t: TestApp;
let world: MatrixWorld;
/** Per project and noteable kind: the noteable's URL and one event id of each kind. */
const subjects = new Map<string, { url: string; events: Record<EventPath, number> }>();

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t, 'events');
  for (const project of Object.values(world.projects)) {
    await giveRepository(t, project);
    const base = `/api/v4/projects/${project.id}`;
    assert.equal((await t.post(`${base}/labels`, { token: ROOT_TOKEN, body: { name: 'bug', color: '#ff0000' } })).statusCode, 201);
    const milestone = (await t.post(`${base}/milestones`, { token: ROOT_TOKEN, body: { title: 'v1' } })).json();
    const urls: Record<Kind, string> = {
      issue: `${base}/issues/${(await t.post(`${base}/issues`, { token: ROOT_TOKEN, body: { title: 'Tracked' } })).json().iid}`,
      confidential: `${base}/issues/${(await t.post(`${base}/issues`, { token: ROOT_TOKEN, body: { title: 'Secret', confidential: true } })).json().iid}`,
      mr: `${base}/merge_requests/${await newMergeRequest(project.id)}`,
    };
    for (const [kind, url] of Object.entries(urls)) {
      const changed = await t.put(url, { token: ROOT_TOKEN, body: { add_labels: 'bug', milestone_id: milestone.id, state_event: 'close' } });
      assert.equal(changed.statusCode, 200, changed.body);
      const events = {} as Record<EventPath, number>;
      for (const [path] of EVENTS) {
        const listed = (await t.get(`${url}/${path}`, { token: ROOT_TOKEN })).json();
        assert.ok(listed.length > 0, `${kind}: no ${path}`);
        events[path] = listed[0].id;
      }
      subjects.set(`${project.id}:${kind}`, { url, events });
    }
  }
});
after(() => t.close());

async function newMergeRequest(projectId: number): Promise<number> {
  const project = Object.values(world.projects).find((p) => p.id === projectId)!;
  const source = `events-${projectId}`;
  await commitOn(projectRepositoryPath(t.deps.config.repositoryStorages, project) as string, source, { from: 'main' });
  const res = await t.post(`/api/v4/projects/${projectId}/merge_requests`, { token: ROOT_TOKEN, body: { title: 'A change', source_branch: source, target_branch: 'main' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().iid;
}

const subject = (c: MatrixCall, kind: Kind) => subjects.get(`${c.project.id}:${kind}`)!;

/** The noteable's own rule over the project's (see discussions.access.test.ts). */
function over(kind: Kind, base: Expectation): Expectation {
  return (role, visibility) => {
    const status = base(role, visibility);
    if (status === 401 || status === 404 || role === 'blocked' || role === 'admin') return status;
    if (kind === 'confidential' && ROLE_LEVEL[role] < ACCESS.REPORTER) return 404;
    if (kind === 'mr' && role === 'guest' && visibility === 'private') return 404;
    return status;
  };
}

const readers = expectation({ auth: 'required', success: 200 });
/** The noteable's 404 names the issue (or nothing, for a merge request): only the project's is checked through the matrix. */
const errorsFor = (kind: Kind) => (kind === 'issue' ? refusals('Project') : { 401: refusals('Project')[401], 403: refusals('Project')[403] });

for (const kind of ['issue', 'confidential', 'mr'] as const) {
  for (const [path, entity] of EVENTS) {
    test(`GET ${path} of ${kind === 'mr' ? 'a merge request' : kind === 'issue' ? 'an issue' : 'a confidential issue'}, and one of them`, async () => {
      await runMatrix(world, {
        expect: over(kind, readers),
        errors: errorsFor(kind),
        call: (c) => t.get(`${subject(c, kind).url}/${path}`, { token: c.caller.token }),
        verify: (res) => expectEntities(res.json(), entity),
      });
      await runMatrix(world, {
        expect: over(kind, readers),
        errors: errorsFor(kind),
        call: (c) => t.get(`${subject(c, kind).url}/${path}/${subject(c, kind).events[path]}`, { token: c.caller.token }),
        verify: (res) => expectEntity(res.json(), entity),
      });
    });
  }
}

test('the 404 of a noteable the caller may not read', async () => {
  const guest = world.callers.guest.token;
  for (const visibility of VISIBILITIES) {
    const res = await t.get(`${subjects.get(`${world.projects[visibility].id}:confidential`)!.url}/resource_state_events`, { token: guest });
    assert.deepEqual([res.statusCode, res.json()], [404, { message: '404 Issue Not Found' }], visibility);
  }
  const mr = await t.get(`${subjects.get(`${world.projects.private.id}:mr`)!.url}/resource_label_events`, { token: guest });
  assert.deepEqual([mr.statusCode, mr.json()], [404, { message: '404 Not found' }]);
});
