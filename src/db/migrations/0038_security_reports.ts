// Security reports and license policies. A pipeline's security report artifacts, once it completes,
// become scans (one per job and report type, with the parsing errors of a malformed report), their
// findings and the dependency list, kept per pipeline. On the default branch the findings also
// become the project's lasting findings (vulnerability_occurrences, one per UUID, with their
// scanners and identifiers) and a vulnerability each. Managed licenses are a project's policy
// (allowed or denied) per license name.
import type { Kysely } from 'kysely';
import { falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('software_license_policies'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('classification', 'varchar(16)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('software_license_policies_project_name').unique().on('software_license_policies').columns(['project_id', 'name']).execute();

  await withId(db, db.schema.createTable('security_scans'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('pipeline_id', 'bigint', (c) => c.notNull().references('ci_pipelines.id').onDelete('cascade'))
    .addColumn('build_id', 'bigint', (c) => c.notNull().references('ci_builds.id').onDelete('cascade'))
    .addColumn('scan_type', 'varchar(32)', notNull)
    .addColumn('status', 'varchar(16)', notNull)
    .addColumn('errors', 'text', notNull)
    .addColumn('default_branch', 'boolean', falseByDefault)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('security_scans_build_type').unique().on('security_scans').columns(['build_id', 'scan_type']).execute();
  await db.schema.createIndex('security_scans_pipeline').on('security_scans').column('pipeline_id').execute();
  await db.schema.createIndex('security_scans_latest').on('security_scans').columns(['project_id', 'scan_type', 'default_branch', 'pipeline_id']).execute();

  await withId(db, db.schema.createTable('security_findings'))
    .addColumn('scan_id', 'bigint', (c) => c.notNull().references('security_scans.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', notNull)
    .addColumn('pipeline_id', 'bigint', notNull)
    .addColumn('uuid', 'varchar(36)', notNull)
    .addColumn('report_type', 'varchar(32)', notNull)
    .addColumn('severity', 'varchar(16)', notNull)
    .addColumn('confidence', 'varchar(16)', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('location_file', 'text')
    .addColumn('package_name', 'text')
    .execute();
  await db.schema.createIndex('security_findings_scan').on('security_findings').columns(['scan_id', 'location_file']).execute();

  await withId(db, db.schema.createTable('security_dependencies'))
    .addColumn('scan_id', 'bigint', (c) => c.notNull().references('security_scans.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', notNull)
    .addColumn('pipeline_id', 'bigint', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('version', 'text')
    .addColumn('package_manager', 'varchar(64)', notNull)
    .addColumn('file_path', 'text', notNull)
    .execute();
  await db.schema.createIndex('security_dependencies_pipeline').on('security_dependencies').columns(['pipeline_id', 'name']).execute();
  await db.schema.createIndex('security_dependencies_scan').on('security_dependencies').column('scan_id').execute();

  await withId(db, db.schema.createTable('vulnerability_scanners'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('external_id', 'varchar(255)', notNull)
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('vendor', 'varchar(255)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('vulnerability_scanners_project_external').unique().on('vulnerability_scanners').columns(['project_id', 'external_id']).execute();

  await withId(db, db.schema.createTable('vulnerability_identifiers'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('fingerprint', 'varchar(40)', notNull)
    .addColumn('external_type', 'varchar(255)', notNull)
    .addColumn('external_id', 'varchar(255)', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('url', 'text')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('vulnerability_identifiers_project_fingerprint').unique().on('vulnerability_identifiers').columns(['project_id', 'fingerprint']).execute();

  await withId(db, db.schema.createTable('vulnerabilities'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('author_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('title', 'varchar(255)', notNull)
    .addColumn('description', 'text')
    .addColumn('state', 'varchar(16)', notNull)
    .addColumn('severity', 'varchar(16)', notNull)
    .addColumn('severity_level', 'integer', notNull)
    .addColumn('confidence', 'varchar(16)', notNull)
    .addColumn('report_type', 'varchar(32)', notNull)
    .addColumn('resolved_on_default_branch', 'boolean', falseByDefault)
    .addColumn('updated_by_id', 'bigint')
    .addColumn('last_edited_by_id', 'bigint')
    .addColumn('last_edited_at', 'varchar(32)')
    .addColumn('start_date', 'varchar(32)')
    .addColumn('due_date', 'varchar(32)')
    .addColumn('resolved_by_id', 'bigint')
    .addColumn('resolved_at', 'varchar(32)')
    .addColumn('dismissed_by_id', 'bigint')
    .addColumn('dismissed_at', 'varchar(32)')
    .addColumn('confirmed_by_id', 'bigint')
    .addColumn('confirmed_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('vulnerabilities_project_severity').on('vulnerabilities').columns(['project_id', 'severity_level', 'id']).execute();

  await withId(db, db.schema.createTable('vulnerability_occurrences'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('scanner_id', 'bigint', (c) => c.notNull().references('vulnerability_scanners.id').onDelete('cascade'))
    .addColumn('primary_identifier_id', 'bigint', (c) => c.notNull().references('vulnerability_identifiers.id').onDelete('cascade'))
    .addColumn('vulnerability_id', 'bigint', (c) => c.references('vulnerabilities.id').onDelete('set null'))
    .addColumn('report_type', 'varchar(32)', notNull)
    .addColumn('severity', 'varchar(16)', notNull)
    .addColumn('confidence', 'varchar(16)', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('uuid', 'varchar(36)', notNull)
    .addColumn('project_fingerprint', 'varchar(40)', notNull)
    .addColumn('location_fingerprint', 'varchar(40)', notNull)
    .addColumn('metadata_version', 'varchar(32)', notNull)
    .addColumn('raw_metadata', 'text', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('vulnerability_occurrences_uuid').unique().on('vulnerability_occurrences').column('uuid').execute();
  await db.schema.createIndex('vulnerability_occurrences_project_type').on('vulnerability_occurrences').columns(['project_id', 'report_type']).execute();
  await db.schema.createIndex('vulnerability_occurrences_vulnerability').on('vulnerability_occurrences').column('vulnerability_id').execute();
}
