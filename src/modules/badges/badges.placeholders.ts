// The placeholders a badge's URLs may hold, `%{name}`, and their rendering (pure). An unknown
// placeholder stays as written; a known one without a value (an empty repository's commit)
// renders empty, as the platform's.
export const PLACEHOLDERS = ['project_path', 'project_id', 'default_branch', 'commit_sha'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type PlaceholderValues = Record<Placeholder, string | null>;

const PATTERN = new RegExp(`%\\{(${PLACEHOLDERS.join('|')})\\}`, 'g');

export const usesPlaceholder = (url: string, name: Placeholder) => url.includes(`%{${name}}`);

export function renderUrl(url: string, values: PlaceholderValues | null): string {
  if (values === null) return url;
  return url.replace(PATTERN, (_match, name: Placeholder) => values[name] ?? '');
}

/** Whether the URL is an http(s) URL once its placeholders are filled in with something plain. */
export function isBadgeUrl(url: string): boolean {
  if (!/^https?:\/\//i.test(url.trim())) return false;
  try {
    const parsed = new URL(url.replace(PATTERN, 'x'));
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}
