// The push rules of protected branches and tags, as tables of cases: name matching, who may push,
// merge, force push, delete, unprotect, create and move tags, and the platform's refusal messages.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ACCESS } from '../core/access/levels.ts';
import {
  ADMIN_ACCESS_LEVEL,
  type BranchProtection,
  DEFAULT_BRANCH_PROTECTION,
  type Pusher,
  REFUSALS,
  type RefProtections,
  branchChangeRefusal,
  canCreateTag,
  canDeleteBranch,
  canDeleteTag,
  canForcePush,
  canMergeToBranch,
  canPushToBranch,
  canUnprotect,
  canUpdateTag,
  defaultBranchRule,
  developersCan,
  isProtectedBranch,
  isProtectedTag,
  matchesProtectedName,
  passesAccessLevel,
  pusherOf,
  tagChangeRefusal,
} from './ref-protection.ts';

const { NO_ACCESS, GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER } = ACCESS;

const member = (accessLevel: number): Pusher => ({ accessLevel, isAdmin: false, canPushCode: accessLevel >= DEVELOPER });
const guest = member(GUEST);
const reporter = member(REPORTER);
const developer = member(DEVELOPER);
const maintainer = member(MAINTAINER);
const owner = member(OWNER);
const admin: Pusher = { accessLevel: NO_ACCESS, isAdmin: true, canPushCode: true };
/** A maintainer of an archived project: no push_code. */
const archivedMaintainer: Pusher = { accessLevel: MAINTAINER, isAdmin: false, canPushCode: false };

function branchRule(name: string, levels: Partial<Omit<BranchProtection, 'name'>> = {}): BranchProtection {
  return {
    name,
    pushAccessLevels: [MAINTAINER],
    mergeAccessLevels: [MAINTAINER],
    unprotectAccessLevels: [MAINTAINER],
    allowForcePush: false,
    codeOwnerApprovalRequired: false,
    ...levels,
  };
}

const rules = (branches: BranchProtection[], tags: [string, number[]][] = []): RefProtections => ({
  branches,
  tags: tags.map(([name, createAccessLevels]) => ({ name, createAccessLevels })),
});

describe('matchesProtectedName', () => {
  const cases: [string, string, boolean][] = [
    ['main', 'main', true],
    ['main', 'Main', false],
    ['main', 'main2', false],
    ['main', 'xmain', false],
    ['release/*', 'release/1.0', true],
    ['release/*', 'release/1.0/hotfix', true],
    ['release/*', 'release/', true],
    ['release/*', 'release', false],
    ['release/*', 'pre-release/1.0', false],
    ['*-stable', '1-0-stable', true],
    ['*-stable', '1-0-stable-x', false],
    ['*', 'anything/at/all', true],
    ['*', '', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'aXcYb', false],
    ['a**b', 'ab', true],
    ['*.*', 'v1.2', true],
    ['*.*', 'v12', false],
    ['fe?ture', 'feature', false],
    ['fe?ture', 'fe?ture', true],
    ['[abc]', 'a', false],
    ['(x)+', 'xx', false],
    ['v1.0', 'v1x0', false],
    ['', '', false],
    ['  ', '  ', false],
    ['名前/*', '名前/ブランチ', true],
    ['😀*', '😀🔥', true],
  ];
  for (const [pattern, name, expected] of cases) {
    test(`${JSON.stringify(pattern)} ${expected ? 'covers' : 'does not cover'} ${JSON.stringify(name)}`, () => {
      assert.equal(matchesProtectedName(pattern, name), expected);
    });
  }

  test('many stars against a long name stay fast', () => {
    const started = performance.now();
    assert.equal(matchesProtectedName(`${'a*'.repeat(200)}b`, 'a'.repeat(20_000)), false);
    assert.ok(performance.now() - started < 1000);
  });
});

describe('passesAccessLevel', () => {
  const cases: [string, Pusher, number, boolean][] = [
    ['nobody passes No one, not even an administrator', admin, NO_ACCESS, false],
    ['a maintainer passes No one neither', maintainer, NO_ACCESS, false],
    ['a developer passes Developers', developer, DEVELOPER, true],
    ['a developer does not pass Maintainers', developer, MAINTAINER, false],
    ['a maintainer passes Maintainers', maintainer, MAINTAINER, true],
    ['an owner passes Maintainers', owner, MAINTAINER, true],
    ['a reporter does not pass Developers', reporter, DEVELOPER, false],
    ['an owner does not pass Instance admins', owner, ADMIN_ACCESS_LEVEL, false],
    ['an administrator passes Instance admins', admin, ADMIN_ACCESS_LEVEL, true],
    ['an administrator passes Maintainers without a membership', admin, MAINTAINER, true],
    ['no push_code, no pass', archivedMaintainer, DEVELOPER, false],
  ];
  for (const [title, pusher, level, expected] of cases) test(title, () => assert.equal(passesAccessLevel(level, pusher), expected));
});

describe('branches', () => {
  const protections = rules([
    branchRule('main', { pushAccessLevels: [MAINTAINER], mergeAccessLevels: [DEVELOPER] }),
    branchRule('release/*', { pushAccessLevels: [NO_ACCESS], mergeAccessLevels: [MAINTAINER] }),
    branchRule('release/1.0', { pushAccessLevels: [DEVELOPER], allowForcePush: true }),
    branchRule('hot*', { pushAccessLevels: [DEVELOPER], mergeAccessLevels: [NO_ACCESS], allowForcePush: true }),
    branchRule('admins', { pushAccessLevels: [ADMIN_ACCESS_LEVEL] }),
  ]);

  test('protected: exact names and wildcards alike', () => {
    assert.deepEqual(
      ['main', 'release/2.0', 'release/1.0', 'hotfix', 'feature', 'mainline'].map((b) => isProtectedBranch(protections, b)),
      [true, true, true, true, false, false],
    );
  });

  test('developers can push / merge: a matching rule allows exactly Developers', () => {
    assert.deepEqual(
      ['main', 'release/1.0', 'hotfix', 'feature'].map((b) => [developersCan(protections, 'push', b), developersCan(protections, 'merge', b)]),
      [
        [false, true],
        [true, false],
        [true, false],
        [false, false],
      ],
    );
  });

  // Branch, pusher, then push, merge, force push.
  const cases: [string, string, Pusher, boolean, boolean, boolean][] = [
    ['an unprotected branch: developers push and rewrite it', 'feature', developer, true, true, true],
    ['an unprotected branch: reporters do not', 'feature', reporter, false, false, false],
    ['an unprotected branch: guests do not', 'feature', guest, false, false, false],
    ['an unprotected branch of an archived project: nobody', 'feature', archivedMaintainer, false, false, false],
    ['main: developers merge only', 'main', developer, false, true, false],
    ['main: maintainers push, but force push is not allowed', 'main', maintainer, true, true, false],
    ['main: administrators push', 'main', admin, true, true, false],
    ['release/2.0 (No one): not even administrators push', 'release/2.0', admin, false, true, false],
    ['release/2.0: maintainers merge', 'release/2.0', maintainer, false, true, false],
    // Every matching rule applies: the exact rule lets developers push although the wildcard says No one.
    ['release/1.0: the exact rule and the wildcard both apply', 'release/1.0', developer, true, false, true],
    ['release/1.0: maintainers pass the wildcard merge level', 'release/1.0', maintainer, true, true, true],
    ['hotfix: developers push and force push', 'hotfix', developer, true, false, true],
    ['hotfix: merging is for No one', 'hotfix', admin, true, false, true],
    ['admins: owners do not push, but merge', 'admins', owner, false, true, false],
    ['admins: administrators push', 'admins', admin, true, true, false],
  ];
  for (const [title, branch, pusher, push, merge, force] of cases) {
    test(title, () => {
      assert.deepEqual(
        [canPushToBranch(protections, branch, pusher), canMergeToBranch(protections, branch, pusher), canForcePush(protections, branch, pusher)],
        [push, merge, force],
      );
    });
  }

  const deletions: [string, string, Pusher, boolean, boolean][] = [
    ['an unprotected branch, by a developer', 'feature', developer, false, true],
    ['an unprotected branch, by a reporter', 'feature', reporter, true, false],
    ['the default branch, by an administrator', 'trunk', admin, true, false],
    ['a protected branch by push, even a maintainer', 'main', maintainer, false, false],
    ['a protected branch through the API, by a maintainer', 'main', maintainer, true, true],
    ['a protected branch through the API, by an administrator', 'hotfix', admin, true, true],
    ['a protected branch through the API, by a developer', 'hotfix', developer, true, false],
    ['a protected branch of an archived project', 'main', archivedMaintainer, true, false],
  ];
  for (const [title, branch, pusher, viaWeb, expected] of deletions) {
    test(`deleting ${title}: ${expected ? 'allowed' : 'refused'}`, () => {
      assert.equal(canDeleteBranch(protections, branch, pusher, { defaultBranch: 'trunk', viaWeb }), expected);
    });
  }

  test('unprotecting: one unprotect level must pass; none means anyone', () => {
    assert.deepEqual(
      [
        canUnprotect([MAINTAINER], maintainer),
        canUnprotect([MAINTAINER], developer),
        canUnprotect([ADMIN_ACCESS_LEVEL], owner),
        canUnprotect([ADMIN_ACCESS_LEVEL], admin),
        canUnprotect([NO_ACCESS], admin),
        canUnprotect([DEVELOPER], developer),
        canUnprotect([], reporter),
      ],
      [true, false, false, true, false, true, true],
    );
  });
});

describe('empty repositories and the default branch protection', () => {
  const none = rules([]);
  const cases: [string, number, Pusher, boolean][] = [
    ['full protection: developers may not make the first push', DEFAULT_BRANCH_PROTECTION.full, developer, false],
    ['full protection: maintainers may', DEFAULT_BRANCH_PROTECTION.full, maintainer, true],
    ['full protection: administrators may', DEFAULT_BRANCH_PROTECTION.full, admin, true],
    ['developers can merge: developers may not push first', DEFAULT_BRANCH_PROTECTION.developerCanMerge, developer, false],
    ['developers can push: they push first', DEFAULT_BRANCH_PROTECTION.developerCanPush, developer, true],
    ['no protection: developers push first', DEFAULT_BRANCH_PROTECTION.none, developer, true],
    ['no protection: reporters never push', DEFAULT_BRANCH_PROTECTION.none, reporter, false],
  ];
  for (const [title, setting, pusher, expected] of cases) {
    test(title, () => assert.equal(canPushToBranch(none, 'main', pusher, { defaultBranchProtection: setting }), expected));
  }

  test('a rule made for the branch before the first push still lets its levels in', () => {
    const early = rules([branchRule('main', { pushAccessLevels: [DEVELOPER] })]);
    assert.equal(canPushToBranch(early, 'main', developer, { defaultBranchProtection: DEFAULT_BRANCH_PROTECTION.full }), true);
  });

  test('the rule created for the default branch after its first push', () => {
    assert.deepEqual(
      [DEFAULT_BRANCH_PROTECTION.none, DEFAULT_BRANCH_PROTECTION.developerCanPush, DEFAULT_BRANCH_PROTECTION.full, DEFAULT_BRANCH_PROTECTION.developerCanMerge].map(defaultBranchRule),
      [
        null,
        { pushAccessLevel: DEVELOPER, mergeAccessLevel: MAINTAINER },
        { pushAccessLevel: MAINTAINER, mergeAccessLevel: MAINTAINER },
        { pushAccessLevel: MAINTAINER, mergeAccessLevel: DEVELOPER },
      ],
    );
  });
});

describe('branchChangeRefusal', () => {
  const protections = rules([
    branchRule('main'),
    branchRule('stable/*', { pushAccessLevels: [MAINTAINER], mergeAccessLevels: [DEVELOPER] }),
    branchRule('wip', { pushAccessLevels: [DEVELOPER], allowForcePush: true }),
  ]);
  const push = { defaultBranch: 'main', viaWeb: false };
  const web = { defaultBranch: 'main', viaWeb: true };
  const empty = { defaultBranchProtection: DEFAULT_BRANCH_PROTECTION.full, projectFullPath: 'group/app', membersUrl: 'http://quarry.test/group/app/-/project_members' };
  type Case = [string, Parameters<typeof branchChangeRefusal>[1], Pusher, Parameters<typeof branchChangeRefusal>[3], string | null];
  const cases: Case[] = [
    ['a reporter pushes nothing', { branch: 'feature', kind: 'update', force: false }, reporter, push, REFUSALS.pushCode],
    ['a developer updates an unprotected branch', { branch: 'feature', kind: 'update', force: true }, developer, push, null],
    ['a developer deletes an unprotected branch', { branch: 'feature', kind: 'delete', force: false }, developer, push, null],
    ['nobody deletes the default branch', { branch: 'main', kind: 'delete', force: false }, admin, web, REFUSALS.deleteDefaultBranch],
    ['a developer pushes to main', { branch: 'main', kind: 'update', force: false }, developer, push, REFUSALS.pushProtectedBranch],
    ['a maintainer pushes to main', { branch: 'main', kind: 'update', force: false }, maintainer, push, null],
    ['a maintainer force pushes to main', { branch: 'main', kind: 'update', force: true }, maintainer, push, REFUSALS.forcePushProtectedBranch],
    ['a developer force pushes to wip', { branch: 'wip', kind: 'update', force: true }, developer, push, null],
    ['a maintainer deletes a protected branch by push', { branch: 'stable/1', kind: 'delete', force: false }, maintainer, push, REFUSALS.deleteProtectedBranchNonWeb],
    ['a maintainer deletes a protected branch through the API', { branch: 'stable/1', kind: 'delete', force: false }, maintainer, web, null],
    ['a developer deletes a protected branch', { branch: 'wip', kind: 'delete', force: false }, developer, web, REFUSALS.deleteProtectedBranch],
    ['a developer creates a protected branch they may only merge into, by push', { branch: 'stable/2', kind: 'create', force: false }, developer, push, REFUSALS.createProtectedBranchNonWeb],
    ['the same through the API', { branch: 'stable/2', kind: 'create', force: false }, developer, web, null],
    ['a developer creates main anew', { branch: 'main', kind: 'create', force: false }, developer, push, REFUSALS.createProtectedBranch],
    ['a maintainer creates a protected branch', { branch: 'stable/3', kind: 'create', force: false }, maintainer, push, null],
    ['a maintainer makes the first push', { branch: 'main', kind: 'create', force: false }, maintainer, { ...push, emptyRepository: empty }, null],
    [
      'a developer makes the first push under full protection',
      { branch: 'feature', kind: 'create', force: false },
      developer,
      { ...push, emptyRepository: empty },
      '\nA default branch (e.g. master) does not yet exist for group/app\nAsk a project Owner or Maintainer to create a default branch:\n\n  http://quarry.test/group/app/-/project_members\n\n',
    ],
    [
      'a developer makes the first push without protection',
      { branch: 'feature', kind: 'create', force: false },
      developer,
      { ...push, emptyRepository: { ...empty, defaultBranchProtection: DEFAULT_BRANCH_PROTECTION.none } },
      null,
    ],
  ];
  for (const [title, change, pusher, context, expected] of cases) {
    test(title, () => assert.equal(branchChangeRefusal(protections, change, pusher, context), expected));
  }
});

describe('tags', () => {
  const protections = rules([], [
    ['v*', [MAINTAINER]],
    ['nightly-*', [DEVELOPER]],
    ['frozen', [NO_ACCESS]],
  ]);

  test('protected: exact names and wildcards alike', () => {
    assert.deepEqual(['v1.0', 'nightly-1', 'frozen', 'release-1'].map((tag) => isProtectedTag(protections, tag)), [true, true, true, false]);
  });

  // Tag, pusher, then create, update, delete through the API, delete by push.
  const cases: [string, string, Pusher, boolean, boolean, boolean, boolean][] = [
    ['an unprotected tag, a developer', 'release-1', developer, true, true, true, true],
    ['an unprotected tag, a reporter', 'release-1', reporter, false, false, false, false],
    ['v1.0, a developer', 'v1.0', developer, false, false, false, false],
    ['v1.0, a maintainer', 'v1.0', maintainer, true, false, true, false],
    ['nightly-1, a developer', 'nightly-1', developer, true, false, false, false],
    ['frozen, an administrator', 'frozen', admin, false, false, false, false],
    ['v1.0, an administrator', 'v1.0', admin, true, false, true, false],
    ['v1.0, a maintainer of an archived project', 'v1.0', archivedMaintainer, false, false, false, false],
  ];
  for (const [title, tag, pusher, create, update, deleteWeb, deletePush] of cases) {
    test(title, () => {
      assert.deepEqual(
        [
          canCreateTag(protections, tag, pusher),
          canUpdateTag(protections, tag, pusher),
          canDeleteTag(protections, tag, pusher, { viaWeb: true }),
          canDeleteTag(protections, tag, pusher, { viaWeb: false }),
        ],
        [create, update, deleteWeb, deletePush],
      );
    });
  }

  const refusals: [string, Parameters<typeof tagChangeRefusal>[1], Pusher, boolean, string | null][] = [
    ['a reporter', { tag: 'release-1', kind: 'create' }, reporter, false, REFUSALS.pushCode],
    ['a developer creates an unprotected tag', { tag: 'release-1', kind: 'create' }, developer, false, null],
    ['a developer creates v2', { tag: 'v2', kind: 'create' }, developer, false, REFUSALS.createProtectedTag],
    ['a maintainer moves v1', { tag: 'v1', kind: 'update' }, maintainer, false, REFUSALS.updateProtectedTag],
    ['a developer deletes nightly-1', { tag: 'nightly-1', kind: 'delete' }, developer, true, REFUSALS.deleteProtectedTag],
    ['a maintainer deletes v1 by push', { tag: 'v1', kind: 'delete' }, maintainer, false, REFUSALS.deleteProtectedTagNonWeb],
    ['a maintainer deletes v1 through the API', { tag: 'v1', kind: 'delete' }, maintainer, true, null],
    ['an administrator deletes frozen, which nobody may create', { tag: 'frozen', kind: 'delete' }, admin, true, REFUSALS.createProtectedTag],
  ];
  for (const [title, change, pusher, viaWeb, expected] of refusals) {
    test(`refusal: ${title}`, () => assert.equal(tagChangeRefusal(protections, change, pusher, { viaWeb }), expected));
  }
});

test('pusherOf: the loaded project and the actor', () => {
  const project = { access: DEVELOPER, can: new Set(['read_project', 'push_code'] as const) };
  assert.deepEqual(pusherOf(project, { isAdmin: false }), { accessLevel: DEVELOPER, isAdmin: false, canPushCode: true });
  assert.deepEqual(pusherOf({ access: NO_ACCESS, can: new Set(['read_project'] as const) }, null), { accessLevel: NO_ACCESS, isAdmin: false, canPushCode: false });
});
