// The CI templates Quarry ships (src/ci/templates): what `include: template:` reads and what the
// templates API lists and serves. Read from disk once per template; a name that leaves the
// directory or is not shipped reads as missing (and is not remembered: anyone may ask for any name).
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const TEMPLATE_EXTENSION = '.gitlab-ci.yml';
const TEMPLATE_DIR = fileURLToPath(new URL('../templates/', import.meta.url));
/** Texts by file: however a name spells a path, each file is kept once. */
const cache = new Map<string, string>();
let topLevel: readonly string[] | null = null;

/** The template's text, or null when Quarry ships no such template. */
export function readTemplate(name: string): string | null {
  const file = path.resolve(TEMPLATE_DIR, name);
  const cached = cache.get(file);
  if (cached !== undefined) return cached;
  let text: string | null = null;
  if (file.startsWith(TEMPLATE_DIR) && !name.split('/').includes('..')) {
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = null;
    }
  }
  if (text !== null) cache.set(file, text);
  return text;
}

/**
 * The file names of the templates at the top of the directory (the platform's "General"
 * category), in byte order; those in folders (Workflows/…) are read by their path but not listed.
 */
export function listTemplates(): readonly string[] {
  topLevel ??= readdirSync(TEMPLATE_DIR, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(TEMPLATE_EXTENSION))
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return topLevel;
}
