// The platform's fuzzy search over a few columns: the query is squeezed and split into words
// ("quoted phrases" stay one word); a column matches when it contains, case-insensitively, every
// word of three characters or more, or, when no word is that long, equals the whole query. A row
// matches when any of the columns does.
import { type Expression, type SqlBool, sql } from 'kysely';

/** Escapes LIKE's wildcards (and the escape character itself) for `like … escape '\'`. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Spaces squeezed, trimmed, lower case: the form every search compares. */
export const searchTerm = (query: string) => query.trim().replace(/\s+/g, ' ').toLowerCase();

/** Words of at least three characters (as the platform counts them: code points); "quoted phrases" count as one word. */
function words(term: string): string[] {
  const quoted: string[] = [];
  const rest = term.replace(/"([^"]*)"/g, (_m, phrase: string) => {
    quoted.push(phrase);
    return '';
  });
  return [...rest.split(' '), ...quoted].filter((w) => [...w].length >= 3);
}

/** The condition over `columns` (qualified names), or null when the query is blank (no filter at all). */
export function fuzzyMatch(query: string, columns: readonly string[]): Expression<SqlBool> | null {
  const term = searchTerm(query);
  if (term === '') return null;
  const found = words(term);
  const patterns = found.length > 0 ? found.map((w) => `%${escapeLike(w)}%`) : [escapeLike(term)];
  const perColumn = columns.map(
    (column) => sql<SqlBool>`(${sql.join(patterns.map((p) => sql`lower(${sql.ref(column)}) like ${p} escape '\\'`), sql` and `)})`,
  );
  return sql<SqlBool>`(${sql.join(perColumn, sql` or `)})`;
}

/**
 * A condition narrowing `idColumn` to the rows of an SQLite trigram index (FTS5 with the trigram
 * tokenizer, rowid = id) that hold every word of the query in some column, or null when the query
 * has no word long enough for trigrams. The index folds case at least as widely as fuzzyMatch, so
 * it keeps every row fuzzyMatch would: it only spares the scan, fuzzyMatch still decides.
 */
export function trigramPrefilter(query: string, index: string, idColumn: string): Expression<SqlBool> | null {
  const found = words(searchTerm(query));
  if (found.length === 0) return null;
  const phrases = found.map((w) => `"${w.replaceAll('"', '""')}"`).join(' AND ');
  return sql<SqlBool>`${sql.ref(idColumn)} in (select rowid from ${sql.table(index)} where ${sql.table(index)} match ${phrases})`;
}
