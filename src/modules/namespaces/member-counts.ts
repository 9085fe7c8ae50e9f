// The member counts a namespace entity shows: billable members (every reader) and members with
// descendants (those who administer the group). Counting walks every membership of a group's
// subtree and its projects, so counts are kept in namespace_member_counts once computed; they
// hold while membership_generation and the day are those they were counted at (migration 0003:
// triggers bump the generation on every change that can alter a count, memberships expire by day).
import { type Kysely, type SqlBool, sql } from 'kysely';
import { inSubtree } from '../../core/access/subtree.ts';
import type { DB, NamespaceRow } from '../../db/schema.ts';
import { unexpired } from './namespaces.finder.ts';

/** Bots that access tokens create are no people to bill. */
const BOT_TYPES = ['project_bot', 'group_bot'];

export interface NamespaceCounts {
  /** Distinct active members of the group and its subgroups. */
  membersWithDescendants: ReadonlyMap<number, number>;
  /** Distinct active people who are members of the group, its subgroups or their projects. */
  billable: ReadonlyMap<number, number>;
}

const today = (now: Date) => now.toISOString().slice(0, 10);

/**
 * The counts of the groups among `rows`: those kept and still valid, the others counted (two
 * queries for all of them) and kept. The generation is read before counting, so counts that a
 * concurrent change may have overtaken are kept under the older generation, and never served.
 */
export async function loadNamespaceCounts(db: Kysely<DB>, rows: readonly NamespaceRow[], now: Date): Promise<NamespaceCounts> {
  const counts = { membersWithDescendants: new Map<number, number>(), billable: new Map<number, number>() };
  const ids = rows.filter((r) => r.type === 'Group').map((g) => g.id);
  if (ids.length === 0) return counts;
  const day = today(now);
  const [{ generation }, kept] = await Promise.all([
    db.selectFrom('membership_generation').select('generation').where('id', '=', 1).executeTakeFirstOrThrow(),
    db
      .selectFrom('namespace_member_counts as c')
      .select(['c.namespace_id', 'c.billable', 'c.with_descendants'])
      .where('c.namespace_id', 'in', ids)
      .where('c.counted_on', '=', day)
      .where('c.generation', '=', (eb) => eb.selectFrom('membership_generation').select('generation').where('id', '=', 1))
      .execute(),
  ]);
  for (const row of kept) {
    counts.billable.set(Number(row.namespace_id), row.billable);
    counts.membersWithDescendants.set(Number(row.namespace_id), row.with_descendants);
  }
  const missing = ids.filter((id) => !counts.billable.has(id));
  if (missing.length === 0) return counts;
  const [members, billable] = await Promise.all([membersWithDescendants(db, missing, now), billableMembers(db, missing, now)]);
  // In id order, so that two requests filling the same rows take their locks in the same order.
  const fresh = missing.sort((a, b) => a - b).map((id) => ({
    namespace_id: id,
    generation: Number(generation),
    counted_on: day,
    billable: billable.get(id) ?? 0,
    with_descendants: members.get(id) ?? 0,
  }));
  for (const row of fresh) {
    counts.billable.set(row.namespace_id, row.billable);
    counts.membersWithDescendants.set(row.namespace_id, row.with_descendants);
  }
  await db
    .insertInto('namespace_member_counts')
    .values(fresh)
    .onConflict((oc) =>
      oc.column('namespace_id').doUpdateSet((eb) => ({
        generation: eb.ref('excluded.generation'),
        counted_on: eb.ref('excluded.counted_on'),
        billable: eb.ref('excluded.billable'),
        with_descendants: eb.ref('excluded.with_descendants'),
      })),
    )
    .execute();
  return counts;
}

// The joins below are CROSS JOINs with their conditions in WHERE: SQLite keeps that order (the
// page's groups, each one's subtree through the traversal_path index, then its memberships), where
// without statistics it would start from every membership; PostgreSQL plans them as inner joins.
const active = sql<SqlBool>`u.state = 'active' and u.user_type not in (${sql.join(BOT_TYPES)})`;
/** `d` runs over the group `g` and every group below it. */
const subtreeOfG = inSubtree('d.traversal_path', sql.ref('g.traversal_path'));
const byGroup = (rows: readonly { id: number; n: number }[]) => new Map(rows.map((r) => [Number(r.id), Number(r.n)]));

async function membersWithDescendants(db: Kysely<DB>, groupIds: readonly number[], now: Date): Promise<Map<number, number>> {
  const { rows } = await sql<{ id: number; n: number }>`
    select g.id as id, count(distinct m.user_id) as n
      from namespaces g cross join namespaces d cross join members m cross join users u
     where g.id in (${sql.join(groupIds)}) and ${subtreeOfG}
       and m.source_type = 'Namespace' and m.source_id = d.id and ${unexpired(now)}
       and u.id = m.user_id and ${active}
     group by g.id`.execute(db);
  return byGroup(rows);
}

async function billableMembers(db: Kysely<DB>, groupIds: readonly number[], now: Date): Promise<Map<number, number>> {
  const ids = sql.join(groupIds);
  const { rows } = await sql<{ id: number; n: number }>`
    select x.id as id, count(distinct x.user_id) as n
      from (
        select g.id as id, m.user_id as user_id
          from namespaces g cross join namespaces d cross join members m cross join users u
         where g.id in (${ids}) and ${subtreeOfG}
           and m.source_type = 'Namespace' and m.source_id = d.id and ${unexpired(now)}
           and u.id = m.user_id and ${active}
        union all
        select g.id, m.user_id
          from namespaces g cross join namespaces d cross join projects p cross join members m cross join users u
         where g.id in (${ids}) and ${subtreeOfG} and p.namespace_id = d.id
           and m.source_type = 'Project' and m.source_id = p.id and ${unexpired(now)}
           and u.id = m.user_id and ${active}
      ) x
     group by x.id`.execute(db);
  return byGroup(rows);
}

