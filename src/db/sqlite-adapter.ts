// Adapts node:sqlite's DatabaseSync to the interface Kysely's SqliteDialect expects.
import type { DatabaseSync, StatementSync, SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const STATEMENT_CACHE_SIZE = 500;

/** SQLite has no boolean or Date type: bind them as 1/0 and ISO text, like the schema stores them. */
function bindable(value: unknown): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (value === undefined) return null;
  return value as SQLInputValue;
}

function bind(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map(bindable);
}

type Column = ReturnType<StatementSync['columns']>[number];

export type StatementKind = 'select' | 'insert' | 'update' | 'delete' | 'other';

/** Told how long each statement took (core/metrics.ts), made once per prepared statement. */
export interface StatementTimer {
  succeeded(seconds: number): void;
  failed(): void;
}

const UNTIMED: StatementTimer = { succeeded() {}, failed() {} };

/** What a statement does, by its first word; a CTE, DDL or a transaction's statement is `other`. */
export function statementKind(sql: string): StatementKind {
  const word = /^\s*(\w+)/.exec(sql)?.[1].toLowerCase();
  return word === 'select' || word === 'insert' || word === 'update' || word === 'delete' ? word : 'other';
}

/**
 * A result column read straight from a table column declared `boolean` (SQLite keeps its declared
 * type, through aliases, subqueries and RETURNING); expressions have none and stay as computed.
 */
const isBoolean = (column: Column) => column.type !== null && /^bool(ean)?$/i.test(column.type);

/**
 * Builds row objects from node:sqlite's arrays. The objects node:sqlite makes itself have no
 * prototype and hold their properties in dictionary mode: slower to make, and several times
 * slower to read and to serialize, than these, which share one shape per statement. Keys are
 * written as string literals, which V8 builds from one template per literal (computed keys are
 * added one by one, several times slower for a row of many columns); only a column named
 * __proto__, which a literal key would turn into the prototype, is computed so that it stays an
 * own property. Boolean columns, stored as 0/1, come out as true/false as PostgreSQL returns them
 * (null stays null).
 */
function rowFactory(columns: readonly Column[]): (values: unknown[]) => Record<string, unknown> {
  const fields = columns.map((column, i) => {
    const value = isBoolean(column) ? `(values[${i}] === null ? null : values[${i}] !== 0)` : `values[${i}]`;
    const key = JSON.stringify(column.name);
    return `${column.name === '__proto__' ? `[${key}]` : key}: ${value}`;
  });
  return new Function('values', `return { ${fields.join(', ')} };`) as (values: unknown[]) => Record<string, unknown>;
}

// Iterating (Kysely's stream()) is not timed: the time between rows is the reader's. Each run
// tells the timer how long it took (node:sqlite runs it synchronously: nothing else runs
// meanwhile); the timing is written out in each method rather than through a shared helper taking
// a closure, which every statement of every request would allocate.
function wrap(stmt: StatementSync, timer: StatementTimer): SqliteStatement {
  const columns = stmt.columns();
  const run = (parameters: ReadonlyArray<unknown>) => {
    const start = performance.now();
    let result;
    try {
      result = stmt.run(...bind(parameters));
    } catch (error) {
      timer.failed();
      throw error;
    }
    timer.succeeded((performance.now() - start) / 1000);
    return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
  };
  const all = (parameters: ReadonlyArray<unknown>): unknown[] => {
    const start = performance.now();
    let rows;
    try {
      rows = stmt.all(...bind(parameters));
    } catch (error) {
      timer.failed();
      throw error;
    }
    timer.succeeded((performance.now() - start) / 1000);
    return rows;
  };
  if (columns.length === 0) {
    return { reader: false, all, run, iterate: (parameters) => stmt.iterate(...bind(parameters)) };
  }
  stmt.setReturnArrays(true);
  const toRow = rowFactory(columns);
  return {
    reader: true,
    all: (parameters) => (all(parameters) as unknown[][]).map(toRow),
    run,
    *iterate(parameters) {
      for (const values of stmt.iterate(...bind(parameters))) yield toRow(values as unknown as unknown[]);
    },
  };
}

/**
 * Kysely opens every transaction with a plain `begin`, which takes the write lock only at the first
 * write: when another connection (another server process) commits in between, that write fails at
 * once with SQLITE_BUSY, whatever the busy timeout. `begin immediate` takes the lock up front and
 * so waits its turn instead.
 */
const BEGIN = 'begin immediate';

/**
 * Prepared statements are cached by SQL text: Kysely emits the same text for the same query shape.
 * `timer` gives each statement what it reports its run times to, by the statement's kind.
 */
export function sqliteAdapter(raw: DatabaseSync, timer: (kind: StatementKind) => StatementTimer = () => UNTIMED): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    prepare(text) {
      const sql = text === 'begin' ? BEGIN : text;
      let stmt = cache.get(sql);
      if (stmt) return stmt;
      stmt = wrap(raw.prepare(sql), timer(statementKind(sql)));
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(sql, stmt);
      return stmt;
    },
    close() {
      cache.clear();
      raw.close();
    },
  };
}
