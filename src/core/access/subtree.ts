// "Namespaces under this one" as an index range. A traversal path ('/1/5/9/', the ids from the
// top) starts with its ancestors' paths, so a subtree is every path that starts with the root's.
// Written as `like root || '%'` no index serves it (SQLite's LIKE folds case; PostgreSQL cannot use
// an index for a pattern that is not a constant); written as the byte-wise range
// [root, root || '~') the index on traversal_path serves it in both dialects, since a traversal
// path holds only digits and '/', both below '~'. Byte-wise: SQLite's default BINARY collation;
// on PostgreSQL the column (and so its index) is declared `collate "C"` (migration 0002).
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';

/** Above every character a traversal path holds (also spelled out in the SQL below). */
const AFTER_PATH_CHARS = '~';

/**
 * Whether the traversal path in `column` lies in the subtree rooted at `root`, the root itself
 * included. `root` is a traversal path, or an expression giving one (another row's column:
 * `sql.ref('g.traversal_path')`).
 */
export function inSubtree(column: string, root: string | Expression<string>): RawBuilder<SqlBool> {
  const path = sql.ref(column);
  if (typeof root === 'string') return sql<SqlBool>`(${path} >= ${root} and ${path} < ${root + AFTER_PATH_CHARS})`;
  return sql<SqlBool>`(${path} >= ${root} and ${path} < (${root} || '~'))`;
}
