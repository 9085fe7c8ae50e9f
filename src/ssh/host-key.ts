// The SSH server's host key: an Ed25519 key made at the first start and kept under the data
// directory (ssh/ssh_host_ed25519_key, with its .pub beside it, as OpenSSH lays them out), so that
// clients that trusted it once keep trusting it. Several processes starting at once (workers, a
// supervisor) end up with the one key: the file is put in place only if it is not there yet.
import fs from 'node:fs';
import path from 'node:path';
import type Ssh2 from 'ssh2';
import { lazyModule } from '../core/lazy-module.ts';
import { wireFingerprintSha256 } from '../domain/ssh-public-keys.ts';

// Loaded when a key is first read or made: the bundled server loads ssh2 only if SSH is on.
const ssh2 = lazyModule<typeof Ssh2>('ssh2');

const KEY_FILE = 'ssh_host_ed25519_key';

export interface HostKey {
  /** The private key, in OpenSSH's format. */
  readonly privateKey: string;
  /** `SHA256:…`, as `ssh-keygen -lf` and OpenSSH's prompts show it. */
  readonly fingerprint: string;
  readonly file: string;
}

export function hostKeyFile(dataDir: string): string {
  return path.join(dataDir, 'ssh', KEY_FILE);
}

function read(file: string): HostKey {
  const privateKey = fs.readFileSync(file, 'utf8');
  const parsed = ssh2().utils.parseKey(privateKey);
  if (parsed instanceof Error) throw new Error(`the SSH host key ${file} cannot be read: ${parsed.message}`);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  return { privateKey, fingerprint: `SHA256:${wireFingerprintSha256(key.getPublicSSH())}`, file };
}

/**
 * A new Ed25519 pair that ssh2 reads back: about one in 250 of the private keys it writes it
 * then refuses as malformed (ssh2 1.17), so a pair is made again until it reads.
 */
function generateKeyPair(): { private: string; public: string } {
  for (let attempt = 0; attempt < 20; attempt++) {
    const pair = ssh2().utils.generateKeyPairSync('ed25519', { comment: 'quarry' });
    if (!(ssh2().utils.parseKey(pair.private) instanceof Error)) return pair;
  }
  throw new Error('could not make an SSH host key that reads back');
}

/** The host key under dataDir, made first if there is none; `created` tells which. */
export function ensureHostKey(dataDir: string): HostKey & { created: boolean } {
  const file = hostKeyFile(dataDir);
  if (fs.existsSync(file)) return { ...read(file), created: false };
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const pair = generateKeyPair();
  const draft = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(draft, pair.private, { mode: 0o600 });
  let created = true;
  try {
    // A link fails when the file exists: whoever linked first made the key.
    fs.linkSync(draft, file);
    fs.writeFileSync(`${file}.pub`, `${pair.public}\n`, { mode: 0o644 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
  } finally {
    fs.rmSync(draft, { force: true });
  }
  return { ...read(file), created };
}
