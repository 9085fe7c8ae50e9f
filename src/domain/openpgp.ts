// OpenPGP through OpenPGP.js: what the platform reads from a public GPG key (its primary key's id
// and fingerprint, its subkeys, the names and addresses of its user ids) and whether a detached
// signature over some bytes is good, and by which key. Ids and fingerprints are upper-case hex,
// as the platform shows them.
import type * as Openpgp from 'openpgp';
import { lazyModule } from '../core/lazy-module.ts';

const openpgp = lazyModule<typeof Openpgp>('openpgp');

export interface GpgUserInfo {
  name: string;
  /** In lower case. */
  email: string;
}

export interface ParsedGpgKey {
  primaryKeyid: string;
  fingerprint: string;
  subkeys: { keyid: string; fingerprint: string }[];
  userInfos: GpgUserInfo[];
}

const hex = (value: string) => value.toUpperCase();
const bytesHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex').toUpperCase();

/** The key in an armored public key block; null when it does not read as one. */
export async function parseGpgKey(armored: string): Promise<ParsedGpgKey | null> {
  let key: Openpgp.Key;
  try {
    key = await openpgp().readKey({ armoredKey: armored });
  } catch {
    return null;
  }
  if (key.isPrivate()) return null;
  const userInfos: GpgUserInfo[] = [];
  for (const user of key.users) {
    if (user.userID) userInfos.push({ name: user.userID.name, email: user.userID.email.toLowerCase() });
  }
  return {
    primaryKeyid: hex(key.getKeyID().toHex()),
    fingerprint: hex(key.getFingerprint()),
    subkeys: key.subkeys.map((s) => ({ keyid: hex(s.getKeyID().toHex()), fingerprint: hex(s.getFingerprint()) })),
    userInfos,
  };
}

export interface DetachedSignature {
  /** The issuer's fingerprint when the signature names it, else its key id. */
  issuer: string;
  /** Whether the signature is good against `key`, which verifies it (false when it cannot). */
  verifiedBy(armoredKey: string): Promise<boolean>;
}

/** A detached armored signature over `data`; null when the text is no OpenPGP signature. */
export async function readDetachedSignature(armored: string, data: Uint8Array): Promise<DetachedSignature | null> {
  let signature: Openpgp.Signature;
  try {
    signature = await openpgp().readSignature({ armoredSignature: armored });
  } catch {
    return null;
  }
  const packet = signature.packets[0];
  if (!packet) return null;
  const issuer = packet.issuerFingerprint && packet.issuerFingerprint.length > 0 ? bytesHex(packet.issuerFingerprint) : hex(packet.issuerKeyID.toHex());
  return {
    issuer,
    async verifiedBy(armoredKey) {
      try {
        const verificationKeys = await openpgp().readKey({ armoredKey });
        const message = await openpgp().createMessage({ binary: data });
        const result = await openpgp().verify({ message, signature, verificationKeys, format: 'binary' });
        await result.signatures[0]?.verified;
        return result.signatures.length > 0;
      } catch {
        return false;
      }
    },
  };
}
