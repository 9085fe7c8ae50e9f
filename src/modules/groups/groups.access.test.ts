// Who may call each groups route: anonymous, a non-member, each role from Guest to Owner, an
// administrator, an external user and a blocked user, on private, internal and public groups.
// Invisible groups answer 404, visible ones the caller may not change 403; refused calls change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TSchema, Type } from '@sinclair/typebox';
import type { LightMyRequestResponse } from 'fastify';
import { ACCESS, type VisibilityName } from '../../core/access/levels.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { createGroup } from '../../../test/factories.ts';
import { expectEntity, expectError } from '../../../test/matchers.ts';
import { CustomAttributeEntity } from '../custom-attributes/custom-attributes.schemas.ts';
import { GroupDetailEntity, GroupEntity } from './groups.schemas.ts';

const ROLES = ['anonymous', 'nonMember', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin', 'external', 'blocked'] as const;
type Role = (typeof ROLES)[number];
const VISIBILITIES: VisibilityName[] = ['private', 'internal', 'public'];

const LEVELS: Partial<Record<Role, number>> = {
  guest: ACCESS.GUEST,
  reporter: ACCESS.REPORTER,
  developer: ACCESS.DEVELOPER,
  maintainer: ACCESS.MAINTAINER,
  owner: ACCESS.OWNER,
};

let t: TestApp;
const tokens: Partial<Record<Role, string>> = { admin: ROOT_TOKEN };
const userIds: Partial<Record<Role, number>> = {};

before(async () => {
  t = await createTestApp();
  for (const role of ROLES) {
    if (role === 'anonymous' || role === 'admin') continue;
    const { user, token } = await t.user(role === 'external' ? { external: true } : {});
    tokens[role] = token;
    userIds[role] = user.id;
  }
  await t.deps.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', userIds.blocked as number).execute();
});
after(() => t.close());

/** A group where every role holds its membership (the blocked user too, as an Owner). */
function groupFor(visibility: VisibilityName): Promise<NamespaceRow> {
  const members: [number, number][] = Object.entries(LEVELS).map(([role, level]) => [userIds[role as Role] as number, level]);
  members.push([userIds.blocked as number, ACCESS.OWNER]);
  return createGroup(t, { visibility, members });
}

type Outcome = { status: number; entity: TSchema } | { status: number; body: unknown };

const UNAUTHORIZED: Outcome = { status: 401, body: { message: '401 Unauthorized' } };
const FORBIDDEN: Outcome = { status: 403, body: { message: '403 Forbidden' } };
const BLOCKED: Outcome = { status: 403, body: { message: '403 Forbidden - Your account has been blocked.' } };
const GROUP_NOT_FOUND: Outcome = { status: 404, body: { message: '404 Group Not Found' } };

function canRead(role: Role, visibility: VisibilityName): boolean {
  if (role === 'anonymous' || role === 'external') return visibility === 'public';
  if (role === 'nonMember') return visibility !== 'private';
  return true;
}

/** Readers get `success`, others 404; blocked users are refused before anything. */
function readers(success: Outcome) {
  return (role: Role, visibility: VisibilityName): Outcome => {
    if (role === 'blocked') return BLOCKED;
    return canRead(role, visibility) ? success : GROUP_NOT_FOUND;
  };
}

/** Writes: 401 anonymous; 404 when invisible; `success` for the roles allowed, 403 for other readers. */
function writers(success: Outcome, allowed: readonly Role[]) {
  return (role: Role, visibility: VisibilityName): Outcome => {
    if (role === 'anonymous') return UNAUTHORIZED;
    if (role === 'blocked') return BLOCKED;
    if (!canRead(role, visibility)) return GROUP_NOT_FOUND;
    return allowed.includes(role) ? success : FORBIDDEN;
  };
}

interface Route {
  name: string;
  call(token: string | undefined, group: NamespaceRow): Promise<LightMyRequestResponse>;
  expect(role: Role, visibility: VisibilityName): Outcome;
  /** Whether a call may change the group (then every call gets a fresh one). */
  writes?: boolean;
  /** Checks that a refused call left things as they were. */
  unchanged?(group: NamespaceRow): Promise<void>;
}

let sequence = 0;

const ROUTES: Route[] = [
  {
    name: 'GET /groups/:id',
    call: (token, g) => t.get(`/api/v4/groups/${g.id}`, { token }),
    expect: readers({ status: 200, entity: GroupDetailEntity }),
  },
  {
    name: 'GET /groups/:id?with_projects=false',
    call: (token, g) => t.get(`/api/v4/groups/${encodeURIComponent(g.full_path)}?with_projects=false`, { token }),
    expect: readers({ status: 200, entity: GroupEntity }),
  },
  {
    name: 'GET /groups/:id/subgroups',
    call: (token, g) => t.get(`/api/v4/groups/${g.id}/subgroups`, { token }),
    expect: readers({ status: 200, entity: Type.Array(GroupEntity) }),
  },
  {
    name: 'GET /groups/:id/descendant_groups',
    call: (token, g) => t.get(`/api/v4/groups/${g.id}/descendant_groups`, { token }),
    expect: readers({ status: 200, entity: Type.Array(GroupEntity) }),
  },
  {
    name: 'GET /groups/:id/custom_attributes',
    call: (token, g) => t.get(`/api/v4/groups/${g.id}/custom_attributes`, { token }),
    expect: (role, visibility) => {
      if (role === 'blocked') return BLOCKED;
      if (!canRead(role, visibility)) return GROUP_NOT_FOUND;
      return role === 'admin' ? { status: 200, entity: Type.Array(CustomAttributeEntity) } : FORBIDDEN;
    },
  },
  {
    name: 'PUT /groups/:id/custom_attributes/:key',
    writes: true,
    call: (token, g) => t.put(`/api/v4/groups/${g.id}/custom_attributes/team`, { token, body: { value: 'core' } }),
    expect: writers({ status: 200, entity: CustomAttributeEntity }, ['admin']),
    unchanged: async (g) => assert.equal(await countWhere('group_custom_attributes', 'group_id', g.id), 0),
  },
  {
    name: 'GET /groups/:id/custom_attributes/:key',
    call: async (token, g) => {
      await setAttribute(g);
      return t.get(`/api/v4/groups/${g.id}/custom_attributes/team`, { token });
    },
    expect: (role, visibility) => {
      if (role === 'blocked') return BLOCKED;
      if (!canRead(role, visibility)) return GROUP_NOT_FOUND;
      return role === 'admin' ? { status: 200, entity: CustomAttributeEntity } : FORBIDDEN;
    },
  },
  {
    name: 'DELETE /groups/:id/custom_attributes/:key',
    writes: true,
    call: async (token, g) => {
      await setAttribute(g);
      return t.del(`/api/v4/groups/${g.id}/custom_attributes/team`, { token });
    },
    expect: writers({ status: 204, body: null }, ['admin']),
    unchanged: async (g) => assert.equal(await countWhere('group_custom_attributes', 'group_id', g.id), 1),
  },
  {
    name: 'PUT /groups/:id',
    writes: true,
    call: (token, g) => t.put(`/api/v4/groups/${g.id}`, { token, body: { description: 'changed' } }),
    expect: writers({ status: 200, entity: GroupDetailEntity }, ['owner', 'admin']),
    unchanged: async (g) => {
      const row = await t.deps.db.selectFrom('namespaces').select('description').where('id', '=', g.id).executeTakeFirstOrThrow();
      assert.equal(row.description, '');
    },
  },
  {
    name: 'DELETE /groups/:id',
    writes: true,
    call: (token, g) => t.del(`/api/v4/groups/${g.id}`, { token }),
    expect: writers({ status: 202, body: { message: '202 Accepted' } }, ['owner', 'admin']),
    unchanged: async (g) => assert.equal(await countWhere('namespaces', 'id', g.id), 1),
  },
  {
    name: 'POST /groups (subgroup)',
    writes: true,
    call: (token, g) => {
      sequence += 1;
      return t.post('/api/v4/groups', { token, body: { name: `Sub ${sequence}`, path: `sub-${sequence}`, parent_id: g.id } });
    },
    expect: writers({ status: 201, entity: GroupDetailEntity }, ['maintainer', 'owner', 'admin']),
    unchanged: async (g) => assert.equal(await countWhere('namespaces', 'parent_id', g.id), 0),
  },
];

async function setAttribute(g: NamespaceRow): Promise<void> {
  const at = t.deps.now().toISOString();
  await t.deps.db
    .insertInto('group_custom_attributes')
    .values({ group_id: g.id, key: 'team', value: 'core', created_at: at, updated_at: at })
    .onConflict((oc) => oc.columns(['group_id', 'key']).doNothing())
    .execute();
}

async function countWhere(table: 'namespaces' | 'group_custom_attributes', column: string, value: number): Promise<number> {
  const row = await t.deps.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(column as never, '=', value as never)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function check(res: LightMyRequestResponse, outcome: Outcome): void {
  assert.equal(res.statusCode, outcome.status, `expected ${outcome.status}, got ${res.statusCode}: ${res.body.slice(0, 300)}`);
  if ('entity' in outcome) expectEntity(res.json(), outcome.entity);
  else if (outcome.body === null) assert.equal(res.body, '');
  else expectError(res, outcome.status, outcome.body);
}

for (const route of ROUTES) {
  describe(route.name, () => {
    const shared: Partial<Record<VisibilityName, NamespaceRow>> = {};
    before(async () => {
      for (const visibility of VISIBILITIES) shared[visibility] = await groupFor(visibility);
    });

    for (const visibility of VISIBILITIES) {
      for (const role of ROLES) {
        const outcome = route.expect(role, visibility);
        test(`${visibility} group, ${role}: ${outcome.status}`, async () => {
          const group = route.writes ? await groupFor(visibility) : (shared[visibility] as NamespaceRow);
          const res = await route.call(tokens[role], group);
          check(res, outcome);
          if (outcome.status >= 400 && route.unchanged) await route.unchanged(group);
        });
      }
    }
  });
}

describe('POST /groups (top level)', () => {
  const outcomes: Record<Role, Outcome> = {
    anonymous: UNAUTHORIZED,
    nonMember: { status: 201, entity: GroupDetailEntity },
    guest: { status: 201, entity: GroupDetailEntity },
    reporter: { status: 201, entity: GroupDetailEntity },
    developer: { status: 201, entity: GroupDetailEntity },
    maintainer: { status: 201, entity: GroupDetailEntity },
    owner: { status: 201, entity: GroupDetailEntity },
    admin: { status: 201, entity: GroupDetailEntity },
    // External users may not create groups of their own.
    external: FORBIDDEN,
    blocked: BLOCKED,
  };
  for (const role of ROLES) {
    test(`${role}: ${outcomes[role].status}`, async () => {
      sequence += 1;
      const before = await t.count('namespaces');
      const res = await t.post('/api/v4/groups', { token: tokens[role], body: { name: `Top ${sequence}`, path: `top-${sequence}` } });
      check(res, outcomes[role]);
      assert.equal(await t.count('namespaces'), before + (outcomes[role].status === 201 ? 1 : 0));
    });
  }

  test('a user whose can_create_group is off: 403', async () => {
    const { token } = await t.user({ can_create_group: false });
    expectError(await t.post('/api/v4/groups', { token, body: { name: 'Nope', path: 'nope-group' } }), 403, { message: '403 Forbidden' });
  });
});

describe('runners_token', () => {
  for (const role of ['owner', 'admin', 'maintainer', 'guest', 'nonMember'] as const) {
    const shown = role === 'owner' || role === 'admin';
    test(`${role}: ${shown ? 'shown' : 'left out'} on GET /groups/:id`, async () => {
      const group = await groupFor('internal');
      const body = (await t.get(`/api/v4/groups/${group.id}`, { token: tokens[role] })).json();
      expectEntity(body, GroupDetailEntity);
      assert.equal('runners_token' in body, shown);
      if (shown) assert.match(body.runners_token, /^[\w-]{20}$/);
    });
  }

  test('the token stays the same from one read to the next', async () => {
    const group = await groupFor('private');
    const first = (await t.get(`/api/v4/groups/${group.id}`, { token: ROOT_TOKEN })).json();
    const second = (await t.get(`/api/v4/groups/${group.id}`, { token: tokens.owner })).json();
    assert.equal(first.runners_token, second.runners_token);
  });
});

describe('a private group is visible to whoever reaches a project in it', () => {
  test('a project member who is no group member reads the group', async () => {
    const { createProject } = await import('../../../test/factories.ts');
    const { user, token } = await t.user();
    const group = await createGroup(t, { visibility: 'private' });
    await createProject(t, { namespace: group, visibility: 'private', members: [[user.id, ACCESS.REPORTER]] });
    const res = await t.get(`/api/v4/groups/${group.id}`, { token });
    assert.equal(res.statusCode, 200);
    expectEntity(res.json(), GroupDetailEntity);
    expectError(await t.put(`/api/v4/groups/${group.id}`, { token, body: { description: 'x' } }), 403, { message: '403 Forbidden' });
  });
});

describe('GET /groups: which of the three groups each caller lists', () => {
  const listed: Partial<Record<VisibilityName, NamespaceRow>> = {};
  before(async () => {
    for (const visibility of VISIBILITIES) {
      const members: [number, number][] = Object.entries(LEVELS).map(([role, level]) => [userIds[role as Role] as number, level]);
      listed[visibility] = await createGroup(t, { path: `listed-${visibility}`, visibility, members });
    }
  });
  const MEMBER = { plain: VISIBILITIES, all: VISIBILITIES };
  const expected: Record<Exclude<Role, 'blocked'>, { plain: VisibilityName[]; all: VisibilityName[] }> = {
    anonymous: { plain: ['public'], all: ['public'] },
    nonMember: { plain: [], all: ['internal', 'public'] },
    guest: MEMBER,
    reporter: MEMBER,
    developer: MEMBER,
    maintainer: MEMBER,
    owner: MEMBER,
    admin: MEMBER,
    external: { plain: [], all: ['public'] },
  };
  for (const role of ROLES) {
    test(`${role}`, async () => {
      for (const [key, query] of [
        ['plain', '?search=listed'],
        ['all', '?search=listed&all_available=true'],
      ] as const) {
        const res = await t.get(`/api/v4/groups${query}&order_by=id`, { token: tokens[role] });
        if (role === 'blocked') {
          check(res, BLOCKED);
          continue;
        }
        check(res, { status: 200, entity: Type.Array(GroupEntity) });
        assert.deepEqual(
          res.json().map((x: { id: number }) => x.id),
          expected[role][key].map((v) => listed[v]?.id),
          `${role} ${key}`,
        );
      }
    });
  }
});
