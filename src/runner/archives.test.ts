import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { after, test } from 'node:test';
import yazl from 'yazl';
import { selectFiles, unpackZip, writeZip } from './archives.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-archives-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function tree(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

test('paths select files and whole directories, exclude removes, patterns outside the directory match nothing', async () => {
  const dir = tree('select', { 'out/a.txt': 'a', 'out/sub/b.log': 'b', 'out/sub/c.txt': 'c', 'top.txt': 't', 'other/x.txt': 'x' });
  fs.writeFileSync(path.join(root, 'secret.txt'), 'outside');
  const warnings: string[] = [];
  const files = await selectFiles(dir, { paths: ['out/', '*.txt', '../secret.txt', '/etc/passwd', 'missing/'], exclude: ['out/**/*.log'] }, (w) => warnings.push(w));
  assert.deepEqual(files, ['out/a.txt', 'out/sub/c.txt', 'top.txt']);
  assert.deepEqual(warnings, ['../secret.txt: not within the project directory', '/etc/passwd: not within the project directory', 'missing/: no matching files']);
});

test('a zip written and unpacked gives back the files and their modes', async () => {
  const dir = tree('zip-src', { 'bin/run.sh': '#!/bin/sh\necho hi\n', 'data/deep/x.txt': 'x' });
  fs.chmodSync(path.join(dir, 'bin/run.sh'), 0o755);
  const file = path.join(root, 'roundtrip.zip');
  await writeZip(dir, ['bin/run.sh', 'data/deep/x.txt'], file);
  const target = path.join(root, 'zip-dst');
  assert.equal(await unpackZip(file, target, () => {}), 2);
  assert.equal(fs.readFileSync(path.join(target, 'data/deep/x.txt'), 'utf8'), 'x');
  assert.equal(fs.statSync(path.join(target, 'bin/run.sh')).mode & 0o777, 0o755);
});

test('links are skipped; an archive naming a path outside the directory is refused whole', async () => {
  const file = path.join(root, 'hostile.zip');
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('fine'), 'ok.txt');
  zip.addBuffer(Buffer.from('/etc/passwd'), 'link', { mode: 0o120777 });
  zip.addBuffer(Buffer.from('escape'), 'xx/escaped.txt');
  zip.end();
  await pipeline(zip.outputStream, fs.createWriteStream(file));
  const target = path.join(root, 'hostile-dst');
  const warnings: string[] = [];
  // The same archive with the last entry renamed to leave the directory (yazl refuses to write it).
  const hostile = path.join(root, 'hostile-escape.zip');
  fs.writeFileSync(hostile, Buffer.from(fs.readFileSync(file).toString('latin1').replaceAll('xx/escaped.txt', '../escaped.txt'), 'latin1'));
  await assert.rejects(unpackZip(hostile, target, () => {}), /invalid relative path/);
  assert.equal(fs.existsSync(path.join(root, 'escaped.txt')), false);
  fs.rmSync(target, { recursive: true, force: true });
  assert.equal(await unpackZip(file, target, (w) => warnings.push(w)), 2);
  assert.equal(fs.existsSync(path.join(target, 'link')), false);
  assert.deepEqual(warnings, ['link: skipped (outside the directory, or a link)']);
});
