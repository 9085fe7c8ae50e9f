// The pure rules of wiki pages: which files are pages, slugs and titles, renames, limits, links.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { humanSize } from '../../domain/validation.ts';
import { attachmentFileName, attachmentMarkdown, normalizeTitle, pageErrors, pageOfPath, renamedTitle, slugOfTitle } from './wiki-pages.ts';

test('a page is a file with a markup extension; its title is its name with hyphens as blanks', () => {
  assert.deepEqual(pageOfPath('guides/Getting--started.md'), { path: 'guides/Getting--started.md', slug: 'guides/Getting--started', title: 'Getting started', format: 'markdown' });
  assert.deepEqual(pageOfPath('Notes.ADOC'), { path: 'Notes.ADOC', slug: 'Notes', title: 'Notes', format: 'asciidoc' });
  assert.equal(pageOfPath('uploads/abc/logo.png'), null);
  assert.equal(pageOfPath('.md'), null);
  assert.equal(pageOfPath('README'), null);
});

test('titles are squished per directory and never climb above the root; slugs hyphenate blanks', () => {
  assert.equal(normalizeTitle('  a  /  b   c /./ d '), 'a/b c/d');
  assert.equal(normalizeTitle('../../x/../y'), 'y');
  assert.equal(slugOfTitle(' guides / Getting   started '), 'guides/Getting-started');
});

test('a rename stays in its directory unless the title names one; a leading slash is the root', () => {
  assert.equal(renamedTitle('guides/Setup', 'Install'), 'guides/Install');
  assert.equal(renamedTitle('Setup', 'Install'), 'Install');
  assert.equal(renamedTitle('guides/Setup', '/Install'), 'Install');
  assert.equal(renamedTitle('guides/Setup', 'docs/Install'), 'docs/Install');
});

test("the platform's validations and sizes", () => {
  assert.deepEqual(pageErrors('ok', 'ok', 1024), {});
  assert.deepEqual(pageErrors(`${'d'.repeat(256)}/x`, 'ok', 1024), { title: [`exceeds the limit of 255 bytes for directory name "${'d'.repeat(256)}"`] });
  assert.deepEqual([humanSize(1), humanSize(1000), humanSize(1024), humanSize(1500), humanSize(52428800)], ['1 Byte', '1000 Bytes', '1 KB', '1.46 KB', '50 MB']);
});

test('attachments: long names cut to 255 characters with their extension, images linked as images', () => {
  const long = `${'n'.repeat(300)}.txt`;
  assert.equal(attachmentFileName(long), `${'n'.repeat(251)}.txt`);
  assert.equal(attachmentMarkdown('a].png', 'uploads/x/a].png'), '![a\\]](uploads/x/a].png)');
  assert.equal(attachmentMarkdown('doc.pdf', 'uploads/x/doc.pdf'), '[doc.pdf](uploads/x/doc.pdf)');
});
