// The schema a new SQLite database has once every migration ran, as its CREATE statements and the
// rows the migrations wrote, replayed in one go. Migrations run in about 150 ms on SQLite (each
// ALTER makes SQLite rewrite its whole schema), a replay in about 20: the bundled server carries
// an image made when it was built (src/bundle/build.ts) and gives it to every new SQLite database.
import { type Kysely, sql } from 'kysely';

export interface SchemaImage {
  /** Every CREATE statement SQLite keeps, in the order of its schema table. */
  statements: string[];
  /** The rows of the ordinary tables that have some. */
  rows: Record<string, Record<string, unknown>[]>;
  /** sqlite_sequence: the last id of each AUTOINCREMENT table. */
  sequences: { name: string; seq: number }[];
  /** Timestamps written while the image was made (ISO 8601): a restore writes its own time instead. */
  madeBetween: [string, string];
}

type Row = Record<string, unknown>;
const ISO_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** Rows per INSERT: well under SQLite's limit of bound parameters. */
const BATCH = 50;

/** Tables by kind: a virtual table makes its shadow tables itself, and SQLite its own. */
async function tableKinds(db: Kysely<any>): Promise<{ ordinary: { name: string; wr: number }[]; made: Set<string> }> {
  const tables = (await sql<{ name: string; type: string; wr: number }>`select name, type, wr from pragma_table_list where schema = 'main'`.execute(db)).rows;
  const made = new Set(tables.filter((t) => t.type === 'shadow' || t.name.startsWith('sqlite_')).map((t) => t.name));
  return { ordinary: tables.filter((t) => t.type === 'table' && !made.has(t.name)), made };
}

/** A table's rows in the order they were written (by primary key in a table without rowid). */
export async function tableRows(db: Kysely<any>, table: { name: string; wr: number }): Promise<Record<string, unknown>[]> {
  return (await sql<Row>`select * from ${sql.table(table.name)} ${table.wr ? sql`` : sql`order by rowid`}`.execute(db)).rows;
}

/** The image of a database: what `restoreSchemaImage` needs to make another one like it. */
export async function readSchemaImage(db: Kysely<any>, madeBetween: [string, string]): Promise<SchemaImage> {
  const { ordinary, made } = await tableKinds(db);
  const entries = (await sql<{ name: string; tbl_name: string; sql: string }>`select name, tbl_name, sql from sqlite_master where sql is not null order by rowid`.execute(db)).rows;
  const statements = entries.filter((e) => !made.has(e.tbl_name)).map((e) => e.sql);
  const rows: SchemaImage['rows'] = {};
  for (const table of ordinary.sort((a, b) => a.name.localeCompare(b.name))) {
    const found = await tableRows(db, table);
    if (found.length > 0) rows[table.name] = found;
  }
  const hasSequences = entries.some((e) => e.name === 'sqlite_sequence');
  const sequences = hasSequences ? (await sql<{ name: string; seq: number }>`select name, seq from sqlite_sequence order by name`.execute(db)).rows : [];
  return { statements, rows, sequences, madeBetween };
}

/** Makes an empty database (`db`, in a transaction) what the image describes. */
export async function restoreSchemaImage(db: Kysely<any>, image: SchemaImage): Promise<void> {
  const now = new Date().toISOString();
  const [from, to] = image.madeBetween;
  const stamped = (value: unknown) => (typeof value === 'string' && ISO_TIMESTAMP.test(value) && value >= from && value <= to ? now : value);
  for (const statement of image.statements) await sql.raw(statement).execute(db);
  for (const [table, rows] of Object.entries(image.rows)) {
    for (let i = 0; i < rows.length; i += BATCH) {
      const batch = rows.slice(i, i + BATCH).map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, stamped(value)])));
      await db.insertInto(table).values(batch).execute();
    }
  }
  // Inserting rows with their ids moved the sequences already; the image says where they stand.
  if (image.sequences.length > 0) {
    await sql`delete from sqlite_sequence`.execute(db);
    for (const { name, seq } of image.sequences) await sql`insert into sqlite_sequence (name, seq) values (${name}, ${seq})`.execute(db);
  }
}

/** Whether `db` has no schema at all: a database an image may be restored into. */
export async function isEmptyDatabase(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master`.execute(db);
  return Number(rows[0].n) === 0;
}
