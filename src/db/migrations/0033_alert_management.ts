// Alerts from monitoring tools: a project's HTTP integrations (each with its own address, named by
// an endpoint identifier, and its token, sealed with the instance's key; a payload example and a
// custom mapping of payload fields, kept as JSON text) and the alerts they receive, numbered per
// project. At most one unresolved alert of a project has a given fingerprint: a partial unique
// index holds that against concurrent receivers.
import { type Kysely, sql } from 'kysely';
import { notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('alert_management_http_integrations'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(sql`false`))
    .addColumn('endpoint_identifier', 'varchar(255)', notNull)
    .addColumn('token_encrypted', 'text', notNull)
    .addColumn('payload_example', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('payload_attribute_mapping', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema
    .createIndex('alert_management_http_integrations_endpoint')
    .on('alert_management_http_integrations')
    .columns(['project_id', 'endpoint_identifier'])
    .execute();

  await withId(db, db.schema.createTable('alert_management_alerts'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', notNull)
    .addColumn('title', 'varchar(200)', notNull)
    .addColumn('description', 'text')
    .addColumn('service', 'varchar(100)')
    .addColumn('monitoring_tool', 'varchar(100)')
    .addColumn('hosts', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('severity', 'varchar(16)', (c) => c.notNull().defaultTo('critical'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('triggered'))
    .addColumn('events', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('fingerprint', 'varchar(40)')
    .addColumn('started_at', 'varchar(32)', notNull)
    .addColumn('ended_at', 'varchar(32)')
    .addColumn('payload', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('alert_management_alerts_project_iid').on('alert_management_alerts').columns(['project_id', 'iid']).unique().execute();
  await sql`create unique index alert_management_alerts_unresolved_fingerprint on alert_management_alerts (project_id, fingerprint) where status <> 'resolved'`.execute(db);
  await db.schema.createIndex('alert_management_alerts_project_status').on('alert_management_alerts').columns(['project_id', 'status', 'id']).execute();
}
