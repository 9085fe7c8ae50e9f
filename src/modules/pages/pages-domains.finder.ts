// Reads of pages domains: a project's (by name), the instance's (administrators' list), one by its
// exact name in a project, and whether a name is taken anywhere whatever its case.
import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { DB, PagesDomainRow } from '../../db/schema.ts';

/** The project's domains by name, as the platform orders them. */
export function projectDomains(db: Kysely<DB>, projectId: number): SelectQueryBuilder<DB, 'pages_domains', PagesDomainRow> {
  return db.selectFrom('pages_domains').selectAll().where('project_id', '=', projectId).orderBy('domain').orderBy('id');
}

/** Every domain of the instance, oldest first. */
export function allDomains(db: Kysely<DB>): SelectQueryBuilder<DB, 'pages_domains', PagesDomainRow> {
  return db.selectFrom('pages_domains').selectAll().orderBy('id');
}

/** The project's domain of exactly this name (the platform's find_by is case-sensitive). */
export function findProjectDomain(db: Kysely<DB>, projectId: number, domain: string): Promise<PagesDomainRow | undefined> {
  return db.selectFrom('pages_domains').selectAll().where('project_id', '=', projectId).where('domain', '=', domain).executeTakeFirst();
}

/** Whether another domain has this name, whatever its case. */
export async function domainTaken(db: Kysely<DB>, domain: string, exceptId: number | null): Promise<boolean> {
  const clash = await db
    .selectFrom('pages_domains')
    .select('id')
    .where(sql<string>`lower(domain)`, '=', domain.toLowerCase())
    .$if(exceptId !== null, (q) => q.where('id', '!=', exceptId as number))
    .executeTakeFirst();
  return clash !== undefined;
}
