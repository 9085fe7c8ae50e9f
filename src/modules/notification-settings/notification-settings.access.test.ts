// Who may read and change their notification settings for private, internal and public projects
// and groups: any signed-in user who sees the project or group (a guest as much as an owner);
// anonymous callers 401, everyone else 404 as the project or group's other routes answer.
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntity } from '../../../test/matchers.ts';
import { NotificationSettingEntity } from './notification-settings.schemas.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

const SUBJECTS = [
  { name: 'project', url: (c: MatrixCall) => `/api/v4/projects/${c.project.id}/notification_settings`, errors: refusals('Project') },
  { name: 'group', url: (c: MatrixCall) => `/api/v4/groups/${c.group.id}/notification_settings`, errors: refusals('Group') },
] as const;

const members = expectation({ auth: 'required', success: 200 });

for (const subject of SUBJECTS) {
  test(`GET and PUT ${subject.name} notification settings`, async () => {
    await runMatrix(world, { expect: members, errors: subject.errors, call: (c) => t.get(subject.url(c), { token: c.caller.token }), verify: (res) => expectEntity(res.json(), NotificationSettingEntity) });
    await runMatrix(world, {
      expect: members,
      errors: subject.errors,
      call: (c) => t.put(subject.url(c), { token: c.caller.token, body: { level: 'watch' } }),
      verify: (res) => expectEntity(res.json(), NotificationSettingEntity),
    });
  });
}
