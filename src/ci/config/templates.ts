// The CI templates Quarry ships (src/ci/templates), for `include: template:`. Read from disk once
// per name; a name that leaves the directory or is not shipped reads as missing.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const TEMPLATE_DIR = fileURLToPath(new URL('../templates/', import.meta.url));
const cache = new Map<string, string | null>();

/** The template's text, or null when Quarry ships no such template. */
export function readTemplate(name: string): string | null {
  if (cache.has(name)) return cache.get(name) ?? null;
  let text: string | null = null;
  const file = path.resolve(TEMPLATE_DIR, name);
  if (file.startsWith(TEMPLATE_DIR) && !name.split('/').includes('..')) {
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = null;
    }
  }
  cache.set(name, text);
  return text;
}
