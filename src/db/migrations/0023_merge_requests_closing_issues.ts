// The issues an open merge request would close when merged (the platform's
// merge_requests_closing_issues), read from its title and description when it is written, so that
// an issue's merge_requests_count and a merge request's closes_issues are one indexed read.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merge_requests_closing_issues')
    .addColumn('merge_request_id', 'bigint', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('issue_id', 'bigint', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('merge_requests_closing_issues_pkey', ['merge_request_id', 'issue_id'])
    .execute();
  await db.schema.createIndex('merge_requests_closing_issues_issue').on('merge_requests_closing_issues').columns(['issue_id', 'merge_request_id']).execute();
}
