// Who may call each status route: one's own status for any signed-in user; anyone's status read by
// anyone. A blocked account is refused everywhere.
import { after, before, test } from 'node:test';
import { type MatrixWorld, type Role, buildMatrixWorld, runMatrix } from '../../../test/access-matrix.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntity } from '../../../test/matchers.ts';
import { UserStatusEntity } from './user-status.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
let someoneId: number;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  const user = await t.user({ username: 'status-owner' });
  await t.put('/api/v4/user/status', { token: user.token, body: { message: 'Here' } });
  someoneId = user.user.id;
});
after(() => t.close());

const FORBIDDEN = { 401: { message: '401 Unauthorized' }, 403: { message: '403 Forbidden' } };
const signedIn = (role: Role) => (role === 'anonymous' ? 401 : role === 'blocked' ? 403 : 200);

test('GET and PUT /user/status: any signed-in user', async () => {
  await runMatrix(world, { expect: signedIn, errors: FORBIDDEN, call: (c) => t.get('/api/v4/user/status', { token: c.caller.token }), verify: (res) => expectEntity(res.json(), UserStatusEntity) });
  await runMatrix(world, {
    expect: signedIn,
    errors: FORBIDDEN,
    call: (c) => t.put('/api/v4/user/status', { token: c.caller.token, body: { message: `${c.role} here` } }),
    verify: (res) => expectEntity(res.json(), UserStatusEntity),
  });
});

test('GET /users/:user_id/status: anyone', async () => {
  await runMatrix(world, {
    expect: (role) => (role === 'blocked' ? 403 : 200),
    call: (c) => t.get(`/api/v4/users/${someoneId}/status`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), UserStatusEntity),
  });
});
