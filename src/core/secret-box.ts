// Secrets the API must show again (runners registration tokens) are kept encrypted at rest with
// AES-256-GCM under a key of the instance: `<data dir>/db_encryption_key`, 32 random bytes created
// at first use with mode 0600. Every node of an instance must share the key (as they share the
// database): copy the file along with the database. Secrets that are never shown again (access
// tokens, passwords) are kept as digests instead (core/auth/secrets.ts).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const KEY_FILE = 'db_encryption_key';
const VERSION = 'v1';

export interface SecretBox {
  /** `v1:` + base64url(iv ‖ tag ‖ ciphertext); a new random IV each time. */
  seal(clear: string): string;
  open(sealed: string): string;
}

/** The key, created when missing: written aside and linked into place, so that of two processes starting at once both use the first one's. */
export function loadOrCreateKey(dataDir: string): Buffer {
  const file = path.join(dataDir, KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(temporary, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    try {
      fs.linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(temporary, { force: true });
    }
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} must hold 32 bytes in base64`);
  return key;
}

export function secretBoxWithKey(key: Buffer): SecretBox {
  return {
    seal(clear) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed) {
      const [version, payload] = sealed.split(':');
      if (version !== VERSION || payload === undefined) throw new Error('not a sealed secret');
      const bytes = Buffer.from(payload, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

const boxes = new Map<string, SecretBox>();

/** The secret box of an instance's data directory; the key is read (or created) on first use. */
export function secretBox(dataDir: string): SecretBox {
  let box = boxes.get(dataDir);
  if (!box) {
    let keyed: SecretBox | null = null;
    const inner = () => (keyed ??= secretBoxWithKey(loadOrCreateKey(dataDir)));
    box = { seal: (clear) => inner().seal(clear), open: (sealed) => inner().open(sealed) };
    boxes.set(dataDir, box);
  }
  return box;
}
