// The platform's ExpandVariables: `$VAR`, `${VAR}` and `%VAR%` replaced by known values; unknown
// references are kept as written (keep_undefined), or dropped when asked.

const REFERENCE = /\$([a-zA-Z_][a-zA-Z0-9_]*)|\$\{([a-zA-Z_][a-zA-Z0-9_]*)\}|%([a-zA-Z_][a-zA-Z0-9_]*)%/g;

export function expandString(
  text: string,
  lookup: (name: string) => string | undefined,
  keepUndefined = true,
): string {
  if (!text.includes('$') && !text.includes('%')) return text;
  return text.replace(REFERENCE, (whole, a?: string, b?: string, c?: string) => {
    const value = lookup((a ?? b ?? c) as string);
    if (value !== undefined) return value;
    return keepUndefined ? whole : '';
  });
}

/** Names a value refers to, in order of appearance. */
export function referencedNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(REFERENCE)) names.push((match[1] ?? match[2] ?? match[3]) as string);
  return names;
}
