// The query plans of GET /projects as the member of 50 groups: the SQL the projects finder builds
// for that request (compiled by Kysely, ordered and cut as the route does), explained by the
// database, and each query timed in-process.
import { Value } from '@sinclair/typebox/value';
import { type Compilable, type Kysely, CompiledQuery } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openConfiguredDatabase } from '../src/bootstrap.ts';
import type { Actor } from '../src/core/auth/actor.ts';
import { COUNT_LIMIT, countStatement } from '../src/core/pagination.ts';
import type { DB } from '../src/db/schema.ts';
import { countPartsOf, filterProjects, visibleProjects } from '../src/modules/projects/projects.finder.ts';
import { ListProjectsQuery } from '../src/modules/projects/projects.schemas.ts';

export interface ExplainedQuery {
  title: string;
  sql: string;
  parameters: unknown[];
  /** The plan, one line per node, indented by depth. */
  plan: string[];
  /** Time of one execution, in-process: the median over batches, so that a busy moment does not count. */
  meanMs: number;
  rows: number;
}

const BATCHES = 15;
const PER_BATCH = 20;

async function timed(db: Kysely<DB>, query: CompiledQuery): Promise<{ meanMs: number; rows: number }> {
  let rows = 0;
  for (let i = 0; i < PER_BATCH; i++) rows = (await db.executeQuery(query)).rows.length;
  const batches: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const started = performance.now();
    for (let i = 0; i < PER_BATCH; i++) await db.executeQuery(query);
    batches.push((performance.now() - started) / PER_BATCH);
  }
  return { meanMs: batches.sort((x, y) => x - y)[Math.floor(BATCHES / 2)], rows };
}

/** SQLite's EXPLAIN QUERY PLAN rows (id, parent, detail) as an indented tree. */
function sqliteTree(rows: Array<{ id: number; parent: number; detail: string }>): string[] {
  const depth = new Map<number, number>([[0, -1]]);
  return rows.map((r) => {
    const d = (depth.get(r.parent) ?? -1) + 1;
    depth.set(r.id, d);
    return `${'  '.repeat(d)}${r.detail}`;
  });
}

async function explain(db: Kysely<DB>, dialect: 'sqlite' | 'postgres', title: string, query: Compilable): Promise<ExplainedQuery> {
  const compiled = query.compile();
  const plan =
    dialect === 'sqlite'
      ? sqliteTree((await db.executeQuery(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]))).rows as never)
      : ((await db.executeQuery(CompiledQuery.raw(`explain analyze ${compiled.sql}`, [...compiled.parameters]))).rows as Array<{ 'QUERY PLAN': string }>).map(
          (r) => r['QUERY PLAN'],
        );
  return { title, sql: compiled.sql, parameters: [...compiled.parameters], plan, ...(await timed(db, compiled)) };
}

/**
 * The queries of GET /projects?per_page=20 (the first page, default order created_at desc, one
 * row beyond the page; the count as core/pagination runs it per dialect) and of the keyset page
 * (order_by=id&sort=desc), as `memberId` sees them.
 */
export async function explainMemberList(env: Record<string, string | undefined>, memberId: number): Promise<ExplainedQuery[]> {
  const database = openConfiguredDatabase(loadConfig(env));
  try {
    const { db, dialect } = database;
    const user = await db.selectFrom('users').selectAll().where('id', '=', memberId).executeTakeFirstOrThrow();
    const actor: Actor = { user, isAdmin: false, via: 'personal_access_token', scopes: ['api'], tokenId: null, impersonation: false, sudoBy: null, jobId: null };
    const q = Value.Default(ListProjectsQuery, { per_page: 20 }) as ListProjectsQuery;
    const visible = visibleProjects(db, actor, q);
    const list = filterProjects(visible, actor, q, { admin: false });
    const ordered = list.orderBy('projects.created_at', 'desc').orderBy('projects.id', 'desc');
    const page = ordered.limit(21).offset(0);
    // The count as the route runs it: in parts when nothing but visibility narrows the list.
    const parts = countPartsOf(db, actor, q, visible, ordered);
    const count = countStatement(db, dialect, parts ?? [ordered]);
    const keyset = list.orderBy('projects.id', 'desc').limit(20);
    const counted = `${parts ? `${parts.length} parts` : 'the query'}, ${dialect === 'sqlite' ? 'counted directly on SQLite' : `each capped at ${COUNT_LIMIT + 1} rows`}`;
    return [
      await explain(db, dialect, 'first page (order by created_at desc, id desc; limit 21)', page),
      await explain(db, dialect, `total (X-Total: ${counted})`, count),
      await explain(db, dialect, 'keyset first page (order by id desc; limit 20)', keyset),
    ];
  } finally {
    await database.close();
  }
}
