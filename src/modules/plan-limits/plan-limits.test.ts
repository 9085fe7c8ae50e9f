// GET and PUT /application/plan_limits: administrators only; every field with the platform's
// defaults; plan_name checked and required on PUT; several plans, each its own; sizes validated.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { type MatrixWorld, buildMatrixWorld, runMatrix } from '../../../test/access-matrix.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { PlanLimitsEntity } from './plan-limits.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

const DEFAULTS = {
  conan_max_file_size: 3221225472,
  generic_packages_max_file_size: 5368709120,
  helm_max_file_size: 5242880,
  maven_max_file_size: 3221225472,
  npm_max_file_size: 524288000,
  nuget_max_file_size: 524288000,
  pypi_max_file_size: 3221225472,
  terraform_module_max_file_size: 1073741824,
};

const show = (query: Record<string, string> = {}, token: string | undefined = ROOT_TOKEN) => t.get('/api/v4/application/plan_limits', { token, query });
const change = (body: unknown, token: string | undefined = ROOT_TOKEN) => t.put('/api/v4/application/plan_limits', { token, body });

test('administrators only', async () => {
  const adminOnly = (success: number) => (role: string) => (role === 'anonymous' ? 401 : role === 'admin' ? success : 403);
  const errors = { 401: { message: '401 Unauthorized' }, 403: { message: '403 Forbidden' } };
  await runMatrix(world, { expect: adminOnly(200), errors, call: (c) => t.get('/api/v4/application/plan_limits', { token: c.caller.token }) });
  await runMatrix(world, { expect: adminOnly(200), errors, call: (c) => t.put('/api/v4/application/plan_limits', { token: c.caller.token, body: { plan_name: 'gold', helm_max_file_size: 5242880 } }) });
});

test('every field, with the platform’s defaults, for the default plan and the others', async () => {
  const res = await show();
  expectStatus(res, 200);
  expectEntity(res.json(), PlanLimitsEntity);
  assert.deepEqual(res.json(), DEFAULTS);
  for (const plan of ['default', 'free', 'premium', 'ultimate', 'ultimate_trial']) assert.deepEqual((await show({ plan_name: plan })).json(), DEFAULTS, plan);
});

test('PUT changes only the fields given, of that plan only', async () => {
  const res = await change({ plan_name: 'premium', generic_packages_max_file_size: 1024, npm_max_file_size: '2048' });
  expectStatus(res, 200);
  expectEntity(res.json(), PlanLimitsEntity);
  assert.deepEqual(res.json(), { ...DEFAULTS, generic_packages_max_file_size: 1024, npm_max_file_size: 2048 });
  assert.deepEqual((await show({ plan_name: 'premium' })).json(), res.json());
  assert.deepEqual((await show()).json(), DEFAULTS);
  // Sizes beyond 32 bits are kept whole.
  const big = await change({ plan_name: 'premium', conan_max_file_size: 10 * 1024 ** 4 });
  assert.equal(big.json().conan_max_file_size, 10 * 1024 ** 4);
  assert.equal((await show({ plan_name: 'premium' })).json().conan_max_file_size, 10 * 1024 ** 4);
});

test('bad input: 400 with the platform’s messages, nothing changed', async () => {
  expectError(await change({ generic_packages_max_file_size: 1 }), 400, { error: 'plan_name is missing' });
  expectError(await change({ plan_name: 'platinum' }), 400, { error: 'plan_name does not have a valid value' });
  expectError(await show({ plan_name: 'platinum' }), 400, { error: 'plan_name does not have a valid value' });
  expectError(await change({ plan_name: 'default', generic_packages_max_file_size: 'lots' }), 400, { error: 'generic_packages_max_file_size is invalid' });
  expectError(await change({ plan_name: 'default', generic_packages_max_file_size: 1.5 }), 400, { error: 'generic_packages_max_file_size is invalid' });
  expectError(await change({ plan_name: 'default', generic_packages_max_file_size: '9'.repeat(40) }), 400, { error: 'generic_packages_max_file_size is invalid' });
  expectError(await change({ plan_name: 'default', helm_max_file_size: -1 }), 400, { message: { helm_max_file_size: ['must be greater than or equal to 0'] } });
  expectError(await change({ plan_name: 'défault' }), 400, { error: 'plan_name does not have a valid value' });
  expectStatus(await change({ plan_name: 'default\u0000' }), 400);
  assert.deepEqual((await show()).json(), DEFAULTS);
});

test('a plan whose limits are not recorded (an instance reset empties them) has the defaults again', async () => {
  await t.deps.db.deleteFrom('plan_limits').where('plan_name', '=', 'bronze').execute();
  const shown = await show({ plan_name: 'bronze' });
  expectStatus(shown, 200);
  assert.equal(shown.json().generic_packages_max_file_size, 5 * 1024 ** 3);
  await t.deps.db.deleteFrom('plan_limits').where('plan_name', '=', 'bronze').execute();
  const changed = await change({ plan_name: 'bronze', helm_max_file_size: 1 });
  expectStatus(changed, 200);
  assert.deepEqual([changed.json().helm_max_file_size, changed.json().npm_max_file_size], [1, 500 * 1024 ** 2]);
});
