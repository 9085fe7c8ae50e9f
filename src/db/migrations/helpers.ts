// Dialect details that migrations need. Migrations are frozen in time: they import nothing else.
import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * An auto-incrementing integer primary key named id: 64-bit, like the columns that refer to it
 * (`bigint`), so that any id a client can send compares without overflowing.
 */
export function withId<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
  return isPostgres(db)
    ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();
export const falseByDefault = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(sql`false`);
export const emptyByDefault = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo('');

/** What a migration may need beyond the database. */
export interface MigrationContext {
  /** Encrypts a secret with the instance's key (the data directory's), for migrations that move secrets. */
  seal(clear: string): string;
}
