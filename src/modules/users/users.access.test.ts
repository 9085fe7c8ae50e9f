// Who may call each users route: anonymous, a regular user, an external user, a blocked user, an
// administrator, and an administrator's token without the admin_mode scope while admin mode is on
// (which acts as a regular user). Refused calls change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TSchema, Type } from '@sinclair/typebox';
import type { LightMyRequestResponse } from 'fastify';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { issueToken } from '../access-tokens/access-tokens.service.ts';
import { CustomAttributeEntity } from '../custom-attributes/custom-attributes.schemas.ts';
import { UserAdminEntity, UserBasicEntity, UserEntity, UserSelfEntity } from './users.schemas.ts';
import { systemContext } from '../../core/context.ts';

type Caller = 'anonymous' | 'regular' | 'external' | 'blocked' | 'admin' | 'adminWithoutAdminMode';
const CALLERS: Caller[] = ['anonymous', 'regular', 'external', 'blocked', 'admin', 'adminWithoutAdminMode'];

let t: TestApp;
const tokens: Record<Caller, string | undefined> = {
  anonymous: undefined,
  regular: undefined,
  external: undefined,
  blocked: undefined,
  admin: ROOT_TOKEN,
  adminWithoutAdminMode: undefined,
};

before(async () => {
  t = await createTestApp({ QUARRY_ADMIN_MODE: 'true' });
  tokens.regular = (await t.user()).token;
  tokens.external = (await t.user({ external: true })).token;
  const blocked = await t.user();
  tokens.blocked = blocked.token;
  await t.deps.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', blocked.user.id).execute();
  const root = await t.deps.db.selectFrom('users').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  tokens.adminWithoutAdminMode = (await issueToken(systemContext(t.deps), { userId: 1, name: 'no admin mode', scopes: ['api'] }, root)).token;
});
after(() => t.close());

type Outcome = { status: number; entity: TSchema } | { status: number; body: unknown };

const UNAUTHORIZED = { status: 401, body: { message: '401 Unauthorized' } };
const FORBIDDEN = { status: 403, body: { message: '403 Forbidden' } };
const BLOCKED = { status: 403, body: { message: '403 Forbidden - Your account has been blocked.' } };

/** Administrators only: 401 anonymous, 403 for everyone else. */
function adminOnly(success: Outcome): Record<Caller, Outcome> {
  return {
    anonymous: UNAUTHORIZED,
    regular: FORBIDDEN,
    external: FORBIDDEN,
    blocked: BLOCKED,
    admin: success,
    adminWithoutAdminMode: FORBIDDEN,
  };
}

interface Route {
  name: string;
  /** Calls the route against a fresh target user. */
  call(token: string | undefined, targetId: number): Promise<LightMyRequestResponse>;
  expect: Record<Caller, Outcome>;
}

const attrs = (id: number) => `/api/v4/users/${id}/custom_attributes`;
let sequence = 0;
const newUserBody = () => {
  sequence += 1;
  return { email: `made${sequence}@example.com`, name: 'Made', username: `made_${sequence}`, password: 'secret-pass-1' };
};

const ROUTES: Route[] = [
  {
    name: 'GET /users',
    call: (token) => t.get('/api/v4/users', { token }),
    expect: {
      anonymous: { status: 403, body: { message: '403 Forbidden - Not authorized to access /api/v4/users' } },
      regular: { status: 200, entity: Type.Array(UserBasicEntity) },
      external: { status: 200, entity: Type.Array(UserBasicEntity) },
      blocked: BLOCKED,
      admin: { status: 200, entity: Type.Array(UserAdminEntity) },
      adminWithoutAdminMode: { status: 200, entity: Type.Array(UserBasicEntity) },
    },
  },
  {
    name: 'GET /users/:id',
    call: (token, id) => t.get(`/api/v4/users/${id}`, { token }),
    expect: {
      anonymous: { status: 200, entity: UserEntity },
      regular: { status: 200, entity: UserEntity },
      external: { status: 200, entity: UserEntity },
      blocked: BLOCKED,
      admin: { status: 200, entity: UserAdminEntity },
      adminWithoutAdminMode: { status: 200, entity: UserEntity },
    },
  },
  {
    name: 'GET /user',
    call: (token) => t.get('/api/v4/user', { token }),
    expect: {
      anonymous: UNAUTHORIZED,
      regular: { status: 200, entity: UserSelfEntity },
      external: { status: 200, entity: UserSelfEntity },
      blocked: BLOCKED,
      admin: { status: 200, entity: UserAdminEntity },
      adminWithoutAdminMode: { status: 200, entity: UserSelfEntity },
    },
  },
  {
    name: 'POST /users',
    call: (token) => t.post('/api/v4/users', { token, body: newUserBody() }),
    expect: adminOnly({ status: 201, entity: UserAdminEntity }),
  },
  {
    name: 'PUT /users/:id',
    call: (token, id) => t.put(`/api/v4/users/${id}`, { token, body: { name: 'Changed', admin: true } }),
    expect: adminOnly({ status: 200, entity: UserAdminEntity }),
  },
  {
    name: 'DELETE /users/:id',
    call: (token, id) => t.del(`/api/v4/users/${id}`, { token }),
    expect: adminOnly({ status: 204, body: null }),
  },
  {
    name: 'DELETE /users/:id/identities/:provider',
    call: (token, id) => t.del(`/api/v4/users/${id}/identities/github`, { token }),
    expect: adminOnly({ status: 204, body: null }),
  },
  {
    name: 'POST /users/:id/block',
    call: (token, id) => t.post(`/api/v4/users/${id}/block`, { token }),
    expect: adminOnly({ status: 201, body: true }),
  },
  {
    name: 'POST /users/:id/unblock',
    call: (token, id) => t.post(`/api/v4/users/${id}/unblock`, { token }),
    expect: adminOnly({ status: 201, body: false }),
  },
  {
    name: 'GET /users/:id/custom_attributes',
    call: (token, id) => t.get(attrs(id), { token }),
    expect: { ...adminOnly({ status: 200, entity: Type.Array(CustomAttributeEntity) }), anonymous: FORBIDDEN },
  },
  {
    name: 'GET /users/:id/custom_attributes/:key',
    call: (token, id) => t.get(`${attrs(id)}/team`, { token }),
    expect: { ...adminOnly({ status: 200, entity: CustomAttributeEntity }), anonymous: FORBIDDEN },
  },
  {
    name: 'PUT /users/:id/custom_attributes/:key',
    call: (token, id) => t.put(`${attrs(id)}/team`, { token, body: { value: 'blue' } }),
    expect: adminOnly({ status: 200, entity: CustomAttributeEntity }),
  },
  {
    name: 'DELETE /users/:id/custom_attributes/:key',
    call: (token, id) => t.del(`${attrs(id)}/team`, { token }),
    expect: adminOnly({ status: 204, body: null }),
  },
];

/** A target with an identity and a custom attribute, so that every route has something to act on. */
async function freshTarget(): Promise<number> {
  const { user } = await t.user({ extern_uid: 'gh-1', provider: 'github' });
  const at = new Date().toISOString();
  await t.deps.db.insertInto('user_custom_attributes').values({ user_id: user.id, key: 'team', value: 'red', created_at: at, updated_at: at }).execute();
  return user.id;
}

/** Everything a refused call could have touched. */
async function snapshot(targetId: number): Promise<unknown> {
  const db = t.deps.db;
  return {
    user: await db.selectFrom('users').select(['name', 'username', 'state', 'admin', 'updated_at']).where('id', '=', targetId).executeTakeFirst(),
    identities: await db.selectFrom('identities').select(['provider', 'extern_uid']).where('user_id', '=', targetId).execute(),
    attributes: await db.selectFrom('user_custom_attributes').select(['key', 'value']).where('user_id', '=', targetId).execute(),
    users: await t.count('users'),
  };
}

for (const route of ROUTES) {
  describe(route.name, () => {
    for (const caller of CALLERS) {
      const outcome = route.expect[caller];
      test(`${caller} → ${outcome.status}`, async () => {
        const targetId = await freshTarget();
        const before = await snapshot(targetId);
        const res = await route.call(tokens[caller], targetId);
        if ('entity' in outcome) {
          expectStatus(res, outcome.status);
          expectEntity(res.json(), outcome.entity);
        } else if (outcome.status < 400) {
          expectStatus(res, outcome.status);
          assert.equal(res.body, outcome.body === null ? '' : JSON.stringify(outcome.body));
        } else {
          expectError(res, outcome.status, outcome.body);
          if (route.name.startsWith('GET')) return;
          assert.deepEqual(await snapshot(targetId), before, 'a refused call changed something');
        }
      });
    }
  });
}

test('admin mode off: an administrator token without admin_mode is an administrator', async () => {
  const plain = await createTestApp();
  try {
    const admin = await plain.user({ admin: true });
    const res = await plain.get('/api/v4/users', { token: admin.token });
    expectStatus(res, 200);
    expectEntity(res.json(), Type.Array(UserAdminEntity));
    expectStatus(await plain.post('/api/v4/users', { token: admin.token, body: newUserBody() }), 201);
  } finally {
    await plain.close();
  }
});
