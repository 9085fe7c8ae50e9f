// The file storage: staged writes kept or discarded, atomic writes, paths that stay inside it,
// removal of files and directories, stale scratch, and emptying it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, test } from 'node:test';
import { ownerTag, thisHost } from '../core/processes.ts';
import { fileStorage } from './file-storage.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-storage-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const storage = fileStorage(path.join(root, 'files'));

test('a staged stream is counted and hashed, then kept in place or discarded', async () => {
  const staged = await storage.stage(Readable.from([Buffer.from('hello '), Buffer.from('world')]));
  assert.equal(staged.size, 11);
  assert.equal(staged.sha256, 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9');
  await staged.keep('1/2/file');
  assert.equal((await storage.readAll('1/2/file')).toString(), 'hello world');
  assert.equal(Buffer.concat(await Array.fromAsync(storage.read('1/2/file') as AsyncIterable<Buffer>)).toString(), 'hello world');
  const dropped = await storage.stage(Readable.from([Buffer.from('x')]));
  await dropped.discard();
  assert.deepEqual(fs.readdirSync(path.join(root, 'files', 'tmp')), []);
});

test('paths stay inside the storage', async () => {
  for (const bad of ['../x', '/etc/passwd', 'a//b', 'a/./b', '']) assert.throws(() => storage.localPath(bad), /invalid storage path/);
});

test('a directory is removed with what it holds; removing nothing is fine', async () => {
  await storage.write('7/8/a', Buffer.from('a'));
  await storage.write('7/9/b', Buffer.from('b'));
  await storage.remove('7/8');
  assert.equal(await storage.exists('7/8/a'), false);
  assert.equal(await storage.exists('7/9/b'), true);
  await storage.remove('7/8');
});

test('stale scratch goes, fresh scratch stays; emptying removes everything', async () => {
  const tmp = path.join(root, 'files', 'tmp');
  fs.writeFileSync(path.join(tmp, 'old'), 'x');
  fs.utimesSync(path.join(tmp, 'old'), new Date(0), new Date(0));
  fs.writeFileSync(path.join(tmp, 'new'), 'x');
  // Work of a live process of this host stays however old; a dead one's goes at once.
  const mine = `${ownerTag()}-export-1-abc`;
  fs.mkdirSync(path.join(tmp, mine));
  fs.utimesSync(path.join(tmp, mine), new Date(0), new Date(0));
  fs.mkdirSync(path.join(tmp, `${thisHost()}~999999999-import-2-abc`));
  assert.equal(await storage.removeStaleTemps(60_000), 2);
  assert.deepEqual(fs.readdirSync(tmp).sort(), ['new', mine].sort());
  fs.rmSync(path.join(tmp, mine), { recursive: true });
  await storage.removeAll();
  assert.equal(fs.existsSync(path.join(root, 'files')), false);
  assert.deepEqual(fs.readdirSync(root), []);
  await storage.removeAll();
});
