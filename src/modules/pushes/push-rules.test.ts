// The rules the pre-receive hook applies, ref by ref, without git: the force test is a fixture.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { ZERO_OID } from '../../git/args.ts';
import { REFUSALS } from '../../domain/ref-protection.ts';
import { type PushRules, firstRefusal, refusalOf } from './push-rules.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

const rules = (over: Partial<PushRules> = {}): PushRules => ({
  protections: {
    branches: [{ name: 'main', pushAccessLevels: [ACCESS.MAINTAINER], mergeAccessLevels: [ACCESS.MAINTAINER], unprotectAccessLevels: [], allowForcePush: false, codeOwnerApprovalRequired: false }],
    tags: [{ name: 'v*', createAccessLevels: [ACCESS.MAINTAINER] }],
  },
  pusher: { accessLevel: ACCESS.MAINTAINER, isAdmin: false, canPushCode: true },
  defaultBranch: 'main',
  emptyRepository: null,
  refuseAll: null,
  ...over,
});

/** A force test that records what it was asked. */
function forceTest(answer: boolean) {
  const asked: string[] = [];
  return { asked, isForce: async (before: string, after: string) => (asked.push(`${before}..${after}`), answer) };
}

test('the force test runs for updates of protected branches only', async () => {
  const probe = forceTest(true);
  assert.equal(await refusalOf(rules(), { ref: 'refs/heads/main', before: A, after: B }, probe.isForce), REFUSALS.forcePushProtectedBranch);
  assert.equal(await refusalOf(rules(), { ref: 'refs/heads/topic', before: A, after: B }, probe.isForce), null);
  assert.equal(await refusalOf(rules(), { ref: 'refs/heads/main', before: ZERO_OID, after: B }, probe.isForce), null);
  assert.deepEqual(probe.asked, [`${A}..${B}`]);
  assert.equal(await refusalOf(rules(), { ref: 'refs/heads/main', before: A, after: B }, forceTest(false).isForce), null);
});

test('branches, tags and other refs each by their rules', async () => {
  const developer = rules({ pusher: { accessLevel: ACCESS.DEVELOPER, isAdmin: false, canPushCode: true } });
  const never = forceTest(false).isForce;
  assert.equal(await refusalOf(developer, { ref: 'refs/heads/main', before: A, after: B }, never), REFUSALS.pushProtectedBranch);
  assert.equal(await refusalOf(developer, { ref: 'refs/tags/v1', before: ZERO_OID, after: A }, never), REFUSALS.createProtectedTag);
  assert.equal(await refusalOf(rules(), { ref: 'refs/heads/main', before: A, after: ZERO_OID }, never), REFUSALS.deleteDefaultBranch);
  assert.equal(await refusalOf(rules(), { ref: 'refs/notes/commits', before: ZERO_OID, after: A }, never), null);
  const reporter = rules({ pusher: { accessLevel: ACCESS.REPORTER, isAdmin: false, canPushCode: false } });
  assert.equal(await refusalOf(reporter, { ref: 'refs/notes/commits', before: ZERO_OID, after: A }, never), REFUSALS.pushCode);
});

test('a read-only repository and an invalid ref name refuse whatever the rules', async () => {
  const never = forceTest(false).isForce;
  const readOnly = rules({ refuseAll: 'The repository is temporarily read-only. Please try again later.' });
  assert.equal(await refusalOf(readOnly, { ref: 'refs/heads/topic', before: ZERO_OID, after: A }, never), 'The repository is temporarily read-only. Please try again later.');
  for (const ref of ['refs/heads/a..b', 'HEAD', 'refs/heads/x.lock', 'main']) {
    assert.match((await refusalOf(rules(), { ref, before: ZERO_OID, after: A }, never)) ?? '', /^Invalid ref name/, ref);
  }
});

test('the first refusal in order stops the push', async () => {
  const developer = rules({ pusher: { accessLevel: ACCESS.DEVELOPER, isAdmin: false, canPushCode: true } });
  const updates = [
    { ref: 'refs/heads/topic', before: ZERO_OID, after: A },
    { ref: 'refs/tags/v2', before: ZERO_OID, after: A },
    { ref: 'refs/heads/main', before: A, after: B },
  ];
  assert.equal(await firstRefusal(developer, updates, forceTest(false).isForce), REFUSALS.createProtectedTag);
  assert.equal(await firstRefusal(rules(), updates, forceTest(false).isForce), null);
});
