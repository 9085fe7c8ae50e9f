// The platform's order of tag names (the version_sorter gem, which Repository#tags_sorted_by uses):
// a name is read as a list of parts, numbers (runs of digits) and words (letters, perhaps after a
// `-`); every other byte only separates. Parts compare pairwise: numbers by value, words by bytes,
// and a word before a number (so 1.0.9a < 1.0.9 < 1.0.10 and 2.0-rc1 < 2.0). When one list ends
// first, it goes before the other if the other continues with a number, after it otherwise.

type Part = number | Buffer;

const DIGIT_0 = 0x30;
const isDigit = (b: number) => b >= DIGIT_0 && b <= 0x39;
const isAlpha = (b: number) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
/** Numbers past 32 bits compare as words, as the gem does. */
const MAX_NUMBER = 0xffffffff;
/** The gem reads no further parts. */
const MAX_PARTS = 64;

function versionParts(bytes: Buffer): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < bytes.length && parts.length < MAX_PARTS) {
    const start = i;
    if (isDigit(bytes[i])) {
      let value = 0;
      while (i < bytes.length && isDigit(bytes[i])) value = value * 10 + (bytes[i++] - DIGIT_0);
      parts.push(value <= MAX_NUMBER ? value : bytes.subarray(start, i));
    } else if (bytes[i] === 0x2d || isAlpha(bytes[i])) {
      i++;
      while (i < bytes.length && isAlpha(bytes[i])) i++;
      parts.push(bytes.subarray(start, i));
    } else {
      i++;
    }
  }
  return parts;
}

function compareParts(a: readonly Part[], b: readonly Part[]): number {
  const shared = Math.min(a.length, b.length);
  for (let n = 0; n < shared; n++) {
    const x = a[n];
    const y = b[n];
    if (typeof x === 'number' && typeof y === 'number') {
      if (x !== y) return x < y ? -1 : 1;
    } else if (typeof x === 'number') {
      return 1;
    } else if (typeof y === 'number') {
      return -1;
    } else {
      const cmp = Buffer.compare(x, y);
      if (cmp !== 0) return cmp;
    }
  }
  if (a.length < b.length) return typeof b[shared] === 'number' ? -1 : 1;
  if (a.length > b.length) return typeof a[shared] === 'number' ? 1 : -1;
  return 0;
}

/** Sorts names in version order (ties in byte order, so that the order is total). */
export function versionSort<T>(items: readonly T[], nameOf: (item: T) => string): T[] {
  const keyed = items.map((item) => {
    const name = Buffer.from(nameOf(item), 'utf8');
    return { item, name, parts: versionParts(name) };
  });
  keyed.sort((a, b) => compareParts(a.parts, b.parts) || Buffer.compare(a.name, b.name));
  return keyed.map((k) => k.item);
}
