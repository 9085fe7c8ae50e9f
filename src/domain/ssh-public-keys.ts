// OpenSSH public keys ("ssh-ed25519 AAAA… comment"), read with sshpk: the technologies the platform
// accepts (RSA, DSA, ECDSA, ED25519) with their sizes, the two fingerprints it stores, the repair
// of a key pasted with its body broken by spaces or line breaks, and the forms a fingerprint is
// looked up by.
import { createHash } from 'node:crypto';
import type Sshpk from 'sshpk';
import { lazyModule } from '../core/lazy-module.ts';

const sshpk = lazyModule<typeof Sshpk>('sshpk');

export const KEY_TECHNOLOGIES = ['rsa', 'dsa', 'ecdsa', 'ed25519'] as const;
export type KeyTechnology = (typeof KEY_TECHNOLOGIES)[number];

export interface SshPublicKey {
  technology: KeyTechnology;
  /** RSA: the modulus; DSA: p; ECDSA: the curve's order; ED25519: 256. */
  bits: number;
  /** MD5 of the key's wire form, colon-separated hex. */
  fingerprint: string;
  /** SHA-256 of the key's wire form, base64 without padding (ssh-keygen's form, less "SHA256:"). */
  fingerprintSha256: string;
}

/**
 * The key in "type body [comment]", or null when it is none the platform reads. sshpk reads the
 * body; the body must also be exactly the key's wire form, so that trailing bytes or a body
 * broken by whitespace, which sshpk would overlook, are refused as the platform refuses them.
 */
export function parseSshPublicKey(text: string): SshPublicKey | null {
  const [type, body] = text.trim().split(/\s+/);
  if (!type || !body) return null;
  let key: Sshpk.Key;
  try {
    key = sshpk().parseKey(`${type} ${body}`, 'ssh');
  } catch {
    return null;
  }
  const technology = KEY_TECHNOLOGIES.find((t) => t === key.type);
  const wire = key.toBuffer('rfc4253');
  if (!technology || wire.toString('base64') !== body) return null;
  return { technology, bits: key.size, fingerprint: wireFingerprintMd5(wire), fingerprintSha256: wireFingerprintSha256(wire) };
}

function wireFingerprintMd5(wire: Uint8Array): string {
  return createHash('md5').update(wire).digest('hex').replace(/(..)(?!$)/g, '$1:');
}

/** The SHA-256 fingerprint of a key's wire form (as an SSH server receives it), in the stored form. */
export function wireFingerprintSha256(wire: Uint8Array): string {
  return createHash('sha256').update(wire).digest('base64').replace(/=+$/, '');
}

/**
 * The platform's repair of pasted key text: after the type, words are joined back together until
 * they read as a key, then at most one word of comment follows. Text that never reads as a key is
 * returned as it came, for validation to refuse.
 */
export function sanitizeSshPublicKey(text: string): string {
  const [type, ...parts] = text.trim().split(/\s+/);
  if (parts.length === 0) return text;
  let body = '';
  for (const [index, part] of parts.entries()) {
    body += part;
    if (parseSshPublicKey(`${type} ${body}`)) return [`${type} ${body}`, parts[index + 1]].filter((p) => p !== undefined).join(' ');
  }
  return text;
}

/** A fingerprint as it is looked up: MD5 colon hex, or SHA-256 in the stored form. */
export type FingerprintQuery = { md5: string } | { sha256: string };

const MD5_FINGERPRINT = /^([0-9a-f]{2}:){15}[0-9a-f]{2}/i;
const SHA256_PREFIX = /^(sha256|SHA256):/;

/**
 * `aa:bb:…` (16 bytes) or `SHA256:<base64 of 32 bytes>` as ssh-keygen prints them; null for
 * anything else (the platform's KeysFinder::InvalidFingerprint).
 */
export function parseFingerprint(value: string): FingerprintQuery | null {
  if (SHA256_PREFIX.test(value)) {
    const digest = Buffer.from(value.replace(SHA256_PREFIX, ''), 'base64');
    return digest.length === 32 ? { sha256: digest.toString('base64').replace(/=+$/, '') } : null;
  }
  return MD5_FINGERPRINT.test(value) ? { md5: value.toLowerCase() } : null;
}
