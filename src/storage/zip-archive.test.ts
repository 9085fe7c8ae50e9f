// Listing zips: entries from the central directory, the entry limit, refused names and broken
// archives; one entry streamed out by its exact name.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import yazl from 'yazl';
import { NotAZipError, UnsafeZipError, ZipLimitError, listZipEntries, openZipEntry } from './zip-archive.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-zip-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function zipFile(name: string, files: Record<string, string>): Promise<string> {
  const archive = new yazl.ZipFile();
  for (const [entry, content] of Object.entries(files)) archive.addBuffer(Buffer.from(content), entry, { mtime: new Date('2021-06-01T10:00:00Z'), mode: 0o100640 });
  archive.end();
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.concat(await Array.fromAsync(archive.outputStream as AsyncIterable<Buffer>)));
  return file;
}

test('entries come with their sizes, checksum, permissions and time', async () => {
  const file = await zipFile('a.zip', { 'a/b.txt': 'hello', 'c.txt': '' });
  const [first, second] = await listZipEntries(file);
  assert.equal(first.name, 'a/b.txt');
  assert.equal(first.size, 5);
  assert.equal(first.mode, '640');
  assert.equal(first.modified, Date.parse('2021-06-01T10:00:00Z') / 1000);
  assert.ok(first.crc !== 0);
  assert.equal(second.size, 0);
});

test('too many entries, names that leave the archive and broken archives are refused', async () => {
  const file = await zipFile('many.zip', { a: '1', b: '2', c: '3' });
  await assert.rejects(listZipEntries(file, 2), ZipLimitError);
  assert.equal((await listZipEntries(file, 3)).length, 3);
  const bytes = fs.readFileSync(await zipFile('x.zip', { 'xx/a': '1' })).toString('latin1');
  const escaping = path.join(dir, 'escaping.zip');
  fs.writeFileSync(escaping, Buffer.from(bytes.replaceAll('xx/a', '../a'), 'latin1'));
  await assert.rejects(listZipEntries(escaping), UnsafeZipError);
  const truncated = path.join(dir, 'truncated.zip');
  fs.writeFileSync(truncated, fs.readFileSync(file).subarray(0, 40));
  await assert.rejects(listZipEntries(truncated), NotAZipError);
});

test('one entry streams out by its exact name; another name finds nothing', async () => {
  const file = await zipFile('b.zip', { 'dir/file.txt': 'content' });
  const entry = await openZipEntry(file, 'dir/file.txt');
  assert.ok(entry);
  assert.equal(entry.size, 7);
  assert.equal(Buffer.concat(await Array.fromAsync(entry.stream as AsyncIterable<Buffer>)).toString(), 'content');
  assert.equal(await openZipEntry(file, 'dir/FILE.txt'), null);
  assert.equal(await openZipEntry(file, 'dir/'), null);
});
