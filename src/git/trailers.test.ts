// Trailers found without git agree with git's own: `git log --format=%(trailers:…)` for commits
// read one by one, `git for-each-ref --format=%(trailers:…)` for ref lists, on hand-picked messages
// and on many made of lines git treats in different ways.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { seededRandom } from '../../test/random.ts';
import { runGit } from './run.ts';
import { logTrailers, refTrailers } from './trailers.ts';

const HAND_PICKED = [
  'Title\n\nSigned-off-by: Ada <ada@example.com>\n',
  'Title\n\nBody.\n\nSigned-off-by: Ada <ada@example.com>\nCo-authored-by: Bob\n  Builder <bob@example.com>\n',
  'Title only',
  'Key: value in the title\n',
  'Title\n\nKey: value\nnot a trailer\nmore prose\nand more\n',
  'Title\n\nKey: value\nnot a trailer\nSigned-off-by: x\n',
  'Title\n\nBug #42\nFixes: 1\n',
  'Title\n\nFixes: 1\n\n# a comment\n\n',
  'Title\n\nFixes: 1\n---\nNot-a-trailer: after the divider\n',
  'Title\n\n---\nKey: v\n',
  'Title\n\nKey: v\n# ------------------------ >8 ------------------------\nOther: w\n',
  '# ------------------------ >8 ------------------------\nKey: v\n',
  'Title\n\nKey: v\n\nConflicts:\n\tsrc/a.c\n',
  '\n\nTitle\n\nKey: v\n',
  '  \nTitle\n\nKey: v\n',
  '\nKey: v\n\nOther: w\n',
  'Title\n\n  Indented: no\nKey: v\n',
  'Title\n\nKey: v\n   \n',
  'Title\n\nKey : spaced\nA\tB: tabbed\n-dash: starts\n',
  'Title\n\nKey: a\n\tfolded\n  twice\nKey: last wins\n',
  'Title\n\n(cherry picked from commit 0123456789abcdef)\nprose\nprose\nprose\n',
  'Title\n\nÜber: non-ascii key\nKey: wert ü\n',
  'Title\r\n\r\nKey: v\r\n',
  'Title\n\nKey:\n',
  'Title\n\nKey: v\u0000Hidden: after nul\n',
  '#comment title\nStill title\n\nKey: v\n',
];

/** Lines git reads in different ways: trailers, prose, continuations, comments, blanks, dividers. */
const LINES = [
  'Signed-off-by: Ada <ada@example.com>',
  'Key: value',
  'Key: other value',
  'Reviewed-by: Bob',
  'Bug #42',
  'Ticket : 7',
  '  continued here',
  '\tcontinued with a tab',
  'plain prose',
  'prose: with a colon later',
  '# a comment',
  '#Key: commented',
  '',
  '   ',
  '---',
  '--- a/file',
  'Conflicts:',
  '\tsrc/path.c',
  '# ------------------------ >8 ------------------------',
  '(cherry picked from commit 0123456789abcdef)',
  ':no token',
  'Ключ: значение',
  'Key:',
];

function randomMessages(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  return Array.from({ length: count }, () => {
    const lines = Array.from({ length: 1 + Math.floor(random() * 9) }, () => pick(LINES));
    const lead = random() < 0.1 ? pick(['\n', '\n\n', '  \n']) : '';
    return `${lead}${random() < 0.8 ? 'Title\n\n' : ''}${lines.join('\n')}${random() < 0.7 ? '\n' : ''}`;
  });
}

let root: string;
let repo: string;
const messages = [...HAND_PICKED, ...randomMessages(400, 11)];
const refName = (i: number) => `refs/heads/t/${String(i).padStart(4, '0')}`;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-trailers-'));
  repo = path.join(root, 'repo.git');
  await runGit(null, ['init', '--bare', '--quiet', repo]);
  const stream = messages.map((message, i) => {
    const data = Buffer.from(message);
    return Buffer.concat([Buffer.from(`commit ${refName(i)}\ncommitter A <a@example.com> 0 +0000\ndata ${data.length}\n`), data, Buffer.from('\n')]);
  });
  await runGit(repo, ['fast-import', '--quiet'], { input: Buffer.concat(stream) });
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

const parsePairs = (text: string) => {
  const pairs: Record<string, string> = {};
  for (const entry of text.split('\x1e')) {
    const separator = entry.indexOf('\x1f');
    if (separator > 0) pairs[entry.slice(0, separator)] = entry.slice(separator + 1);
  }
  return pairs;
};
const TRAILERS = 'trailers:only,unfold,separator=%x1e,key_value_separator=%x1f';

test('commits read one by one: the trailers git log finds', async () => {
  const ids = (await runGit(repo, ['for-each-ref', '--format=%(objectname)', 'refs/heads/t/'])).stdout.toString().trim().split('\n');
  assert.equal(ids.length, messages.length);
  // Equal messages make one commit, which git log shows once.
  const out = (await runGit(repo, ['log', '--no-walk=unsorted', '-z', `--format=%H%x00%(${TRAILERS})`, ...ids])).stdout.toString('utf8').split('\0');
  const byId = new Map<string, string>();
  for (let i = 0; i + 1 < out.length; i += 2) byId.set(out[i], out[i + 1]);
  for (let i = 0; i < messages.length; i++) {
    assert.deepEqual(logTrailers(messages[i]), parsePairs(byId.get(ids[i]) as string), `message ${i}: ${JSON.stringify(messages[i])}`);
  }
});

test('refs listed together: the trailers git for-each-ref finds', async () => {
  const out = (await runGit(repo, ['for-each-ref', `--format=%(${TRAILERS})%00`, 'refs/heads/t/'])).stdout.toString('utf8').split('\0\n');
  for (let i = 0; i < messages.length; i++) {
    assert.deepEqual(refTrailers(messages[i]), parsePairs(out[i]), `message ${i}: ${JSON.stringify(messages[i])}`);
  }
});
