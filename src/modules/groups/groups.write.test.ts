// POST, PUT and DELETE /groups: defaults and settings, the platform's validation messages, renames
// that carry every descendant along, visibility rules, racing creations, and deletion.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { NAMESPACE_FORMAT_MESSAGE } from '../../domain/namespace-paths.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { addMember, createGroup, createProject } from '../../../test/factories.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { GroupDetailEntity, GroupEntity } from './groups.schemas.ts';
import { NAME_FORMAT_MESSAGE } from './groups.validation.ts';

let t: TestApp;
let alice: TestUser;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice' });
});
after(() => t.close());

/** Rows as plain objects (SQLite hands them out without a prototype). */
const plain = <T extends object>(rows: T[]): T[] => rows.map((r) => ({ ...r }));

const create = (body: unknown, token = alice.token) => t.post('/api/v4/groups', { token, body });
const failed = (errors: string) => ({ message: `Failed to save group ${errors}` });

async function groupRow(id: number): Promise<NamespaceRow | undefined> {
  return t.deps.db.selectFrom('namespaces').selectAll().where('id', '=', id).executeTakeFirst();
}

describe('POST /groups', () => {
  test('creates a private top-level group with the platform defaults; the creator owns it', async () => {
    const res = await create({ name: 'Acme Corp', path: 'acme' });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, GroupDetailEntity);
    const { id, created_at, ...rest } = body;
    assert.ok(Number.isInteger(id));
    assert.deepEqual(rest, {
      web_url: 'http://quarry.test/groups/acme',
      name: 'Acme Corp',
      path: 'acme',
      description: '',
      visibility: 'private',
      share_with_group_lock: false,
      require_two_factor_authentication: false,
      two_factor_grace_period: 48,
      project_creation_level: 'developer',
      auto_devops_enabled: null,
      subgroup_creation_level: 'maintainer',
      emails_disabled: null,
      mentions_disabled: null,
      lfs_enabled: true,
      default_branch_protection: 2,
      avatar_url: null,
      request_access_enabled: true,
      full_name: 'Acme Corp',
      full_path: 'acme',
      parent_id: null,
      shared_with_groups: [],
      prevent_sharing_groups_outside_hierarchy: false,
      projects: [],
      shared_projects: [],
    });
    const member = await t.deps.db
      .selectFrom('members')
      .selectAll()
      .where('source_type', '=', 'Namespace')
      .where('source_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(member.user_id, alice.user.id);
    assert.equal(member.access_level, ACCESS.OWNER);
    const shown = await t.get(`/api/v4/groups/${id}`, { token: alice.token });
    expectStatus(shown, 200);
    expectEntity(shown.json(), GroupDetailEntity);
  });

  test('takes every setting, from a form body too', async () => {
    const form = new URLSearchParams({
      name: 'Settings',
      path: 'settings-group',
      description: 'All of them',
      visibility: 'internal',
      share_with_group_lock: 'true',
      require_two_factor_authentication: 'yes',
      two_factor_grace_period: '12',
      project_creation_level: 'noone',
      auto_devops_enabled: 'true',
      subgroup_creation_level: 'owner',
      emails_disabled: 'true',
      mentions_disabled: 'false',
      lfs_enabled: 'false',
      request_access_enabled: 'false',
      default_branch_protection: '0',
      shared_runners_setting: 'disabled_with_override',
    }).toString();
    const res = await t.post('/api/v4/groups', { token: alice.token, form });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, GroupDetailEntity);
    assert.deepEqual(
      {
        description: body.description,
        visibility: body.visibility,
        share_with_group_lock: body.share_with_group_lock,
        require_two_factor_authentication: body.require_two_factor_authentication,
        two_factor_grace_period: body.two_factor_grace_period,
        project_creation_level: body.project_creation_level,
        auto_devops_enabled: body.auto_devops_enabled,
        subgroup_creation_level: body.subgroup_creation_level,
        emails_disabled: body.emails_disabled,
        mentions_disabled: body.mentions_disabled,
        lfs_enabled: body.lfs_enabled,
        request_access_enabled: body.request_access_enabled,
        default_branch_protection: body.default_branch_protection,
      },
      {
        description: 'All of them',
        visibility: 'internal',
        share_with_group_lock: true,
        require_two_factor_authentication: true,
        two_factor_grace_period: 12,
        project_creation_level: 'noone',
        auto_devops_enabled: true,
        subgroup_creation_level: 'owner',
        emails_disabled: true,
        mentions_disabled: false,
        lfs_enabled: false,
        request_access_enabled: false,
        default_branch_protection: 0,
      },
    );
  });

  test('a subgroup takes its parent path and name in front, and a locked parent locks it', async () => {
    const parent = (await create({ name: 'Parent', path: 'parent', share_with_group_lock: true })).json();
    const res = await create({ name: 'Child', path: 'child', parent_id: parent.id });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, GroupDetailEntity);
    assert.equal(body.full_path, 'parent/child');
    assert.equal(body.full_name, 'Parent / Child');
    assert.equal(body.web_url, 'http://quarry.test/groups/parent/child');
    assert.equal(body.parent_id, parent.id);
    assert.equal(body.share_with_group_lock, true);
    assert.equal('prevent_sharing_groups_outside_hierarchy' in body, false);
  });

  test('subgroup_creation_level: maintainers may create subgroups unless it says owner', async () => {
    const maintainer = await t.user();
    // A group whose settings do not name the level has the platform's default, as POST /groups stores it.
    const unset = await createGroup(t, { members: [[maintainer.user.id, ACCESS.MAINTAINER]] });
    assert.equal((await t.get(`/api/v4/groups/${unset.id}`, { token: ROOT_TOKEN })).json().subgroup_creation_level, 'maintainer');
    expectStatus(await create({ name: 'By maintainer', path: 'by-maintainer', parent_id: unset.id }, maintainer.token), 201);
    const ownersOnly = await createGroup(t, { members: [[maintainer.user.id, ACCESS.MAINTAINER]], settings: { subgroup_creation_level: 'owner' } });
    expectError(await create({ name: 'Refused', path: 'refused', parent_id: ownersOnly.id }, maintainer.token), 403, { message: '403 Forbidden' });
  });

  test('an administrator creating a subgroup anywhere becomes its Owner', async () => {
    const parent = await createGroup(t, { visibility: 'private' });
    const res = await create({ name: 'By root', path: 'by-root', parent_id: parent.id }, ROOT_TOKEN);
    expectStatus(res, 201);
    expectEntity(res.json(), GroupDetailEntity);
    const member = await t.deps.db.selectFrom('members').select(['user_id', 'access_level']).where('source_id', '=', res.json().id).executeTakeFirstOrThrow();
    assert.deepEqual({ ...member }, { user_id: 1, access_level: ACCESS.OWNER });
  });

  describe('parameter errors', () => {
    const cases: [string, unknown, string][] = [
      ['no name', { path: 'x1' }, 'name is missing'],
      ['no path', { name: 'x1' }, 'path is missing'],
      ['neither', {}, 'name is missing, path is missing'],
      ['an unknown visibility', { name: 'x1', path: 'x1', visibility: 'secret' }, 'visibility does not have a valid value'],
      ['an unknown project creation level', { name: 'x1', path: 'x1', project_creation_level: 'all' }, 'project_creation_level does not have a valid value'],
      ['an unknown subgroup creation level', { name: 'x1', path: 'x1', subgroup_creation_level: 'developer' }, 'subgroup_creation_level does not have a valid value'],
      ['an unknown branch protection', { name: 'x1', path: 'x1', default_branch_protection: 7 }, 'default_branch_protection does not have a valid value'],
      ['a parent_id that is no number', { name: 'x1', path: 'x1', parent_id: 'abc' }, 'parent_id is invalid'],
      ['a boolean that is no boolean', { name: 'x1', path: 'x1', lfs_enabled: 'maybe' }, 'lfs_enabled is invalid'],
    ];
    for (const [label, body, error] of cases) {
      test(`${label}: 400 ${error}`, async () => {
        const before = await t.count('namespaces');
        expectError(await create(body), 400, { error });
        assert.equal(await t.count('namespaces'), before);
      });
    }
  });

  describe('validation failures answer 400 with the errors printed as the platform prints them', () => {
    let parent: NamespaceRow;
    before(async () => {
      parent = await createGroup(t, { path: 'holder', visibility: 'internal', members: [[alice.user.id, ACCESS.OWNER]] });
      await createGroup(t, { path: 'taken' });
      await createProject(t, { namespace: parent, path: 'proj' });
    });
    const cases: [string, () => Record<string, unknown>, string][] = [
      ['a path with a space', () => ({ name: 'Bad', path: 'bad path' }), `{:path=>["${NAMESPACE_FORMAT_MESSAGE}"]}`],
      ['a path starting with a dash', () => ({ name: 'Bad', path: '-bad' }), `{:path=>["${NAMESPACE_FORMAT_MESSAGE}"]}`],
      ['a path ending in .git', () => ({ name: 'Bad', path: 'bad.git' }), `{:path=>["${NAMESPACE_FORMAT_MESSAGE}"]}`],
      ['a reserved top-level path', () => ({ name: 'Api', path: 'api' }), '{:path=>["api is a reserved name"]}'],
      ['a reserved word below a group', () => ({ name: 'Tree', path: 'tree', parent_id: parent.id }), '{:path=>["tree is a reserved name"]}'],
      ['a one-character path', () => ({ name: 'A', path: 'a' }), '{:path=>["is too short (minimum is 2 characters)"]}'],
      ['a blank name', () => ({ name: '', path: 'blank-name' }), `{:name=>["can't be blank", "${NAME_FORMAT_MESSAGE}"]}`],
      ['a name starting with a dash', () => ({ name: '-Dash', path: 'dash-name' }), `{:name=>["${NAME_FORMAT_MESSAGE}"]}`],
      ['a long name', () => ({ name: 'n'.repeat(256), path: 'long-name' }), '{:name=>["is too long (maximum is 255 characters)"]}'],
      ['a long description', () => ({ name: 'Desc', path: 'long-desc', description: 'd'.repeat(256) }), '{:description=>["is too long (maximum is 255 characters)"]}'],
      ['a negative grace period', () => ({ name: 'Grace', path: 'grace', two_factor_grace_period: -1 }), '{:two_factor_grace_period=>["must be greater than or equal to 0"]}'],
      ['a path taken, in another case', () => ({ name: 'Taken', path: 'TAKEN' }), '{:path=>["has already been taken"]}'],
      ['the path of a user', () => ({ name: 'Alice', path: 'alice' }), '{:path=>["has already been taken"]}'],
      ['the path of a project in the parent', () => ({ name: 'Proj', path: 'proj', parent_id: parent.id }), '{:path=>["has already been taken"]}'],
      [
        'more visible than its parent',
        () => ({ name: 'Loud', path: 'loud', parent_id: parent.id, visibility: 'public' }),
        '{:visibility_level=>["public is not allowed since the parent group has a internal visibility."]}',
      ],
      [
        'several problems at once',
        () => ({ name: '', path: 'x', description: 'd'.repeat(300) }),
        `{:name=>["can't be blank", "${NAME_FORMAT_MESSAGE}"], :description=>["is too long (maximum is 255 characters)"], :path=>["is too short (minimum is 2 characters)"]}`,
      ],
    ];
    for (const [label, body, errors] of cases) {
      test(label, async () => {
        const before = await t.count('namespaces');
        expectError(await create(body()), 400, failed(errors));
        assert.equal(await t.count('namespaces'), before);
      });
    }

    test('nesting deeper than 20 ancestors', async () => {
      let group = await createGroup(t, { path: 'deep0', members: [[alice.user.id, ACCESS.OWNER]] });
      for (let depth = 1; depth < 20; depth++) group = await createGroup(t, { path: `deep${depth}`, parent: group });
      const twentieth = await create({ name: 'Deep 20', path: 'deep20', parent_id: group.id });
      expectStatus(twentieth, 201);
      expectEntity(twentieth.json(), GroupDetailEntity);
      expectError(await create({ name: 'Deep 21', path: 'deep21', parent_id: twentieth.json().id }), 400, failed('{:parent_id=>["has too deep level of nesting"]}'));
    });
  });

  test('a parent that does not exist or that the caller cannot see: 404', async () => {
    const hidden = await createGroup(t, { visibility: 'private' });
    for (const parent_id of [999999, 0, hidden.id]) {
      expectError(await create({ name: 'Orphan', path: 'orphan', parent_id }), 404, { message: '404 Group Not Found' });
    }
  });

  test('two creations racing for one path: exactly one wins, the other fails as taken', async () => {
    for (let round = 0; round < 5; round++) {
      const path = `race-${round}`;
      const results = await Promise.all([create({ name: 'Race A', path }), create({ name: 'Race B', path: path.toUpperCase() }, ROOT_TOKEN)]);
      const statuses = results.map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [201, 400], results.map((r) => r.body).join('\n'));
      const loser = results.find((r) => r.statusCode === 400);
      assert.deepEqual(loser?.json(), failed('{:path=>["has already been taken"]}'));
      const rows = await t.deps.db.selectFrom('namespaces').select('id').where('path', 'in', [path, path.toUpperCase()]).execute();
      assert.equal(rows.length, 1);
    }
  });
});

describe('PUT /groups/:id', () => {
  test('changes settings and answers the detail', async () => {
    const group = (await create({ name: 'Editable', path: 'editable' })).json();
    const res = await t.put(`/api/v4/groups/${group.id}`, {
      token: alice.token,
      body: { description: 'New words', visibility: 'public', project_creation_level: 'maintainer', lfs_enabled: false, request_access_enabled: false, parent_id: 1 },
    });
    expectStatus(res, 200);
    const body = res.json();
    expectEntity(body, GroupDetailEntity);
    assert.equal(body.description, 'New words');
    assert.equal(body.visibility, 'public');
    assert.equal(body.project_creation_level, 'maintainer');
    assert.equal(body.lfs_enabled, false);
    assert.equal(body.request_access_enabled, false);
    // parent_id is not something an update changes.
    assert.equal(body.parent_id, null);
    assert.equal('runners_token' in body, false);
  });

  test('a new path and name carry every subgroup and project along; the old path is gone', async () => {
    const top = (await create({ name: 'Old Top', path: 'old-top' })).json();
    const mid = (await create({ name: 'Mid', path: 'mid', parent_id: top.id })).json();
    const leaf = (await create({ name: 'Leaf', path: 'leaf', parent_id: mid.id })).json();
    const other = (await create({ name: 'Old Top Other', path: 'old-top-other' })).json();
    const topRow = (await groupRow(top.id)) as NamespaceRow;
    const leafRow = (await groupRow(leaf.id)) as NamespaceRow;
    const atTop = await createProject(t, { namespace: topRow, path: 'app', name: 'App' });
    const atLeaf = await createProject(t, { namespace: leafRow, path: 'lib', name: 'Lib' });
    const elsewhere = await createProject(t, { namespace: (await groupRow(other.id)) as NamespaceRow, path: 'keep', name: 'Keep' });

    const res = await t.put(`/api/v4/groups/${top.id}`, { token: alice.token, body: { path: 'new-top', name: 'New Top' } });
    expectStatus(res, 200);
    expectEntity(res.json(), GroupDetailEntity);
    assert.equal(res.json().full_path, 'new-top');
    assert.equal(res.json().full_name, 'New Top');

    const groups = await t.deps.db.selectFrom('namespaces').select(['id', 'full_path', 'full_name']).where('id', 'in', [top.id, mid.id, leaf.id, other.id]).orderBy('id').execute();
    assert.deepEqual(plain(groups), [
      { id: top.id, full_path: 'new-top', full_name: 'New Top' },
      { id: mid.id, full_path: 'new-top/mid', full_name: 'New Top / Mid' },
      { id: leaf.id, full_path: 'new-top/mid/leaf', full_name: 'New Top / Mid / Leaf' },
      { id: other.id, full_path: 'old-top-other', full_name: 'Old Top Other' },
    ]);
    const projects = await t.deps.db
      .selectFrom('projects')
      .select(['id', 'full_path', 'name_with_namespace'])
      .where('id', 'in', [atTop.id, atLeaf.id, elsewhere.id])
      .orderBy('id')
      .execute();
    assert.deepEqual(plain(projects), [
      { id: atTop.id, full_path: 'new-top/app', name_with_namespace: 'New Top / App' },
      { id: atLeaf.id, full_path: 'new-top/mid/leaf/lib', name_with_namespace: 'New Top / Mid / Leaf / Lib' },
      { id: elsewhere.id, full_path: 'old-top-other/keep', name_with_namespace: 'Old Top Other / Keep' },
    ]);

    const leafByPath = await t.get(`/api/v4/groups/${encodeURIComponent('new-top/mid/leaf')}`, { token: alice.token });
    expectStatus(leafByPath, 200);
    expectEntity(leafByPath.json(), GroupDetailEntity);
    assert.equal(leafByPath.json().web_url, 'http://quarry.test/groups/new-top/mid/leaf');
    assert.deepEqual(
      leafByPath.json().projects.map((p: { path_with_namespace: string; name_with_namespace: string }) => [p.path_with_namespace, p.name_with_namespace]),
      [['new-top/mid/leaf/lib', 'New Top / Mid / Leaf / Lib']],
    );
    for (const old of ['old-top', 'old-top/mid', 'old-top/mid/leaf']) {
      expectError(await t.get(`/api/v4/groups/${encodeURIComponent(old)}`, { token: alice.token }), 404, { message: '404 Group Not Found' });
    }
  });

  test('renaming a subgroup leaves its parent and siblings alone', async () => {
    const top = (await create({ name: 'Family', path: 'family' })).json();
    const a = (await create({ name: 'A kid', path: 'kid', parent_id: top.id })).json();
    const b = (await create({ name: 'Kid two', path: 'kid2', parent_id: top.id })).json();
    const res = await t.put(`/api/v4/groups/${encodeURIComponent('family/kid')}`, { token: alice.token, body: { path: 'renamed' } });
    expectStatus(res, 200);
    expectEntity(res.json(), GroupDetailEntity);
    assert.equal(res.json().full_path, 'family/renamed');
    assert.equal((await groupRow(top.id))?.full_path, 'family');
    assert.equal((await groupRow(b.id))?.full_path, 'family/kid2');
    assert.equal((await groupRow(a.id))?.full_name, 'Family / A kid');
  });

  test('a case-only rename is no conflict with itself', async () => {
    const group = (await create({ name: 'Cased', path: 'cased' })).json();
    const res = await t.put(`/api/v4/groups/${group.id}`, { token: alice.token, body: { path: 'Cased' } });
    expectStatus(res, 200);
    expectEntity(res.json(), GroupDetailEntity);
    assert.equal(res.json().full_path, 'Cased');
  });

  describe('validation failures: 400 with the field messages', () => {
    let group: { id: number };
    before(async () => {
      group = (await create({ name: 'Strict', path: 'strict', visibility: 'internal' })).json();
      await create({ name: 'Neighbour', path: 'neighbour' });
    });
    const cases: [string, Record<string, unknown>, Record<string, string[]>][] = [
      ['a taken path', { path: 'NEIGHBOUR' }, { path: ['has already been taken'] }],
      ['a bad path', { path: 'bad/path' }, { path: [NAMESPACE_FORMAT_MESSAGE] }],
      ['a reserved path', { path: 'admin' }, { path: ['admin is a reserved name'] }],
      ['a blank name', { name: ' ' }, { name: ["can't be blank", NAME_FORMAT_MESSAGE] }],
      ['a negative grace period', { two_factor_grace_period: -5 }, { two_factor_grace_period: ['must be greater than or equal to 0'] }],
    ];
    for (const [label, body, errors] of cases) {
      test(label, async () => {
        const before = await groupRow(group.id);
        expectError(await t.put(`/api/v4/groups/${group.id}`, { token: alice.token, body }), 400, { message: errors });
        assert.deepEqual(await groupRow(group.id), before);
      });
    }
  });

  describe('visibility', () => {
    test('not above the parent', async () => {
      const parent = (await create({ name: 'Quiet', path: 'quiet', visibility: 'internal' })).json();
      const child = (await create({ name: 'Kid', path: 'kid', parent_id: parent.id })).json();
      expectError(await t.put(`/api/v4/groups/${child.id}`, { token: alice.token, body: { visibility: 'public' } }), 400, {
        message: { visibility_level: ['public is not allowed since the parent group has a internal visibility.'] },
      });
    });

    test('not below a subgroup or a project', async () => {
      const parent = (await create({ name: 'Open', path: 'open', visibility: 'public' })).json();
      await create({ name: 'Open kid', path: 'kid', parent_id: parent.id, visibility: 'internal' });
      await createProject(t, { namespace: (await groupRow(parent.id)) as NamespaceRow, visibility: 'public' });
      expectError(await t.put(`/api/v4/groups/${parent.id}`, { token: alice.token, body: { visibility: 'private' } }), 400, {
        message: {
          visibility_level: [
            'private is not allowed since this group contains projects with higher visibility.',
            'private is not allowed since there are sub-groups with higher visibility.',
          ],
        },
      });
      const internal = await t.put(`/api/v4/groups/${parent.id}`, { token: alice.token, body: { visibility: 'internal', description: 'x' } });
      expectError(internal, 400, { message: { visibility_level: ['internal is not allowed since this group contains projects with higher visibility.'] } });
    });
  });

  describe('share_with_group_lock', () => {
    test('a lock holds for every group below', async () => {
      const top = (await create({ name: 'Lock', path: 'lock' })).json();
      const mid = (await create({ name: 'Lock mid', path: 'mid', parent_id: top.id })).json();
      const leaf = (await create({ name: 'Lock leaf', path: 'leaf', parent_id: mid.id })).json();
      const res = await t.put(`/api/v4/groups/${top.id}`, { token: alice.token, body: { share_with_group_lock: true } });
      expectStatus(res, 200);
      expectEntity(res.json(), GroupDetailEntity);
      for (const id of [mid.id, leaf.id]) {
        const shown = (await t.get(`/api/v4/groups/${id}?with_projects=false`, { token: alice.token })).json();
        expectEntity(shown, GroupEntity);
        assert.equal(shown.share_with_group_lock, true);
      }
    });

    test("only those who administer the parent lift the parent's lock", async () => {
      const bob = await t.user();
      const top = await createGroup(t, { path: 'locked-top', settings: { share_with_group_lock: true }, members: [[alice.user.id, ACCESS.OWNER]] });
      const sub = await createGroup(t, { path: 'sub', parent: top, settings: { share_with_group_lock: true }, members: [[bob.user.id, ACCESS.OWNER]] });
      expectError(await t.put(`/api/v4/groups/${sub.id}`, { token: bob.token, body: { share_with_group_lock: false } }), 400, {
        message: { share_with_group_lock: ['cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group'] },
      });
      const res = await t.put(`/api/v4/groups/${sub.id}`, { token: alice.token, body: { share_with_group_lock: false } });
      expectStatus(res, 200);
      expectEntity(res.json(), GroupDetailEntity);
      assert.equal(res.json().share_with_group_lock, false);
    });
  });
});

describe('DELETE /groups/:id', () => {
  test('removes the group, its subgroups, their projects and memberships; members lose their access', async () => {
    const member = await t.user();
    const top = await createGroup(t, { path: 'doomed', members: [[alice.user.id, ACCESS.OWNER]] });
    const sub = await createGroup(t, { path: 'sub', parent: top, members: [[member.user.id, ACCESS.DEVELOPER]] });
    const project = await createProject(t, { namespace: sub, members: [[member.user.id, ACCESS.MAINTAINER]] });
    const bystander = await createGroup(t, { path: 'doomed-not' });
    const authorized = () =>
      t.deps.db.selectFrom('project_authorizations').select('user_id').where('project_id', '=', project.id).orderBy('user_id').execute();
    assert.deepEqual(plain(await authorized()), [{ user_id: alice.user.id }, { user_id: member.user.id }]);

    const res = await t.del(`/api/v4/groups/${top.id}`, { token: alice.token });
    expectError(res, 202, { message: '202 Accepted' });
    assert.equal(await groupRow(top.id), undefined);
    assert.equal(await groupRow(sub.id), undefined);
    assert.ok(await groupRow(bystander.id));
    assert.equal((await t.deps.db.selectFrom('projects').select('id').where('id', '=', project.id).executeTakeFirst()), undefined);
    const memberships = await t.deps.db
      .selectFrom('members')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('source_type', '=', 'Namespace'), eb('source_id', 'in', [top.id, sub.id])]),
          eb.and([eb('source_type', '=', 'Project'), eb('source_id', '=', project.id)]),
        ]),
      )
      .execute();
    assert.deepEqual(memberships, []);
    assert.deepEqual(await t.deps.db.selectFrom('project_authorizations').select('user_id').where('user_id', '=', member.user.id).execute(), []);
    expectError(await t.get(`/api/v4/groups/${top.id}`, { token: ROOT_TOKEN }), 404, { message: '404 Group Not Found' });
  });

  test('deleting a subgroup leaves its parent', async () => {
    const top = await createGroup(t, { path: 'stays', members: [[alice.user.id, ACCESS.OWNER]] });
    const sub = await createGroup(t, { path: 'goes', parent: top });
    expectError(await t.del(`/api/v4/groups/${encodeURIComponent('stays/goes')}`, { token: alice.token }), 202, { message: '202 Accepted' });
    assert.equal(await groupRow(sub.id), undefined);
    assert.ok(await groupRow(top.id));
  });

  test('If-Unmodified-Since before the last change: 412 and nothing removed', async () => {
    const group = await createGroup(t, { members: [[alice.user.id, ACCESS.OWNER]] });
    const earlier = new Date(Date.parse(group.updated_at) - 60_000).toUTCString();
    expectError(await t.del(`/api/v4/groups/${group.id}`, { token: alice.token, headers: { 'if-unmodified-since': earlier } }), 412, {
      message: '412 Precondition Failed',
    });
    assert.ok(await groupRow(group.id));
    const later = new Date(Date.parse(group.updated_at) + 60_000).toUTCString();
    expectError(await t.del(`/api/v4/groups/${group.id}`, { token: alice.token, headers: { 'if-unmodified-since': later } }), 202, { message: '202 Accepted' });
  });

  test('an unknown group: 404', async () => {
    expectError(await t.del('/api/v4/groups/987654', { token: ROOT_TOKEN }), 404, { message: '404 Group Not Found' });
    expectError(await t.del('/api/v4/groups/no-such-group', { token: ROOT_TOKEN }), 404, { message: '404 Group Not Found' });
  });
});

describe('group custom attributes', () => {
  test('administrators set, read, list and delete them', async () => {
    const group = await createGroup(t, { path: 'attributed' });
    const base = `/api/v4/groups/${group.id}/custom_attributes`;
    const set = await t.put(`${base}/team`, { token: ROOT_TOKEN, body: { value: 'core' } });
    expectStatus(set, 200);
    assert.deepEqual(set.json(), { key: 'team', value: 'core' });
    const replaced = await t.put(`${base}/team`, { token: ROOT_TOKEN, body: { value: 'platform' } });
    assert.deepEqual(replaced.json(), { key: 'team', value: 'platform' });
    assert.deepEqual((await t.get(base, { token: ROOT_TOKEN })).json(), [{ key: 'team', value: 'platform' }]);
    assert.deepEqual((await t.get(`${base}/team`, { token: ROOT_TOKEN })).json(), { key: 'team', value: 'platform' });
    expectError(await t.put(`${base}/blank`, { token: ROOT_TOKEN, body: { value: ' ' } }), 400, { message: { value: ["can't be blank"] } });
    expectError(await t.put(`${base}/nothing`, { token: ROOT_TOKEN, body: {} }), 400, { error: 'value is missing' });
    const removed = await t.del(`${base}/team`, { token: ROOT_TOKEN });
    assert.equal(removed.statusCode, 204);
    expectError(await t.get(`${base}/team`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.del(`${base}/team`, { token: ROOT_TOKEN }), 404, { message: '404 Custom attribute Not Found' });
  });
});

describe('a member of a group added later', () => {
  test('reaches its projects through the refreshed authorizations', async () => {
    const carol = await t.user();
    const group = (await create({ name: 'Later', path: 'later' })).json();
    const row = (await groupRow(group.id)) as NamespaceRow;
    await createProject(t, { namespace: row });
    await addMember(t, row, carol.user.id, ACCESS.REPORTER);
    const shown = await t.get(`/api/v4/groups/${group.id}`, { token: carol.token });
    expectStatus(shown, 200);
    expectEntity(shown.json(), GroupDetailEntity);
    assert.equal(shown.json().projects.length, 1);
  });
});
