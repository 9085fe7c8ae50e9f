// GET and PUT /application/settings: administrators only, every declared setting with its default,
// changes with the platform's parameter and validation errors, legacy names both ways.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { secretBox } from '../../core/secret-box.ts';
import { APPLICATION_SETTINGS, applicationSettings } from '../../domain/settings/application-settings.ts';
import { ApplicationSettingEntity } from './application-settings.schemas.ts';

let t: TestApp;
let alice: TestUser;

before(async () => {
  t = await createTestApp();
  alice = await t.user();
});
after(() => t.close());

const show = (token?: string) => t.get('/api/v4/application/settings', { token });
const change = (body: unknown, token = ROOT_TOKEN) => t.put('/api/v4/application/settings', { token, body });

describe('GET /application/settings', () => {
  test('administrators only: 401 anonymous, 403 others', async () => {
    expectError(await show(), 401, { message: '401 Unauthorized' });
    expectError(await show(alice.token), 403, { message: '403 Forbidden' });
    expectError(await change({ signup_enabled: false }, alice.token), 403, { message: '403 Forbidden' });
  });

  test('every setting with its default, the legacy names, no secrets', async () => {
    const res = await show(ROOT_TOKEN);
    expectStatus(res, 200);
    const body = res.json();
    expectEntity(body, ApplicationSettingEntity);
    assert.equal(body.id, 1);
    assert.equal(body.default_projects_limit, 100000);
    assert.equal(body.default_branch_protection, 2);
    assert.equal(body.default_project_visibility, 'private');
    assert.deepEqual(body.restricted_visibility_levels, []);
    assert.equal(body.default_artifacts_expire_in, '30 days');
    assert.equal(body.signin_enabled, true);
    assert.equal(body.password_authentication_enabled, true);
    assert.deepEqual(body.repository_storages_weighted, { default: 100 });
    assert.deepEqual(body.repository_storages, ['default']);
    assert.equal(body.commit_email_hostname, 'users.noreply.quarry.test');
    assert.equal(body.polling_interval_multiplier, 1);
    assert.equal('asset_proxy_secret_key' in body, false);
    assert.equal('eks_secret_access_key' in body, false);
    for (const [name, value] of Object.entries(APPLICATION_SETTINGS.present(APPLICATION_SETTINGS.defaults))) {
      if (name !== 'commit_email_hostname') assert.deepEqual(body[name], value, name);
    }
  });
});

describe('PUT /application/settings', () => {
  test('changes the settings sent, keeps the others, and every reader sees them', async () => {
    const res = await change({
      default_projects_limit: 12,
      default_project_visibility: 'internal',
      restricted_visibility_levels: ['public'],
      signup_enabled: false,
      import_sources: 'github,git',
      repository_storages_weighted: { default: 50 },
    });
    expectStatus(res, 200);
    const body = res.json();
    expectEntity(body, ApplicationSettingEntity);
    assert.equal(body.default_projects_limit, 12);
    assert.equal(body.default_project_visibility, 'internal');
    assert.deepEqual(body.restricted_visibility_levels, ['public']);
    assert.equal(body.signup_enabled, false);
    assert.deepEqual(body.import_sources, ['github', 'git']);
    assert.deepEqual(body.repository_storages_weighted, { default: 50 });
    assert.equal(body.default_branch_protection, 2);
    assert.equal((await applicationSettings(t.deps.db)).default_projects_limit, 12);
    const again = (await show(ROOT_TOKEN)).json();
    assert.equal(again.default_projects_limit, 12);
    assert.ok(again.updated_at >= again.created_at);
  });

  test('legacy parameter names set the settings they stand for', async () => {
    const res = await change({ signin_enabled: false, admin_notification_email: 'abuse@example.com', domain_blacklist_enabled: true, domain_blacklist: ['spam.test'] });
    expectStatus(res, 200);
    const body = res.json();
    assert.equal(body.password_authentication_enabled_for_web, false);
    assert.equal(body.signin_enabled, false);
    assert.equal(body.abuse_notification_email, 'abuse@example.com');
    assert.equal(body.domain_denylist_enabled, true);
    assert.deepEqual(body.domain_denylist, ['spam.test']);
  });

  test('secrets are stored encrypted and never shown', async () => {
    expectStatus(await change({ asset_proxy_enabled: true, asset_proxy_url: 'https://proxy.test', asset_proxy_secret_key: 'shh-very-secret' }), 200);
    const body = (await show(ROOT_TOKEN)).json();
    assert.equal(body.asset_proxy_enabled, true);
    assert.equal('asset_proxy_secret_key' in body, false);
    const stored = (await applicationSettings(t.deps.db)).asset_proxy_secret_key as string;
    assert.doesNotMatch(stored, /shh-very-secret/);
    assert.equal(secretBox(t.deps.config.dataDir).open(stored), 'shh-very-secret');
  });

  test('refusals: nothing sent, a setting that needs another, bad values, bounds', async () => {
    const nothing = await change({});
    assert.equal(nothing.statusCode, 400);
    assert.match(nothing.json().error, /^admin_mode, signup_enabled, .* are missing, at least one parameter must be provided$/);
    expectError(await change({ plantuml_enabled: true }), 400, { error: 'plantuml_url is missing' });
    expectError(await change({ recaptcha_enabled: true, recaptcha_site_key: 'k' }), 400, { error: 'recaptcha_private_key is missing' });
    expectError(await change({ default_branch_protection: 7 }), 400, { error: 'default_branch_protection does not have a valid value' });
    expectError(await change({ default_project_visibility: 'secret' }), 400, { error: 'default_project_visibility does not have a valid value' });
    expectError(await change({ restricted_visibility_levels: ['nowhere'] }), 400, { error: 'restricted_visibility_levels does not have a valid value' });
    expectError(await change({ minimum_password_length: 4, deletion_adjourned_period: 91 }), 400, {
      message: { minimum_password_length: ['must be greater than or equal to 8'], deletion_adjourned_period: ['must be less than or equal to 90'] },
    });
    // Nothing of a refused change was kept.
    assert.equal((await applicationSettings(t.deps.db)).minimum_password_length, 8);
    // Sent as false, a setting needs nothing else.
    expectStatus(await change({ plantuml_enabled: false }), 200);
  });
});
