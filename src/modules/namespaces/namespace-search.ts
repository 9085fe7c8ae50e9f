// The platform's fuzzy search over a few columns: the query is squeezed and split into words
// ("quoted phrases" stay one word); a column matches when it contains, case-insensitively, every
// word of three characters or more, or, when no word is that long, equals the whole query. A row
// matches when any of the columns does.
import { type Expression, type SqlBool, sql } from 'kysely';

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function words(query: string): string[] {
  const quoted: string[] = [];
  const rest = query.replace(/"([^"]*)"/g, (_m, phrase: string) => {
    quoted.push(phrase);
    return '';
  });
  return [...rest.split(' '), ...quoted].filter((w) => [...w].length >= 3);
}

/** The condition, or null when the query is blank (no filter at all). */
export function fuzzyMatch(query: string, columns: readonly string[]): Expression<SqlBool> | null {
  const term = query.trim().replace(/\s+/g, ' ').toLowerCase();
  if (term === '') return null;
  const found = words(term);
  const patterns = found.length > 0 ? found.map((w) => `%${escapeLike(w)}%`) : [escapeLike(term)];
  const perColumn = columns.map(
    (column) => sql<SqlBool>`(${sql.join(patterns.map((p) => sql`lower(${sql.ref(column)}) like ${p} escape '\\'`), sql` and `)})`,
  );
  return sql<SqlBool>`(${sql.join(perColumn, sql` or `)})`;
}
