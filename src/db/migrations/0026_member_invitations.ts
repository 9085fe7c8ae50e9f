// Invitations by email, kept as the platform keeps them: a member row without a user, naming the
// invited address and the digest of the token its mail carries, until someone with that address
// accepts it and the row becomes their membership in place (user set, token cleared, time of
// acceptance kept). Users get the digest of their email confirmation token.
//
// members.user_id becomes nullable: PostgreSQL drops the constraint; SQLite cannot, so the table
// is rebuilt under its own name, with its indexes and the triggers of 0003 that count on it.
import { type Kysely, sql } from 'kysely';
import { isPostgres, notNull, withId } from './helpers.ts';

const MEMBER_COLUMNS = ['id', 'source_type', 'source_id', 'user_id', 'access_level', 'expires_at', 'created_by_id', 'created_at', 'updated_at'];

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await db.schema.alterTable('members').alterColumn('user_id', (c) => c.dropNotNull()).execute();
    await db.schema.alterTable('members').addColumn('invite_email', 'varchar(255)').execute();
    await db.schema.alterTable('members').addColumn('invite_token', 'varchar(64)').execute();
    await db.schema.alterTable('members').addColumn('invite_accepted_at', 'varchar(32)').execute();
  } else {
    await rebuildMembersOnSqlite(db);
  }
  await db.schema.createIndex('members_invite_token').unique().on('members').column('invite_token').execute();
  // Pending invitations of an address, found when its owner signs up or confirms it.
  await db.schema.createIndex('members_invite_email').on('members').expression(sql`lower(invite_email)`).execute();

  await db.schema.alterTable('users').addColumn('confirmation_token', 'varchar(64)').execute();
  await db.schema.createIndex('users_confirmation_token').unique().on('users').column('confirmation_token').execute();
}

async function rebuildMembersOnSqlite(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('members_next'))
    .addColumn('source_type', 'varchar(16)', notNull)
    .addColumn('source_id', 'bigint', notNull)
    .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('access_level', 'integer', notNull)
    .addColumn('expires_at', 'varchar(10)')
    .addColumn('created_by_id', 'bigint')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .addColumn('invite_email', 'varchar(255)')
    .addColumn('invite_token', 'varchar(64)')
    .addColumn('invite_accepted_at', 'varchar(32)')
    .execute();
  const columns = sql.raw(MEMBER_COLUMNS.join(', '));
  await sql`insert into members_next (${columns}) select ${columns} from members`.execute(db);
  // Ids of deleted memberships are not given out again.
  await sql`delete from sqlite_sequence where name = 'members_next'`.execute(db);
  await sql`insert into sqlite_sequence (name, seq) select 'members_next', seq from sqlite_sequence where name = 'members'`.execute(db);
  await sql`drop table members`.execute(db);
  await sql`alter table members_next rename to members`.execute(db);
  await db.schema.createIndex('members_source_user').unique().on('members').columns(['source_type', 'source_id', 'user_id']).execute();
  await db.schema.createIndex('members_user').on('members').columns(['user_id', 'source_type', 'source_id']).execute();
  await db.schema.createIndex('members_expires_at').on('members').columns(['expires_at']).execute();
  for (const event of ['insert', 'update', 'delete']) {
    await sql
      .raw(`create trigger members_membership_${event} after ${event} on members begin
              update membership_generation set generation = generation + 1;
            end`)
      .execute(db);
  }
}
