// Reads of a project's packages and their files, and what their entities show beside their rows
// (the pipelines that published them, and who ran those), loaded once for a whole page.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { CiPipelineRow, DB, PackageFileRow, PackageRow, UserRow } from '../../db/schema.ts';
import type { ListPackagesQuery } from './packages.schemas.ts';

/** The statuses a list shows unless asked for another (the platform's `displayable`). */
const DISPLAYABLE = ['default', 'error'];

export function projectPackages(db: Kysely<DB>, projectId: number, q: Omit<ListPackagesQuery, 'page' | 'per_page'>): SelectQueryBuilder<DB, 'packages', PackageRow> {
  const column = q.order_by === 'type' ? 'package_type' : (q.order_by ?? 'created_at');
  const direction = q.sort ?? 'asc';
  let query = db.selectFrom('packages').selectAll().where('project_id', '=', projectId);
  query = q.status !== undefined ? query.where('status', '=', q.status) : query.where('status', 'in', DISPLAYABLE);
  if (q.package_type !== undefined) query = query.where('package_type', '=', q.package_type);
  if (q.package_name !== undefined) query = query.where(sql<boolean>`lower(name) like ${`%${q.package_name.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`} escape '\\'`);
  if (!q.include_versionless) query = query.where('version', 'is not', null);
  return query.orderBy(column, direction).orderBy('id', direction);
}

export function findPackage(db: Kysely<DB>, projectId: number, packageId: number): Promise<PackageRow | undefined> {
  return db.selectFrom('packages').selectAll().where('project_id', '=', projectId).where('id', '=', packageId).executeTakeFirst();
}

/** The project's generic package of this name and version, if it has one. */
export function findGenericPackage(db: Kysely<DB>, projectId: number, name: string, version: string): Promise<PackageRow | undefined> {
  return db
    .selectFrom('packages')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('package_type', '=', 'generic')
    .where('name', '=', name)
    .where('version', '=', version)
    .orderBy('id')
    .executeTakeFirst();
}

export function packageFiles(db: Kysely<DB>, packageId: number): SelectQueryBuilder<DB, 'package_files', PackageFileRow> {
  return db.selectFrom('package_files').selectAll().where('package_id', '=', packageId).orderBy('id');
}

/** The newest file of this name in the package (a name published again serves its latest upload). */
export function findNamedFile(db: Kysely<DB>, packageId: number, fileName: string): Promise<PackageFileRow | undefined> {
  return packageFiles(db, packageId).where('file_name', '=', fileName).clearOrderBy().orderBy('id', 'desc').executeTakeFirst();
}

/** The other versions of the package's name in its project, newest first. */
export function otherVersions(db: Kysely<DB>, row: PackageRow): Promise<PackageRow[]> {
  return db
    .selectFrom('packages')
    .selectAll()
    .where('project_id', '=', row.project_id)
    .where('package_type', '=', row.package_type)
    .where('name', '=', row.name)
    .where('id', '!=', row.id)
    .where('status', 'in', DISPLAYABLE)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export type PipelineUser = Pick<UserRow, 'id' | 'username' | 'name' | 'state'>;

export interface PackagesView {
  baseUrl: string;
  /** package id → the ids of the pipelines that published its files, first first. */
  packagePipelines: ReadonlyMap<number, readonly number[]>;
  pipelines: ReadonlyMap<number, CiPipelineRow>;
  users: ReadonlyMap<number, PipelineUser>;
}

/** The pipelines (and their users) behind these packages' and files' uploads. */
export async function loadPackagesView(db: Kysely<DB>, baseUrl: string, packageIds: readonly number[], files: readonly PackageFileRow[] = []): Promise<PackagesView> {
  const links = packageIds.length === 0
    ? []
    : await db.selectFrom('package_files').select(['package_id', 'pipeline_id']).where('package_id', 'in', packageIds).where('pipeline_id', 'is not', null).orderBy('id').execute();
  const packagePipelines = new Map<number, number[]>();
  for (const { package_id, pipeline_id } of links) {
    const list = packagePipelines.get(package_id) ?? [];
    if (!list.includes(pipeline_id as number)) list.push(pipeline_id as number);
    packagePipelines.set(package_id, list);
  }
  const pipelineIds = [...new Set([...links.map((l) => l.pipeline_id as number), ...files.flatMap((f) => (f.pipeline_id === null ? [] : [f.pipeline_id]))])];
  const pipelines = pipelineIds.length === 0 ? [] : await db.selectFrom('ci_pipelines').selectAll().where('id', 'in', pipelineIds).execute();
  const userIds = [...new Set(pipelines.flatMap((p) => (p.user_id === null ? [] : [p.user_id])))];
  const users = userIds.length === 0 ? [] : await db.selectFrom('users').select(['id', 'username', 'name', 'state']).where('id', 'in', userIds).execute();
  return { baseUrl, packagePipelines, pipelines: new Map(pipelines.map((p) => [p.id, p])), users: new Map(users.map((u) => [u.id, u])) };
}
