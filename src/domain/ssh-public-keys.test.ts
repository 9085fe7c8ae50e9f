// OpenSSH public keys: technologies and sizes, fingerprints (against ssh-keygen's where it is
// installed), the repair of pasted keys, and the fingerprints a key is looked up by.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sshKey } from '../../test/fixtures/ssh-keys.ts';
import { parseFingerprint, parseSshPublicKey, sanitizeSshPublicKey, wireFingerprintSha256 } from './ssh-public-keys.ts';

describe('parseSshPublicKey', () => {
  test('reads each technology with its size and both fingerprints', () => {
    const cases = [
      { key: sshKey('ed25519'), technology: 'ed25519', bits: 256 },
      { key: sshKey('rsa', { bits: 1024 }), technology: 'rsa', bits: 1024 },
      { key: sshKey('dsa', { bits: 1024 }), technology: 'dsa', bits: 1024 },
      { key: sshKey('ecdsa', { bits: 256 }), technology: 'ecdsa', bits: 256 },
      { key: sshKey('ecdsa', { bits: 384 }), technology: 'ecdsa', bits: 384 },
      { key: sshKey('ecdsa', { bits: 521 }), technology: 'ecdsa', bits: 521 },
    ];
    for (const { key, technology, bits } of cases) {
      const parsed = parseSshPublicKey(key.text);
      assert.ok(parsed, key.text);
      assert.equal(parsed.technology, technology);
      assert.equal(parsed.bits, bits);
      assert.equal(parsed.fingerprint, key.md5);
      assert.equal(`SHA256:${parsed.fingerprintSha256}`, key.sha256);
      const wire = Buffer.from(key.bare.split(' ')[1], 'base64');
      assert.equal(wireFingerprintSha256(wire), parsed.fingerprintSha256);
    }
  });

  test('refuses what is no key: truncated, wrong type, trailing bytes, broken body, no body, other formats', () => {
    const { bare } = sshKey('ed25519');
    const [type, body] = bare.split(' ');
    const wire = Buffer.from(body, 'base64');
    const refused = [
      '',
      type,
      `${type} ${body.slice(0, 40)}`,
      `ssh-rsa ${body}`,
      `${type} ${Buffer.concat([wire, Buffer.from('xx')]).toString('base64')}`,
      `${type} ${body.slice(0, 20)} ${body.slice(20)}`,
      `${type} !!!!`,
      body,
      'sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIDl',
      '-----BEGIN PUBLIC KEY-----',
    ];
    for (const text of refused) assert.equal(parseSshPublicKey(text), null, text);
  });
});

const sshKeygen = spawnSync('ssh-keygen', ['-?'], { encoding: 'utf8' }).error ? false : true;

test('fingerprints match ssh-keygen’s', { skip: sshKeygen ? false : 'ssh-keygen is not installed' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-keys-'));
  try {
    for (const [type, bits] of [['ed25519', ''], ['rsa', '1024'], ['ecdsa', '384']]) {
      const file = path.join(dir, type);
      const made = spawnSync('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', bits] : []), '-N', '', '-C', 'me@host', '-f', file]);
      assert.equal(made.status, 0, String(made.stderr));
      const text = fs.readFileSync(`${file}.pub`, 'utf8');
      const printed = (hash: string) => spawnSync('ssh-keygen', ['-l', '-E', hash, '-f', `${file}.pub`], { encoding: 'utf8' }).stdout.split(' ');
      const parsed = parseSshPublicKey(text);
      assert.ok(parsed);
      assert.equal(`MD5:${parsed.fingerprint}`, printed('md5')[1]);
      assert.equal(`SHA256:${parsed.fingerprintSha256}`, printed('sha256')[1]);
      assert.equal(String(parsed.bits), printed('sha256')[0]);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('sanitizeSshPublicKey', () => {
  test('joins a body broken by spaces or line breaks and keeps one word of comment', () => {
    const { bare } = sshKey('ed25519');
    const [type, body] = bare.split(' ');
    assert.equal(sanitizeSshPublicKey(`${type} ${body.slice(0, 30)}\n${body.slice(30, 50)} ${body.slice(50)} me@host\n`), `${bare} me@host`);
    assert.equal(sanitizeSshPublicKey(`  ${bare} me@host and more words`), `${bare} me@host`);
    assert.equal(sanitizeSshPublicKey(`${bare}\n`), bare);
  });

  test('gives back text that never reads as a key as it came', () => {
    for (const text of ['ssh-rsa AAAA not a key', 'just-one-word', '  ', 'ssh-ed25519 AAAA\nBBBB']) assert.equal(sanitizeSshPublicKey(text), text);
  });
});

describe('parseFingerprint', () => {
  const key = sshKey('ed25519');

  test('MD5 colon hex (any case) and SHA256 with either prefix casing, padded or not', () => {
    assert.deepEqual(parseFingerprint(key.md5), { md5: key.md5 });
    assert.deepEqual(parseFingerprint(key.md5.toUpperCase()), { md5: key.md5 });
    const digest = key.sha256.slice('SHA256:'.length);
    assert.deepEqual(parseFingerprint(key.sha256), { sha256: digest });
    assert.deepEqual(parseFingerprint(`sha256:${digest}=`), { sha256: digest });
  });

  test('anything else is refused', () => {
    for (const value of ['', 'aa:bb', 'SHA256:', 'SHA256:AAAA', 'Sha256:' + key.sha256.slice(7), 'zz:'.repeat(15) + 'zz', key.sha256.slice(7)]) {
      assert.equal(parseFingerprint(value), null, value);
    }
  });
});
