// Who may call each label route, on private, internal and public projects and groups: every route
// needs a signed-in caller (401 otherwise, public subjects included); reading and subscribing need
// read access; creating, updating and deleting need Reporter. Subjects the caller may not see are
// 404s, blocked accounts 403s.
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { GroupLabelEntity, ProjectLabelEntity } from './labels.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) await t.post(`/api/v4/projects/${project.id}/labels`, { token: ROOT_TOKEN, body: { name: 'shared', color: '#000' } });
  for (const group of Object.values(world.groups)) await t.post(`/api/v4/groups/${group.id}/labels`, { token: ROOT_TOKEN, body: { name: 'shared', color: '#000' } });
});
after(() => t.close());

const readers = (success: number) => expectation({ auth: 'required', success });
const reporters = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.REPORTER });
const project = (c: MatrixCall, suffix = '') => `/api/v4/projects/${c.project.id}/labels${suffix}`;
const group = (c: MatrixCall, suffix = '') => `/api/v4/groups/${c.group.id}/labels${suffix}`;
let sequence = 0;

/** A label of its own for each call that changes or deletes one. */
async function labelFor(path: string): Promise<number> {
  const res = await t.post(path, { token: ROOT_TOKEN, body: { name: `own-${++sequence}`, color: '#000' } });
  return (res.json() as { id: number }).id;
}

const projectErrors = refusals('Project');
const groupErrors = refusals('Group');

test('GET project labels and one label', async () => {
  await runMatrix(world, { expect: readers(200), errors: projectErrors, call: (c) => t.get(project(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), ProjectLabelEntity) });
  await runMatrix(world, { expect: readers(200), errors: projectErrors, call: (c) => t.get(project(c, '/shared'), { token: c.caller.token }), verify: (res) => expectEntity(res.json(), ProjectLabelEntity) });
});

test('POST, PUT and DELETE project labels: Reporter and above', async () => {
  await runMatrix(world, {
    expect: reporters(201),
    errors: projectErrors,
    call: (c) => t.post(project(c), { token: c.caller.token, body: { name: `new-${++sequence}`, color: 'red' } }),
    verify: (res) => expectEntity(res.json(), ProjectLabelEntity),
  });
  await runMatrix(world, {
    expect: reporters(200),
    errors: projectErrors,
    call: async (c) => t.put(project(c, `/${await labelFor(project(c))}`), { token: c.caller.token, body: { color: 'blue', priority: 1 } }),
    verify: (res) => expectEntity(res.json(), ProjectLabelEntity),
  });
  await runMatrix(world, { expect: reporters(204), errors: projectErrors, call: async (c) => t.del(project(c, `/${await labelFor(project(c))}`), { token: c.caller.token }) });
});

test('subscribing to a project label: every reader', async () => {
  await runMatrix(world, {
    expect: readers(201),
    errors: projectErrors,
    call: async (c) => t.post(project(c, `/${await labelFor(project(c))}/subscribe`), { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), ProjectLabelEntity),
  });
});

test('GET group labels and one label', async () => {
  await runMatrix(world, { expect: readers(200), errors: groupErrors, call: (c) => t.get(group(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), GroupLabelEntity) });
  await runMatrix(world, { expect: readers(200), errors: groupErrors, call: (c) => t.get(group(c, '/shared'), { token: c.caller.token }), verify: (res) => expectEntity(res.json(), GroupLabelEntity) });
});

test('POST, PUT and DELETE group labels: the group’s Reporters and above', async () => {
  await runMatrix(world, {
    expect: reporters(201),
    errors: groupErrors,
    call: (c) => t.post(group(c), { token: c.caller.token, body: { name: `new-${++sequence}`, color: '#123456' } }),
    verify: (res) => expectEntity(res.json(), GroupLabelEntity),
  });
  await runMatrix(world, {
    expect: reporters(200),
    errors: groupErrors,
    call: async (c) => t.put(group(c, `/${await labelFor(group(c))}`), { token: c.caller.token, body: { description: 'Changed' } }),
    verify: (res) => expectEntity(res.json(), GroupLabelEntity),
  });
  await runMatrix(world, { expect: reporters(204), errors: groupErrors, call: async (c) => t.del(group(c, `/${await labelFor(group(c))}`), { token: c.caller.token }) });
});

test('subscribing to a group label: every reader', async () => {
  await runMatrix(world, {
    expect: readers(201),
    errors: groupErrors,
    call: async (c) => t.post(group(c, `/${await labelFor(group(c))}/subscribe`), { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), GroupLabelEntity),
  });
});
