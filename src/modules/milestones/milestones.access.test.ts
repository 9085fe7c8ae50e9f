// Who may call each milestone route, on private, internal and public projects and groups: every
// route needs a signed-in caller; readers of the project (while its issues or merge requests are
// open to them) or of the group read milestones, their issues, merge requests and burndown events;
// Developers and up create, update and delete them; promoting needs the Developer role in the
// project and in its group.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, VISIBILITIES, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { type FeatureLevel, updateProjectSettings } from '../../domain/settings/project-settings.ts';
import { IssueBasicEntity } from '../issues/issues.schemas.ts';
import { MergeRequestBasicEntity } from '../merge-requests/merge-requests.schemas.ts';
import { BurndownEventEntity, MilestoneEntity } from './milestones.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
/** A milestone with dates of each project and group, for the routes that read one. */
const standing = new Map<string, number>();
/** A project in each group, for promotions. */
const groupProjects = new Map<number, ProjectRow>();
let sequence = 0;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const visibility of VISIBILITIES) {
    const { projects, groups } = world;
    standing.set(`project-${projects[visibility].id}`, await make(`/api/v4/projects/${projects[visibility].id}/milestones`));
    standing.set(`group-${groups[visibility].id}`, await make(`/api/v4/groups/${groups[visibility].id}/milestones`));
    groupProjects.set(groups[visibility].id, await createProject(t, { path: `matrix-${visibility}-in-group`, visibility, namespace: groups[visibility] }));
  }
});
after(() => t.close());

/** A new milestone with dates, made by an administrator; its id. */
async function make(base: string): Promise<number> {
  const res = await t.post(base, { token: ROOT_TOKEN, body: { title: `m${++sequence}`, start_date: '2026-01-01', due_date: '2026-02-01' } });
  expectStatus(res, 201);
  return res.json().id;
}

const projectBase = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/milestones`;
const groupBase = (c: MatrixCall) => `/api/v4/groups/${c.group.id}/milestones`;
const readers = expectation({ auth: 'required', success: 200 });
const developers = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.DEVELOPER });

describe('project milestones', () => {
  const one = (c: MatrixCall) => `${projectBase(c)}/${standing.get(`project-${c.project.id}`)}`;

  test('GET the list and one', async () => {
    await runMatrix(world, { expect: readers, errors: refusals('Project'), call: (c) => t.get(projectBase(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), MilestoneEntity) });
    await runMatrix(world, { expect: readers, errors: refusals('Project'), call: (c) => t.get(one(c), { token: c.caller.token }), verify: (res) => expectEntity(res.json(), MilestoneEntity) });
  });

  test('GET its issues, merge requests and burndown events', async () => {
    await runMatrix(world, { expect: readers, errors: refusals('Project'), call: (c) => t.get(`${one(c)}/issues`, { token: c.caller.token }), verify: (res) => expectEntities(res.json(), IssueBasicEntity) });
    await runMatrix(world, {
      expect: readers,
      errors: refusals('Project'),
      call: (c) => t.get(`${one(c)}/merge_requests`, { token: c.caller.token }),
      verify: (res) => expectEntities(res.json(), MergeRequestBasicEntity),
    });
    await runMatrix(world, {
      expect: readers,
      errors: refusals('Project'),
      call: (c) => t.get(`${one(c)}/burndown_events`, { token: c.caller.token }),
      verify: (res) => expectEntities(res.json(), BurndownEventEntity),
    });
  });

  test('POST', async () => {
    await runMatrix(world, {
      expect: developers(201),
      errors: refusals('Project'),
      call: (c) => t.post(projectBase(c), { token: c.caller.token, body: { title: `by ${c.role} ${++sequence}` } }),
      verify: (res) => expectEntity(res.json(), MilestoneEntity),
    });
  });

  test('PUT and DELETE', async () => {
    await runMatrix(world, {
      expect: developers(200),
      errors: refusals('Project'),
      call: async (c) => t.put(`${projectBase(c)}/${await make(projectBase(c))}`, { token: c.caller.token, body: { state_event: 'close' } }),
      verify: (res) => assert.equal(res.json().state, 'closed'),
    });
    await runMatrix(world, {
      expect: developers(204),
      errors: refusals('Project'),
      call: async (c) => t.del(`${projectBase(c)}/${await make(projectBase(c))}`, { token: c.caller.token }),
    });
  });

  test('POST …/promote: Developers of the project’s group', async () => {
    await runMatrix(world, {
      expect: developers(200),
      errors: refusals('Project'),
      call: async (c) => {
        const base = `/api/v4/projects/${groupProjects.get(c.group.id)!.id}/milestones`;
        return t.post(`${base}/${await make(base)}/promote`, { token: c.caller.token });
      },
      verify: (res) => assert.equal(res.json(), 200),
    });
    // The matrix's projects are in their owner's namespace: nobody may promote there.
    await runMatrix(world, {
      expect: developers(403),
      errors: refusals('Project'),
      call: async (c) => t.post(`${projectBase(c)}/${await make(projectBase(c))}/promote`, { token: c.caller.token }),
    });
  });
});

describe('group milestones', () => {
  const one = (c: MatrixCall) => `${groupBase(c)}/${standing.get(`group-${c.group.id}`)}`;

  test('GET the list, one, its issues, merge requests and burndown events', async () => {
    await runMatrix(world, { expect: readers, errors: refusals('Group'), call: (c) => t.get(groupBase(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), MilestoneEntity) });
    await runMatrix(world, { expect: readers, errors: refusals('Group'), call: (c) => t.get(one(c), { token: c.caller.token }), verify: (res) => expectEntity(res.json(), MilestoneEntity) });
    await runMatrix(world, { expect: readers, errors: refusals('Group'), call: (c) => t.get(`${one(c)}/issues`, { token: c.caller.token }), verify: (res) => expectEntities(res.json(), IssueBasicEntity) });
    await runMatrix(world, {
      expect: readers,
      errors: refusals('Group'),
      call: (c) => t.get(`${one(c)}/merge_requests`, { token: c.caller.token }),
      verify: (res) => expectEntities(res.json(), MergeRequestBasicEntity),
    });
    await runMatrix(world, {
      expect: readers,
      errors: refusals('Group'),
      call: (c) => t.get(`${one(c)}/burndown_events`, { token: c.caller.token }),
      verify: (res) => expectEntities(res.json(), BurndownEventEntity),
    });
  });

  test('POST, PUT and DELETE', async () => {
    await runMatrix(world, {
      expect: developers(201),
      errors: refusals('Group'),
      call: (c) => t.post(groupBase(c), { token: c.caller.token, body: { title: `by ${c.role} ${++sequence}` } }),
      verify: (res) => expectEntity(res.json(), MilestoneEntity),
    });
    await runMatrix(world, {
      expect: developers(200),
      errors: refusals('Group'),
      call: async (c) => t.put(`${groupBase(c)}/${await make(groupBase(c))}`, { token: c.caller.token, body: { description: c.role } }),
      verify: (res) => expectEntity(res.json(), MilestoneEntity),
    });
    await runMatrix(world, {
      expect: developers(204),
      errors: refusals('Group'),
      call: async (c) => t.del(`${groupBase(c)}/${await make(groupBase(c))}`, { token: c.caller.token }),
    });
  });
});

test('a project’s milestones are closed to readers when neither its issues nor its merge requests are open to them', async () => {
  const project = world.projects.public;
  const base = `/api/v4/projects/${project.id}/milestones`;
  const m = standing.get(`project-${project.id}`);
  const reads = (token?: string) => Promise.all([t.get(base, { token }), t.get(`${base}/${m}`, { token }), t.get(`${base}/${m}/issues`, { token }), t.get(`${base}/${m}/burndown_events`, { token })]);
  const { reporter, non_member: nonMember } = world.callers;
  const features = (issues: FeatureLevel, mergeRequests: FeatureLevel) =>
    updateProjectSettings(t.deps.db, project.id, { features: { issues_access_level: issues, merge_requests_access_level: mergeRequests } });
  try {
    await features('disabled', 'enabled');
    for (const res of await reads(nonMember.token)) expectStatus(res, 200);
    await features('private', 'private');
    for (const res of await reads(reporter.token)) expectStatus(res, 200);
    for (const res of await reads(nonMember.token)) expectError(res, 403, { message: '403 Forbidden' });
    await features('disabled', 'disabled');
    for (const res of await reads(ROOT_TOKEN)) expectError(res, 403, { message: '403 Forbidden' });
  } finally {
    await features('enabled', 'enabled');
  }
});
