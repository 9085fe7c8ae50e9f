// The platform's fuzzy search over a few columns: the query is squeezed and split into words
// ("quoted phrases" stay one word); a column matches when it contains, case-insensitively, every
// word of three characters or more, or, when no word is that long, equals the whole query. A row
// matches when any of the columns does.
import { type Expression, type SqlBool, sql } from 'kysely';

/** Escapes LIKE's wildcards (and the escape character itself) for `like … escape '\'`. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Spaces squeezed, trimmed, lower case: the form every search compares. */
export const searchTerm = (query: string) => query.trim().replace(/\s+/g, ' ').toLowerCase();

/** Words of at least `minimum` characters (as the platform counts them: code points); "quoted phrases" count as one word. */
function words(term: string, minimum: number): string[] {
  const quoted: string[] = [];
  const rest = term.replace(/"([^"]*)"/g, (_m, phrase: string) => {
    quoted.push(phrase);
    return '';
  });
  return [...rest.split(' '), ...quoted].filter((w) => w !== '' && [...w].length >= minimum);
}

/**
 * SQLite refuses a LIKE pattern of more than 50,000 bytes ("pattern too complex"); a longer text is
 * looked for without LIKE, by the same test (in both dialects).
 */
const LONGEST_LIKE_PATTERN = 10_000;
const likeTakes = (text: string) => Buffer.byteLength(text) <= LONGEST_LIKE_PATTERN;

/** `value` contains `text` (case as given): when removing it changes the value, if too long for LIKE. */
export function containsText(value: Expression<unknown>, text: string): Expression<SqlBool> {
  if (likeTakes(text)) return sql<SqlBool>`${value} like ${`%${escapeLike(text)}%`} escape '\\'`;
  return sql<SqlBool>`replace(${value}, ${text}, '') <> ${value}`;
}

/** `value` starts with `text` (case as given). */
export function startsWithText(value: Expression<unknown>, text: string): Expression<SqlBool> {
  if (likeTakes(text)) return sql<SqlBool>`${value} like ${`${escapeLike(text)}%`} escape '\\'`;
  return sql<SqlBool>`substr(${value}, 1, ${[...text].length}) = ${text}`;
}

/** `value` equals `text` the way LIKE compares without wildcards (ASCII case folded in SQLite). */
function equalsText(value: Expression<unknown>, text: string): Expression<SqlBool> {
  if (likeTakes(text)) return sql<SqlBool>`${value} like ${escapeLike(text)} escape '\\'`;
  return sql<SqlBool>`${value} = ${text}`;
}

/** lower(column) contains `word` (already lower case), or equals it. */
function holds(column: string, word: string, contains: boolean): Expression<SqlBool> {
  const value = sql`lower(${sql.ref(column)})`;
  return contains ? containsText(value, word) : equalsText(value, word);
}

/**
 * The condition over `columns` (qualified names), or null when the query is blank (no filter at
 * all). `minimumWord`: the shortest word looked for inside a column (labels look for any, 1).
 */
export function fuzzyMatch(query: string, columns: readonly string[], minimumWord = 3): Expression<SqlBool> | null {
  const term = searchTerm(query);
  if (term === '') return null;
  const found = words(term, minimumWord);
  const perColumn = columns.map((column) => {
    const conditions = found.length > 0 ? found.map((w) => holds(column, w, true)) : [holds(column, term, false)];
    return sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
  });
  return sql<SqlBool>`(${sql.join(perColumn, sql` or `)})`;
}

/**
 * A condition narrowing `idColumn` to the rows of an SQLite trigram index (FTS5 with the trigram
 * tokenizer, rowid = id) that hold every word of the query in some column, or null when the query
 * has no word long enough for trigrams. The index folds case at least as widely as fuzzyMatch, so
 * it keeps every row fuzzyMatch would: it only spares the scan, fuzzyMatch still decides.
 */
export function trigramPrefilter(query: string, index: string, idColumn: string): Expression<SqlBool> | null {
  const found = words(searchTerm(query), 3);
  if (found.length === 0) return null;
  const phrases = found.map((w) => `"${w.replaceAll('"', '""')}"`).join(' AND ');
  return sql<SqlBool>`${sql.ref(idColumn)} in (select rowid from ${sql.table(index)} where ${sql.table(index)} match ${phrases})`;
}
