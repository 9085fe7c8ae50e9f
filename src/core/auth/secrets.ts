// Token and password secrets. Tokens are stored only as SHA-256 digests (they are long and random,
// so a fast digest is enough); passwords use scrypt, a slow key-derivation function.
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A random token: prefix + 20 URL-safe characters, like the platform's legacy format. */
export function generateToken(prefix = 'glpat-', length = 20): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += TOKEN_ALPHABET[b & 63];
  return out;
}

export function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function scryptAsync(password: string, salt: Buffer, cost: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, 32, { N: cost, r: 8, p: 1, maxmem: 256 * cost * 8 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$<N>$<salt>$<key>`, base64url parts. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, cost);
  return `scrypt$${cost}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const isCost = (n: number) => Number.isInteger(n) && n >= 2 && n <= 1048576 && (n & (n - 1)) === 0;

/** Compares in constant time; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split('$');
  if (!parts || parts.length !== 4 || parts[0] !== 'scrypt') return false;
  const cost = Number(parts[1]);
  const expected = Buffer.from(parts[3], 'base64url');
  if (!isCost(cost) || expected.length === 0) return false;
  const key = await scryptAsync(password, Buffer.from(parts[2], 'base64url'), cost);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Spends the time of one password check, so that an unknown login answers as slowly as a wrong password. */
export async function spendPasswordCheck(password: string, cost: number): Promise<false> {
  await scryptAsync(password, randomBytes(16), cost);
  return false;
}
