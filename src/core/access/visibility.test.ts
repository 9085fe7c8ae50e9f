// The SQL visibility rules say what the ability table says: projectVisibleTo is read_project and
// projectCodeVisibleTo is download_code, for every role on every visibility; projectVisibleTo tests
// authorizations per project or as a set with the same result.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixWorld, ROLES, VISIBILITIES, buildMatrixWorld } from '../../../test/access-matrix.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import type { Actor } from '../auth/actor.ts';
import { projectAbilities } from './abilities.ts';
import { projectAccessLevel } from './authorizations.ts';
import { ACCESS } from './levels.ts';
import { projectCodeVisibleTo, projectVisibleTo } from './visibility.ts';

let t: TestApp;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t, 'visibility');
});
after(() => t.close());

for (const role of ROLES) {
  test(`${role}: the SQL rules agree with read_project and download_code`, async () => {
    const { user } = world.callers[role];
    const actor: Actor | null = user
      ? { user, isAdmin: role === 'admin', via: 'personal_access_token', scopes: ['api'], tokenId: null, impersonation: false, sudoBy: null, jobId: null }
      : null;
    const { db } = t.deps;
    for (const visibility of VISIBILITIES) {
      const project = world.projects[visibility];
      const access = actor ? await projectAccessLevel(db, actor.user.id, project.id) : ACCESS.NO_ACCESS;
      const can = projectAbilities(actor, project, access);
      const matches = async (rule: typeof projectVisibleTo) =>
        (await db.selectFrom('projects').select('id').where('id', '=', project.id).where((eb) => rule(eb, actor)).executeTakeFirst()) !== undefined;
      assert.equal(await matches(projectVisibleTo), can.has('read_project'), `${visibility} project: read_project`);
      const asSet: typeof projectVisibleTo = (eb, who) => projectVisibleTo(eb, who, 'projects', 'set');
      assert.equal(await matches(asSet), can.has('read_project'), `${visibility} project: read_project, authorizations as a set`);
      assert.equal(await matches(projectCodeVisibleTo), can.has('download_code'), `${visibility} project: download_code`);
    }
  });
}
