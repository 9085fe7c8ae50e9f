// Which published site a request for a pages host reaches: under `<namespace>.<pages domain>`, the
// project whose path the URL starts with (the longest such, for projects of subgroups), or else
// the namespace's own site, the project named after the host; under a custom domain, its
// project's site while the domain is verified (or verification is off).
import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';

export interface SiteMatch {
  /** The site's files, relative to the artifacts storage. */
  directory: string;
  /** How many leading segments of the URL's path name the project (0 for a namespace's or a domain's site). */
  depth: number;
}

/** Subgroups nest at most this deep: longer paths are not tried as projects. */
const MAX_DEPTH = 20;

export async function namespaceSite(db: Kysely<DB>, host: string, namespace: string, segments: readonly string[]): Promise<SiteMatch | null> {
  const prefix = namespace.toLowerCase();
  const candidates = new Map<string, number>([[`${prefix}/${host}`, 0]]);
  for (let depth = 1; depth <= Math.min(segments.length, MAX_DEPTH); depth += 1) {
    candidates.set(`${prefix}/${segments.slice(0, depth).join('/').toLowerCase()}`, depth);
  }
  const rows = await db
    .selectFrom('projects')
    .innerJoin('pages_deployments', 'pages_deployments.project_id', 'projects.id')
    .select(['projects.full_path', 'pages_deployments.directory'])
    .where(sql<string>`lower(projects.full_path)`, 'in', [...candidates.keys()])
    .orderBy('pages_deployments.id', 'desc')
    .execute();
  let best: SiteMatch | null = null;
  for (const row of rows) {
    const depth = candidates.get(row.full_path.toLowerCase()) ?? 0;
    if (best === null || depth > best.depth) best = { directory: row.directory, depth };
  }
  return best;
}

/** The site of the custom domain; undefined when there is no domain of that name, null when nothing of it is served (unverified, or nothing published). */
export async function customDomainSite(db: Kysely<DB>, host: string, now: Date, verification: boolean): Promise<SiteMatch | null | undefined> {
  const row = await db
    .selectFrom('pages_domains')
    .leftJoin('pages_deployments', 'pages_deployments.project_id', 'pages_domains.project_id')
    .select(['pages_domains.enabled_until', 'pages_deployments.directory'])
    .where(sql<string>`lower(pages_domains.domain)`, '=', host)
    .orderBy('pages_deployments.id', 'desc')
    .executeTakeFirst();
  if (!row) return undefined;
  const enabled = !verification || (row.enabled_until !== null && row.enabled_until >= now.toISOString());
  return enabled && row.directory ? { directory: row.directory, depth: 0 } : null;
}

/** The certificate and sealed key of a custom domain served over TLS, with what identifies their version. */
export function domainCertificate(db: Kysely<DB>, host: string) {
  return db
    .selectFrom('pages_domains')
    .select(['id', 'updated_at', 'certificate', 'key_encrypted', 'enabled_until'])
    .where(sql<string>`lower(domain)`, '=', host)
    .executeTakeFirst();
}
