import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ensureHostKey } from './host-key.ts';

test('host keys always read back (ssh2 writes some Ed25519 keys it cannot read: they are made again)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-host-keys-'));
  try {
    for (let i = 0; i < 500; i++) assert.match(ensureHostKey(path.join(root, String(i))).fingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
