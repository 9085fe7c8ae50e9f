// Ref names, revisions, object ids and repository paths: what reaches git and what never does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isObjectId, safeRepoPath, validBranchName, validRefName, validRevision, validTagName } from './args.ts';
import { runGit } from './run.ts';

/** Full ref names and whether git check-ref-format accepts them. */
const REFS: [string, boolean][] = [
  ['refs/heads/main', true],
  ['refs/heads/feature/one', true],
  ['refs/tags/v1.0.0', true],
  ['refs/heads/ünïcödé', true],
  ['refs/heads/a-b_c.d', true],
  ['refs/heads/a.b/c', true],
  ['refs/heads/x@y', true],
  ['refs/heads/-leading-dash', true],
  ['refs/heads/a.', false],
  ['refs/heads/a..b', false],
  ['refs/heads/.hidden', false],
  ['refs/heads/a/.hidden', false],
  ['refs/heads/a.lock', false],
  ['refs/heads/a.lock/b', false],
  ['refs/heads/a b', false],
  ['refs/heads/a\tb', false],
  ['refs/heads/a\nb', false],
  ['refs/heads/a\x7fb', false],
  ['refs/heads/a~1', false],
  ['refs/heads/a^', false],
  ['refs/heads/a:b', false],
  ['refs/heads/a?', false],
  ['refs/heads/a*', false],
  ['refs/heads/a[b', false],
  ['refs/heads/a\\b', false],
  ['refs/heads/a@{1}', false],
  ['refs/heads//a', false],
  ['refs/heads/a/', false],
  ['/refs/heads/a', false],
  ['refs/heads/', false],
  ['@', false],
  ['main', false],
  ['', false],
];

test('full ref names follow git check-ref-format, checked against git itself', async () => {
  for (const [name, valid] of REFS) {
    assert.equal(validRefName(name), valid, JSON.stringify(name));
    // check-ref-format parses its arguments by hand and knows no `--`; no name here starts with '-'.
    const { exitCode } = await runGit(null, ['check-ref-format', name], { okExitCodes: [1] });
    assert.equal(exitCode === 0, valid, `git disagrees about ${JSON.stringify(name)}`);
  }
});

test('ref names: length limits, ill-formed text', () => {
  assert.equal(validRefName(`refs/heads/${'a'.repeat(250)}`), true);
  assert.equal(validRefName(`refs/heads/${'a'.repeat(251)}`), false);
  assert.equal(validRefName(`refs/heads/${'a/'.repeat(600)}a`), false);
  assert.equal(validRefName('refs/heads/\ud800'), false);
});

test('branch and tag names: the platform refuses refs/heads/, refs/remotes/, a leading dash and HEAD', () => {
  const table: [string, boolean][] = [
    ['main', true],
    ['feature/login', true],
    ['v1.0', true],
    ['refs/tags/x', true],
    ['HEAD', false],
    ['head', true],
    ['-x', false],
    ['--upload-pack=touch /tmp/x', false],
    ['--output=x', false],
    ['refs/heads/main', false],
    ['refs/remotes/origin/main', false],
    ['branch*', false],
    ['with space', false],
    ['a..b', false],
    ['a/', false],
    ['a.lock', false],
    // Only the whole ref may not be '@'; refs/heads/@ is a branch git itself creates.
    ['@', true],
    ['', false],
  ];
  for (const [name, valid] of table) {
    assert.equal(validBranchName(name), valid, `branch ${JSON.stringify(name)}`);
    assert.equal(validTagName(name), valid, `tag ${JSON.stringify(name)}`);
  }
});

test('object ids are 40 lower-case hex digits', () => {
  assert.equal(isObjectId('0123456789abcdef0123456789abcdef01234567'), true);
  assert.equal(isObjectId('0123456789ABCDEF0123456789abcdef01234567'), false);
  assert.equal(isObjectId('0123456'), false);
  assert.equal(isObjectId('0123456789abcdef0123456789abcdef012345678'), false);
});

test('revisions: names and expressions, never options, paths or whitespace', () => {
  for (const ok of ['main', 'v1.0^{commit}', 'main~2', 'HEAD', 'abc1234', 'feature/x']) assert.equal(validRevision(ok), true, ok);
  for (const bad of ['', '-x', '--upload-pack=touch /tmp/x', 'main:README.md', 'a b', 'a\nb', 'a\\b', 'x'.repeat(1025)]) assert.equal(validRevision(bad), false, JSON.stringify(bad));
});

test('repository paths are normalized and cannot escape the tree or reach .git', () => {
  const table: [string, string | null][] = [
    ['README.md', 'README.md'],
    ['a/b/c.txt', 'a/b/c.txt'],
    ['./a//b/', 'a/b'],
    ['a/./b', 'a/b'],
    ['-leading-dash', '-leading-dash'],
    ['dir with space/file', 'dir with space/file'],
    ['.gitignore', '.gitignore'],
    ['.github/workflows/x.yml', '.github/workflows/x.yml'],
    ['..', null],
    ['../etc/passwd', null],
    ['a/../../b', null],
    ['a/..', null],
    ['/etc/passwd', null],
    ['', null],
    ['./', null],
    ['a\0b', null],
    ['.git', null],
    ['.git/config', null],
    ['a/.GIT/hooks/pre-receive', null],
    ['.git./x', null],
    ['GIT~1/config', null],
    [`${'a'.repeat(4097)}`, null],
  ];
  for (const [input, expected] of table) assert.equal(safeRepoPath(input), expected, JSON.stringify(input));
});
