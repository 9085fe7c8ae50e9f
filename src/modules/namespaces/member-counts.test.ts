// The member counts of namespace entities are kept once counted: every change that can alter them
// (memberships of groups, subgroups and their projects, blocked users, deleted projects, the day
// a membership expires) must show at the next read, and an unchanged namespace is not recounted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addMember, createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectStatus } from '../../../test/matchers.ts';
import { statementsDuring } from '../../../test/sql-spy.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { NamespaceEntity } from './namespaces.schemas.ts';

let clock = Date.parse('2031-03-10T12:00:00.000Z');
let t: TestApp;
let group: NamespaceRow;
let subgroup: NamespaceRow;

before(async () => {
  t = await createTestApp({}, { now: () => new Date(clock) });
  group = await createGroup(t, { path: 'counted' });
  subgroup = await createGroup(t, { path: 'below', parent: group });
});
after(() => t.close());

/** [members_count_with_descendants, billable_members_count] of the group, as an administrator reads them. */
async function counts(of: NamespaceRow = group): Promise<[number, number]> {
  const res = await t.get(`/api/v4/namespaces/${of.id}`, { token: ROOT_TOKEN });
  expectStatus(res, 200);
  expectEntity(res.json(), NamespaceEntity);
  return [res.json().members_count_with_descendants, res.json().billable_members_count];
}

/** How many counting queries `call` runs. */
const countingQueries = async (call: () => Promise<unknown>) => (await statementsDuring(t, call)).filter((q) => q.includes('count(distinct')).length;

test('counted once, then read from what was kept', async () => {
  assert.equal(await countingQueries(() => counts()), 2);
  assert.equal(await countingQueries(() => counts()), 0);
});

test('every change that alters a count shows at the next read', async () => {
  const [ann, ben, cid] = await Promise.all([t.user(), t.user(), t.user()]);
  const base = await counts();

  expectStatus(await t.post(`/api/v4/groups/${group.id}/members`, { token: ROOT_TOKEN, body: { user_id: ann.user.id, access_level: ACCESS.DEVELOPER } }), 201);
  assert.deepEqual(await counts(), [base[0] + 1, base[1] + 1], 'a member of the group');

  await addMember(t, subgroup, ben.user.id, ACCESS.REPORTER);
  assert.deepEqual(await counts(), [base[0] + 2, base[1] + 2], 'a member of a subgroup');

  const project = await createProject(t, { path: 'counted-project', namespace: subgroup });
  expectStatus(await t.post(`/api/v4/projects/${project.id}/members`, { token: ROOT_TOKEN, body: { user_id: cid.user.id, access_level: ACCESS.GUEST } }), 201);
  assert.deepEqual(await counts(), [base[0] + 2, base[1] + 3], 'a member of a project below: billable only');

  expectStatus(await t.post(`/api/v4/users/${ben.user.id}/block`, { token: ROOT_TOKEN }), 201);
  assert.deepEqual(await counts(), [base[0] + 1, base[1] + 2], 'a blocked user');

  expectStatus(await t.del(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN }), 202);
  assert.deepEqual(await counts(), [base[0] + 1, base[1] + 1], 'a deleted project');

  expectStatus(await t.del(`/api/v4/groups/${group.id}/members/${ann.user.id}`, { token: ROOT_TOKEN }), 204);
  assert.deepEqual(await counts(), base, 'a member removed');
});

test('a membership that expires leaves the counts the next day, without any write', async () => {
  const dee = await t.user();
  const base = await counts(subgroup);
  await addMember(t, subgroup, dee.user.id, ACCESS.DEVELOPER, '2031-03-11');
  assert.deepEqual(await counts(subgroup), [base[0] + 1, base[1] + 1]);
  clock += 24 * 3600 * 1000;
  assert.deepEqual(await counts(subgroup), base);
});
