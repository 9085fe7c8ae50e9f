// Who may call each email route: the caller's own addresses for any signed-in user, any user's for
// administrators only (reads too). A blocked account is refused everywhere.
import { after, before, test } from 'node:test';
import { type Expectation, type MatrixWorld, type Role, buildMatrixWorld, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { EmailEntity } from './emails.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
let someone: { id: number; emailId: number };
let sequence = 0;
const fresh = () => `address-${++sequence}@example.com`;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  const user = await t.user({ username: 'email-owner' });
  const added = await t.post('/api/v4/user/emails', { token: user.token, body: { email: fresh() } });
  someone = { id: user.user.id, emailId: added.json().id };
});
after(() => t.close());

const FORBIDDEN = { 401: { message: '401 Unauthorized' }, 403: { message: '403 Forbidden' } };
const administrators = (success: number): Expectation => (role) => (role === 'anonymous' ? 401 : role === 'admin' ? success : 403);
const signedIn = (success: number): Expectation => (role: Role) => (role === 'anonymous' ? 401 : role === 'blocked' ? 403 : success);

test('/user/emails: any signed-in user, for their own addresses', async () => {
  await runMatrix(world, { expect: signedIn(200), errors: FORBIDDEN, call: (c) => t.get('/api/v4/user/emails', { token: c.caller.token }), verify: (res) => expectEntities(res.json(), EmailEntity) });
  await runMatrix(world, {
    expect: signedIn(201),
    errors: FORBIDDEN,
    call: (c) => t.post('/api/v4/user/emails', { token: c.caller.token, body: { email: fresh() } }),
    verify: (res) => expectEntity(res.json(), EmailEntity),
  });
  const own = async (token: string | undefined) => (token ? (await t.post('/api/v4/user/emails', { token, body: { email: fresh() } })).json().id ?? someone.emailId : someone.emailId);
  await runMatrix(world, {
    expect: signedIn(200),
    errors: FORBIDDEN,
    call: async (c) => t.get(`/api/v4/user/emails/${await own(c.caller.token)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), EmailEntity),
  });
  await runMatrix(world, { expect: signedIn(204), errors: FORBIDDEN, call: async (c) => t.del(`/api/v4/user/emails/${await own(c.caller.token)}`, { token: c.caller.token }) });
});

test('/users/:id/emails: administrators only', async () => {
  await runMatrix(world, {
    expect: administrators(200),
    errors: FORBIDDEN,
    call: (c) => t.get(`/api/v4/users/${someone.id}/emails`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), EmailEntity),
  });
  await runMatrix(world, {
    expect: administrators(201),
    errors: FORBIDDEN,
    call: (c) => t.post(`/api/v4/users/${someone.id}/emails`, { token: c.caller.token, body: { email: fresh(), skip_confirmation: true } }),
    verify: (res) => expectEntity(res.json(), EmailEntity),
  });
  const given = async () => (await t.post(`/api/v4/users/${someone.id}/emails`, { token: ROOT_TOKEN, body: { email: fresh() } })).json().id;
  await runMatrix(world, { expect: administrators(204), errors: FORBIDDEN, call: async (c) => t.del(`/api/v4/users/${someone.id}/emails/${await given()}`, { token: c.caller.token }) });
});
