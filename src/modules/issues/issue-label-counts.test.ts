// The counters of a project's issues per label, state and confidentiality (migration 0021's
// triggers) against the rows they count, through every change the API makes: issues opened with
// labels, labels added and removed, closing and reopening, confidentiality, deletion, a label
// deleted and a project label promoted to its group's. And the X-Total of a list filtered by one
// label, read from them, against the list's own rows for callers who see more or fewer issues.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectStatus } from '../../../test/matchers.ts';

let t: TestApp;
let project: ProjectRow;
let reporter: TestUser;
let guest: TestUser;

before(async () => {
  t = await createTestApp();
  reporter = await t.user();
  guest = await t.user();
  const group = await createGroup(t, { path: 'counted-group', visibility: 'public', members: [[reporter.user.id, ACCESS.OWNER]] });
  project = await createProject(t, { path: 'counted', namespace: group, visibility: 'public', members: [[reporter.user.id, ACCESS.REPORTER], [guest.user.id, ACCESS.GUEST]] });
});
after(() => t.close());

const base = () => `/api/v4/projects/${project.id}/issues`;

/** The counters, and the same numbers counted from the rows, both without zero counts. */
async function counters() {
  const kept = await t.deps.db.selectFrom('issue_label_counts').selectAll().where('issues', '>', 0).execute();
  const counted = await t.deps.db
    .selectFrom('label_links as ll')
    .innerJoin('issues as i', 'i.id', 'll.target_id')
    .select(['i.project_id', 'll.label_id', 'i.state', 'i.confidential', (eb) => eb.fn.countAll<number>().as('issues')])
    .where('ll.target_type', '=', 'Issue')
    .groupBy(['i.project_id', 'll.label_id', 'i.state', 'i.confidential'])
    .execute();
  const key = (r: { project_id: number; label_id: number; state: string; confidential: boolean | number; issues: number | string }) =>
    `${r.project_id}/${r.label_id}/${r.state}/${Boolean(r.confidential)}=${Number(r.issues)}`;
  return { kept: kept.map(key).sort(), counted: counted.map(key).sort() };
}

async function expectConsistent(step: string): Promise<void> {
  const { kept, counted } = await counters();
  assert.deepEqual(kept, counted, `after ${step}`);
  // X-Total from the counters (or, where they cannot answer, the rows) equals the rows each caller is shown.
  for (const token of [ROOT_TOKEN, reporter.token, guest.token, undefined]) {
    for (const query of [{ labels: 'bug' }, { labels: 'bug', state: 'opened' }, { labels: 'ui', state: 'closed' }] as Record<string, string>[]) {
      const res = await t.get(base(), { token, query: { ...query, per_page: '100' } });
      expectStatus(res, 200);
      assert.equal(res.headers['x-total'], String(res.json().length), `${step}: ${JSON.stringify(query)} as ${token ?? 'anonymous'}`);
    }
  }
}

const create = async (body: Record<string, unknown>, token = ROOT_TOKEN) => {
  const res = await t.post(base(), { token, body: { title: 'Counted', ...body } });
  expectStatus(res, 201);
  return res.json().iid as number;
};
const edit = async (iid: number, body: Record<string, unknown>) => expectStatus(await t.put(`${base()}/${iid}`, { token: ROOT_TOKEN, body }), 200);

test('the counters follow every change of labels, state, confidentiality and issues', async () => {
  const a = await create({ labels: 'bug,ui' });
  const b = await create({ labels: 'bug' });
  await create({ labels: 'ui' });
  await expectConsistent('opening');
  await edit(b, { state_event: 'close' });
  await edit(a, { remove_labels: 'ui', add_labels: 'docs' });
  await expectConsistent('closing and relabelling');
  // A guest's confidential issue: the guest sees it, other guests would not; the counters count it apart.
  const secret = await create({ labels: 'bug', confidential: true }, guest.token);
  await expectConsistent('a confidential issue');
  await edit(secret, { confidential: false });
  await edit(b, { state_event: 'reopen' });
  await expectConsistent('made public and reopened');
  await edit(secret, { confidential: true });
  expectStatus(await t.del(`${base()}/${a}`, { token: ROOT_TOKEN }), 204);
  await expectConsistent('deleting an issue');
  expectStatus(await t.del(`/api/v4/projects/${project.id}/labels`, { token: ROOT_TOKEN, body: { name: 'docs' } }), 204);
  await expectConsistent('deleting a label');
  expectStatus(await t.put(`/api/v4/projects/${project.id}/labels/promote`, { token: reporter.token, body: { name: 'ui' } }), 200);
  await expectConsistent('promoting a label');
});
