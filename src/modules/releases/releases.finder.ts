// Reading releases: a project's, ordered by release or creation time (the id breaking ties), one
// by its tag, and what presenting a page of them needs, one query per kind for the whole page
// (authors, links, milestones with their issue counts, evidences), and their commits from git.
import type { Kysely } from 'kysely';
import type { DB, MilestoneRow, ReleaseLinkRow, ReleaseRow, UserRow } from '../../db/schema.ts';
import { type Commit, getCommit } from '../../git/commits.ts';
import type { RELEASE_ORDERS, SORTS } from './releases.schemas.ts';

export function findReleases(db: Kysely<DB>, projectId: number, orderBy: (typeof RELEASE_ORDERS)[number], sort: (typeof SORTS)[number]) {
  return db.selectFrom('releases').selectAll().where('project_id', '=', projectId).orderBy(orderBy, sort).orderBy('id', sort);
}

export async function findRelease(db: Kysely<DB>, projectId: number, tag: string): Promise<ReleaseRow | null> {
  return (await db.selectFrom('releases').selectAll().where('project_id', '=', projectId).where('tag', '=', tag).executeTakeFirst()) ?? null;
}

/** A release's links, newest first (the platform's `sorted`). */
export function findLinks(db: Kysely<DB>, releaseId: number) {
  return db.selectFrom('release_links').selectAll().where('release_id', '=', releaseId).orderBy('created_at', 'desc').orderBy('id', 'desc');
}

export async function findLink(db: Kysely<DB>, releaseId: number, id: number): Promise<ReleaseLinkRow | null> {
  return (await db.selectFrom('release_links').selectAll().where('release_id', '=', releaseId).where('id', '=', id).executeTakeFirst()) ?? null;
}

/** Which of these values the other links of a release hold already. */
export async function linkClashes(db: Kysely<DB>, releaseId: number, link: { name: string; url: string; filepath: string | null }, exceptId?: number) {
  const rows = await db
    .selectFrom('release_links')
    .select(['name', 'url', 'filepath'])
    .where('release_id', '=', releaseId)
    .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId!))
    .where((eb) => eb.or([eb('name', '=', link.name), eb('url', '=', link.url), ...(link.filepath === null ? [] : [eb('filepath', '=', link.filepath)])]))
    .execute();
  return {
    name: rows.some((r) => r.name === link.name),
    url: rows.some((r) => r.url === link.url),
    filepath: link.filepath !== null && rows.some((r) => r.filepath === link.filepath),
  };
}

/** The project's milestones with these titles, in any state. */
export async function milestonesByTitle(db: Kysely<DB>, projectId: number, titles: readonly string[]): Promise<MilestoneRow[]> {
  if (titles.length === 0) return [];
  return db.selectFrom('milestones').selectAll().where('project_id', '=', projectId).where('title', 'in', [...new Set(titles)]).orderBy('id').execute();
}

export interface MilestoneWithStats extends MilestoneRow {
  totalIssues: number;
  closedIssues: number;
}

export interface EvidenceSummary {
  id: number;
  release_id: number;
  summary_sha: string;
  created_at: string;
}

/** What the presenter needs of a page of releases, each by release (or user) id. */
export interface ReleaseParts {
  authors: ReadonlyMap<number, UserRow>;
  links: ReadonlyMap<number, ReleaseLinkRow[]>;
  milestones: ReadonlyMap<number, MilestoneWithStats[]>;
  evidences: ReadonlyMap<number, EvidenceSummary[]>;
  commits: ReadonlyMap<string, Commit>;
}

function groupBy<T>(rows: readonly T[], key: (row: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const row of rows) {
    const list = out.get(key(row));
    if (list) list.push(row);
    else out.set(key(row), [row]);
  }
  return out;
}

/** The platform's order_by_dates_and_title: due date, then start date (none last), then title. */
function byDatesAndTitle(a: MilestoneRow, b: MilestoneRow): number {
  const date = (x: string | null, y: string | null) => (x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1);
  return date(a.due_date, b.due_date) || date(a.start_date, b.start_date) || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0) || a.id - b.id;
}

async function milestonesOf(db: Kysely<DB>, releaseIds: readonly number[]): Promise<Map<number, MilestoneWithStats[]>> {
  const rows = await db
    .selectFrom('milestone_releases')
    .innerJoin('milestones', 'milestones.id', 'milestone_releases.milestone_id')
    .selectAll('milestones')
    .select('milestone_releases.release_id')
    .where('milestone_releases.release_id', 'in', releaseIds)
    .execute();
  if (rows.length === 0) return new Map();
  const counts = await db
    .selectFrom('issues')
    .select((eb) => ['milestone_id', eb.fn.countAll<number>().as('total'), eb.fn.sum<number>(eb.case().when('state', '=', 'closed').then(1).else(0).end()).as('closed')])
    .where('milestone_id', 'in', [...new Set(rows.map((r) => r.id))])
    .groupBy('milestone_id')
    .execute();
  const stats = new Map(counts.map((c) => [Number(c.milestone_id), { totalIssues: Number(c.total), closedIssues: Number(c.closed) }]));
  const withStats = rows.map(({ release_id, ...m }) => ({ release_id, milestone: { ...m, ...(stats.get(m.id) ?? { totalIssues: 0, closedIssues: 0 }) } }));
  const grouped = new Map<number, MilestoneWithStats[]>();
  for (const [releaseId, list] of groupBy(withStats, (r) => Number(r.release_id))) grouped.set(releaseId, list.map((r) => r.milestone).sort(byDatesAndTitle));
  return grouped;
}

/** The commits the releases name, from the repository (null dir: none). */
async function commitsOf(dir: string | null, releases: readonly ReleaseRow[]): Promise<Map<string, Commit>> {
  const shas = [...new Set(releases.map((r) => r.sha).filter((sha): sha is string => sha !== null))];
  if (dir === null) return new Map();
  const found = await Promise.all(shas.map(async (sha) => [sha, await getCommit(dir, sha)] as const));
  return new Map(found.filter((entry): entry is readonly [string, Commit] => entry[1] !== null));
}

export async function releaseParts(db: Kysely<DB>, dir: string | null, releases: readonly ReleaseRow[]): Promise<ReleaseParts> {
  const ids = releases.map((r) => r.id);
  const authorIds = [...new Set(releases.map((r) => r.author_id).filter((id): id is number => id !== null))];
  if (ids.length === 0) return { authors: new Map(), links: new Map(), milestones: new Map(), evidences: new Map(), commits: new Map() };
  const [authors, links, milestones, evidences, commits] = await Promise.all([
    authorIds.length === 0 ? [] : db.selectFrom('users').selectAll().where('id', 'in', authorIds).execute(),
    db.selectFrom('release_links').selectAll().where('release_id', 'in', ids).orderBy('created_at', 'desc').orderBy('id', 'desc').execute(),
    milestonesOf(db, ids),
    db.selectFrom('release_evidences').select(['id', 'release_id', 'summary_sha', 'created_at']).where('release_id', 'in', ids).orderBy('created_at').orderBy('id').execute(),
    commitsOf(dir, releases),
  ]);
  return {
    authors: new Map(authors.map((u) => [u.id, u])),
    links: groupBy(links, (l) => Number(l.release_id)),
    milestones,
    evidences: groupBy(evidences, (e) => Number(e.release_id)),
    commits,
  };
}
