// Prepares a database for the benchmark: migrations and root through the server's own start-up
// path, then, in batched multi-row inserts: 10,000 users (one password hash shared, since scrypt
// is slow on purpose) with their personal namespaces, 1,000 groups in three levels, 10,000
// projects of mixed visibility, group and project memberships, a regular user who is a member of
// exactly 50 groups (with a token), and the project authorizations of everyone affected,
// computed by the server's own refreshAuthorizations.
import { randomBytes } from 'node:crypto';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { type SecretBox, secretBox } from '../src/core/secret-box.ts';
import { createDeps, openConfiguredDatabase, prepare } from '../src/bootstrap.ts';
import { systemContext } from '../src/core/context.ts';
import { refreshAuthorizations } from '../src/core/access/authorizations.ts';
import { ACCESS, VISIBILITY } from '../src/core/access/levels.ts';
import { digest, hashPassword } from '../src/core/auth/secrets.ts';
import type { Database } from '../src/db/database.ts';
import type { DB, NewUser } from '../src/db/schema.ts';
import { issueToken } from '../src/modules/access-tokens/access-tokens.service.ts';
import { NEW_USER_DEFAULTS } from '../src/modules/users/users.service.ts';

export interface SeedSizes {
  users: number;
  topGroups: number;
  /** Subgroups under each top-level group: the first few one level down, the rest under the first subgroup. */
  subgroupsPerTop: number;
  projects: number;
  /** Users (among the seeded ones) with group memberships. */
  groupMembers: number;
  projectMemberships: number;
  /** Direct group memberships of the dedicated member. */
  memberGroups: number;
}

export const SIZES: SeedSizes = {
  users: 10_000,
  topGroups: 100,
  subgroupsPerTop: 9,
  projects: 10_000,
  groupMembers: 5_000,
  projectMemberships: 2_000,
  memberGroups: 50,
};

export interface Seeded {
  /** Highest user id; ids 1..maxUserId all exist. */
  maxUserId: number;
  /** The dedicated regular user: member of SIZES.memberGroups groups. */
  memberId: number;
  userToken: string;
  seedMs: number;
  /** A sample of project ids the member may read, spread over the whole range. */
  memberVisibleProjectIds: number[];
  counts: SeedCounts;
}

export interface SeedCounts {
  users: number;
  personalNamespaces: number;
  groups: number;
  projects: number;
  projectsByVisibility: Record<'private' | 'internal' | 'public', number>;
  groupMemberships: number;
  projectMemberships: number;
  projectAuthorizations: number;
  /** Projects the member is authorized on, and all those the member may see. */
  memberAuthorized: number;
  memberVisible: number;
  memberGroups: number;
}

const BATCH = 500;
const DAY = 86_400_000;
const BASE = Date.parse('2021-01-01T00:00:00.000Z');
/** Groups one level below each top-level group; the remaining subgroups sit under the first of them. */
const SECOND_LEVEL = 6;
const SUBGROUP_WORDS = ['backend', 'frontend', 'infra', 'docs', 'mobile', 'data', 'api', 'web', 'tools', 'ops', 'qa', 'design'];
export const NAMESPACE_SEARCH_TERMS = SUBGROUP_WORDS.slice(0, 9);

/** A small deterministic generator, so that every run seeds the same data. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

function newUser(username: string, name: string, passwordHash: string, at: string): NewUser {
  return {
    ...NEW_USER_DEFAULTS,
    username,
    name,
    email: `${username}@bench.example.com`,
    encrypted_password: passwordHash,
    user_type: 'human',
    confirmed_at: at,
    created_at: at,
    updated_at: at,
  };
}

async function insertInBatches<T extends keyof DB & string>(db: Kysely<DB>, table: T, rows: readonly object[]): Promise<void> {
  for (let from = 0; from < rows.length; from += BATCH) {
    await db
      .insertInto(table)
      .values(rows.slice(from, from + BATCH) as never)
      .execute();
  }
}

/** Personal namespaces, as createPersonalNamespace writes them, for every user without one. */
async function insertPersonalNamespaces(db: Kysely<DB>): Promise<void> {
  await sql`insert into namespaces (type, name, path, owner_id, traversal_path, full_path, full_name, visibility_level, created_at, updated_at)
    select 'User', u.name, u.username, u.id, '', u.username, u.name, ${VISIBILITY.public}, u.created_at, u.created_at from users u
     where not exists (select 1 from namespaces n where n.type = 'User' and n.owner_id = u.id)`.execute(db);
  await sql`update namespaces set traversal_path = '/' || id || '/' where type = 'User' and traversal_path = ''`.execute(db);
}

interface Group {
  id: number;
  fullPath: string;
  fullName: string;
  /** Ids from the top, this group last. */
  ancestors: number[];
}

/** One level of groups under `parents` (null: top level); traversal paths follow from the parents'. */
async function insertGroups(db: Kysely<DB>, specs: Array<{ parent: Group | null; path: string; name: string; at: string }>): Promise<Group[]> {
  const byFullPath = new Map<string, Group>();
  for (let from = 0; from < specs.length; from += BATCH) {
    const batch = specs.slice(from, from + BATCH);
    const inserted = await db
      .insertInto('namespaces')
      .values(
        batch.map((s) => ({
          type: 'Group',
          name: s.name,
          path: s.path,
          owner_id: null,
          parent_id: s.parent?.id ?? null,
          traversal_path: '',
          full_path: s.parent ? `${s.parent.fullPath}/${s.path}` : s.path,
          full_name: s.parent ? `${s.parent.fullName} / ${s.name}` : s.name,
          description: '',
          visibility_level: VISIBILITY.public,
          request_access_enabled: true,
          created_at: s.at,
          updated_at: s.at,
        })),
      )
      .returning(['id', 'full_path', 'full_name', 'parent_id'])
      .execute();
    // Multi-row RETURNING promises no order: match rows by their unique full path.
    const parents = new Map(batch.filter((s) => s.parent).map((s) => [s.parent!.id, s.parent!]));
    for (const r of inserted) {
      const parent = r.parent_id === null ? null : parents.get(r.parent_id)!;
      byFullPath.set(r.full_path, { id: r.id, fullPath: r.full_path, fullName: r.full_name, ancestors: [...(parent?.ancestors ?? []), r.id] });
    }
  }
  const groups = specs.map((s) => byFullPath.get(s.parent ? `${s.parent.fullPath}/${s.path}` : s.path)!);
  for (let from = 0; from < groups.length; from += BATCH) {
    const batch = groups.slice(from, from + BATCH);
    await db
      .updateTable('namespaces')
      .set({ traversal_path: sql`case id ${sql.join(batch.map((g) => sql`when ${g.id} then ${`/${g.ancestors.join('/')}/`}`), sql` `)} end` })
      .where('id', 'in', batch.map((g) => g.id))
      .execute();
  }
  return groups;
}

/** 60 % private, 20 % internal, 20 % public. */
function pickVisibility(rand: () => number): number {
  const r = rand();
  return r < 0.6 ? VISIBILITY.private : r < 0.8 ? VISIBILITY.internal : VISIBILITY.public;
}

interface ProjectNamespace {
  id: number;
  fullPath: string;
  fullName: string;
  /** The creator: the owner of a personal namespace, any user for a group. */
  creatorId: number;
}

/** `count` projects spread round-robin over the namespaces, created over the last few years. */
async function insertProjects(db: Kysely<DB>, box: SecretBox, namespaces: readonly ProjectNamespace[], count: number, prefix: string, rand: () => number): Promise<void> {
  const span = 4 * 365 * DAY;
  const rows = [];
  for (let i = 0; i < count; i++) {
    const ns = namespaces[i % namespaces.length];
    const path = `${prefix}-${i}`;
    const name = `${prefix === 'app' ? 'App' : 'Tool'} ${i}`;
    const created = BASE + Math.floor(rand() * span);
    const updated = created + Math.floor(rand() * 30 * DAY);
    const token = randomBytes(10).toString('hex');
    const visibility = pickVisibility(rand);
    rows.push({
      namespace_id: ns.id,
      name,
      path,
      full_path: `${ns.fullPath}/${path}`,
      name_with_namespace: `${ns.fullName} / ${name}`,
      description: `Benchmark project ${i}`,
      visibility_level: visibility,
      creator_id: ns.creatorId,
      default_branch: 'main',
      archived: false,
      repository_storage: 'default',
      runners_token_encrypted: box.seal(token),
      runners_token_digest: digest(token),
      // As a project created through the API has: its settings may then be cached.
      settings_revision: randomBytes(8).toString('hex'),
      import_status: 'none',
      star_count: 0,
      created_at: iso(created),
      updated_at: iso(updated),
      last_activity_at: iso(updated),
    });
  }
  await insertInBatches(db, 'projects', rows);
  // Their settings rows, with the defaults (pages open on public projects, as for a new project).
  const missing = (table: string) => sql`not exists (select 1 from ${sql.table(table)} s where s.project_id = projects.id)`;
  await sql`insert into project_features (project_id, pages_access_level)
            select id, case when visibility_level >= 20 then 20 else 10 end from projects where ${missing('project_features')}`.execute(db);
  for (const table of ['project_ci_cd_settings', 'project_settings']) {
    await sql`insert into ${sql.table(table)} (project_id) select id from projects where ${missing(table)}`.execute(db);
  }
}

/** Distinct picks from 0..n-1. */
function pickDistinct(rand: () => number, n: number, k: number): number[] {
  const picked = new Set<number>();
  while (picked.size < Math.min(k, n)) picked.add(Math.floor(rand() * n));
  return [...picked];
}

const GROUP_LEVELS = [ACCESS.GUEST, ACCESS.REPORTER, ACCESS.DEVELOPER, ACCESS.DEVELOPER, ACCESS.MAINTAINER, ACCESS.OWNER];
const PROJECT_LEVELS = [ACCESS.GUEST, ACCESS.REPORTER, ACCESS.DEVELOPER, ACCESS.MAINTAINER];

/** refreshAuthorizations over many users, a chunk at a time so that each statement stays small. */
async function refreshInChunks(db: Kysely<DB>, userIds: readonly number[], now: Date): Promise<void> {
  const ids = [...new Set(userIds)].sort((a, b) => a - b);
  for (let from = 0; from < ids.length; from += BATCH) await refreshAuthorizations(db, ids.slice(from, from + BATCH), now);
}

async function countOf(db: Kysely<DB>, query: RawBuilder<unknown>): Promise<number> {
  return Number(((await query.execute(db)).rows[0] as { n: number | string }).n);
}

export async function seedCounts(db: Kysely<DB>, memberId: number): Promise<SeedCounts> {
  const visibleToMember = sql`(p.visibility_level in (${VISIBILITY.internal}, ${VISIBILITY.public}) or exists (select 1 from project_authorizations pa where pa.user_id = ${memberId} and pa.project_id = p.id))`;
  const byVisibility = await sql<{ v: number; n: number }>`select visibility_level as v, count(*) as n from projects group by visibility_level`.execute(db);
  const visibility = (level: number) => Number(byVisibility.rows.find((r) => Number(r.v) === level)?.n ?? 0);
  return {
    users: await countOf(db, sql`select count(*) as n from users`),
    personalNamespaces: await countOf(db, sql`select count(*) as n from namespaces where type = 'User'`),
    groups: await countOf(db, sql`select count(*) as n from namespaces where type = 'Group'`),
    projects: await countOf(db, sql`select count(*) as n from projects`),
    projectsByVisibility: { private: visibility(VISIBILITY.private), internal: visibility(VISIBILITY.internal), public: visibility(VISIBILITY.public) },
    groupMemberships: await countOf(db, sql`select count(*) as n from members where source_type = 'Namespace'`),
    projectMemberships: await countOf(db, sql`select count(*) as n from members where source_type = 'Project'`),
    projectAuthorizations: await countOf(db, sql`select count(*) as n from project_authorizations`),
    memberAuthorized: await countOf(db, sql`select count(*) as n from project_authorizations where user_id = ${memberId}`),
    memberVisible: await countOf(db, sql`select count(*) as n from projects p where ${visibleToMember}`),
    memberGroups: await countOf(db, sql`select count(*) as n from members where source_type = 'Namespace' and user_id = ${memberId}`),
  };
}

/** Up to `limit` ids the member may read, evenly spread over the id range. */
async function memberVisibleSample(db: Kysely<DB>, memberId: number, limit: number): Promise<number[]> {
  const rows = await sql<{ id: number }>`select p.id as id from projects p
     where p.visibility_level in (${VISIBILITY.internal}, ${VISIBILITY.public})
        or exists (select 1 from project_authorizations pa where pa.user_id = ${memberId} and pa.project_id = p.id)
     order by p.id`.execute(db);
  const ids = rows.rows.map((r) => Number(r.id));
  const step = Math.max(1, ids.length / limit);
  const sample: number[] = [];
  for (let i = 0; i < ids.length && sample.length < limit; i += step) sample.push(ids[Math.floor(i)]);
  return sample;
}

/** PostgreSQL: the statistics and visibility map that autovacuum would produce shortly after a bulk load anyway. */
async function analyze(database: Database): Promise<void> {
  if (database.dialect === 'postgres') await sql`vacuum analyze`.execute(database.db);
}

/** env is the server's environment (QUARRY_DATA_DIR, DATABASE_URL, QUARRY_ROOT_TOKEN…). */
export async function seed(env: Record<string, string | undefined>, sizes: SeedSizes = SIZES): Promise<Seeded> {
  const started = performance.now();
  const config = loadConfig(env);
  const database = openConfiguredDatabase(config);
  const rand = random(20_240_101);
  try {
    const deps = createDeps(config, database);
    await prepare(deps);
    const { db } = database;
    const now = new Date();

    // Users, and the member last so that its id is the highest.
    const passwordHash = await hashPassword('bench-password-1', config.passwordHashCost);
    const users: NewUser[] = [];
    for (let i = 0; i < sizes.users; i++) users.push(newUser(`user${i}`, `User ${i}`, passwordHash, iso(BASE + i * 1000)));
    await insertInBatches(db, 'users', users);
    const member = await db
      .insertInto('users')
      .values(newUser('bench-member', 'Bench Member', passwordHash, now.toISOString()))
      .returning('id')
      .executeTakeFirstOrThrow();
    await insertPersonalNamespaces(db);
    const { token } = await issueToken(systemContext(deps), { userId: member.id, name: 'bench', scopes: ['api'] }, { admin: false });
    const seededUserIds = (await db.selectFrom('users').select('id').where('username', 'like', 'user%').orderBy('id').execute()).map((r) => r.id);

    // Groups: top level, then one and two levels down.
    const groupAt = () => iso(BASE - Math.floor(rand() * 365 * DAY));
    const tops = await insertGroups(
      db,
      Array.from({ length: sizes.topGroups }, (_, t) => {
        const n = String(t).padStart(3, '0');
        return { parent: null, path: `team-${n}`, name: `Team ${n}`, at: groupAt() };
      }),
    );
    const word = (k: number) => SUBGROUP_WORDS[k % SUBGROUP_WORDS.length];
    const title = (w: string) => w[0].toUpperCase() + w.slice(1);
    const secondCount = Math.min(SECOND_LEVEL, sizes.subgroupsPerTop);
    const second = await insertGroups(
      db,
      tops.flatMap((top) => Array.from({ length: secondCount }, (_, k) => ({ parent: top, path: word(k), name: title(word(k)), at: groupAt() }))),
    );
    const third = await insertGroups(
      db,
      tops.flatMap((_, t) =>
        Array.from({ length: sizes.subgroupsPerTop - secondCount }, (_, k) => ({
          parent: second[t * secondCount],
          path: word(secondCount + k),
          name: title(word(secondCount + k)),
          at: groupAt(),
        })),
      ),
    );
    const groups = [...tops, ...second, ...third];
    const someUser = () => seededUserIds[Math.floor(rand() * seededUserIds.length)];

    await insertProjects(
      db,
      secretBox(config.dataDir),
      groups.map((g) => ({ id: g.id, fullPath: g.fullPath, fullName: g.fullName, creatorId: someUser() })),
      sizes.projects,
      'app',
      rand,
    );

    // Memberships: every other seeded user in one to four groups; some project memberships among them.
    const memberAt = now.toISOString();
    const membership = (sourceType: 'Namespace' | 'Project', sourceId: number, userId: number, level: number) => ({
      source_type: sourceType,
      source_id: sourceId,
      user_id: userId,
      access_level: level,
      expires_at: null,
      created_by_id: 1,
      created_at: memberAt,
      updated_at: memberAt,
    });
    const groupMemberIds = seededUserIds.filter((_, i) => i % 2 === 0).slice(0, sizes.groupMembers);
    const memberships = [];
    for (const userId of groupMemberIds) {
      for (const g of pickDistinct(rand, groups.length, 1 + Math.floor(rand() * 4))) {
        memberships.push(membership('Namespace', groups[g].id, userId, GROUP_LEVELS[Math.floor(rand() * GROUP_LEVELS.length)]));
      }
    }
    // The member: a few whole hierarchies (from their top-level group) and single subgroups elsewhere.
    const memberTops = Math.min(5, sizes.memberGroups);
    const topPicks = pickDistinct(rand, tops.length, memberTops);
    const inPickedTree = new Set(topPicks.flatMap((t) => groups.filter((g) => g.ancestors[0] === tops[t].id).map((g) => g.id)));
    const elsewhere = [...second, ...third].filter((g) => !inPickedTree.has(g.id));
    const memberGroupIds = [
      ...topPicks.map((t) => tops[t].id),
      ...pickDistinct(rand, elsewhere.length, sizes.memberGroups - memberTops).map((i) => elsewhere[i].id),
    ];
    for (const groupId of memberGroupIds) memberships.push(membership('Namespace', groupId, member.id, ACCESS.DEVELOPER));
    await insertInBatches(db, 'members', memberships);

    const projectIds = (await db.selectFrom('projects').select('id').orderBy('id').execute()).map((r) => r.id);
    const projectMemberships = new Map<string, ReturnType<typeof membership>>();
    while (projectMemberships.size < Math.min(sizes.projectMemberships, projectIds.length * groupMemberIds.length)) {
      const userId = groupMemberIds[Math.floor(rand() * groupMemberIds.length)];
      const projectId = projectIds[Math.floor(rand() * projectIds.length)];
      projectMemberships.set(`${userId}:${projectId}`, membership('Project', projectId, userId, PROJECT_LEVELS[Math.floor(rand() * PROJECT_LEVELS.length)]));
    }
    await insertInBatches(db, 'members', [...projectMemberships.values()]);

    await refreshInChunks(db, [...groupMemberIds, member.id], now);
    await analyze(database);

    return {
      maxUserId: member.id,
      memberId: member.id,
      userToken: token,
      seedMs: performance.now() - started,
      memberVisibleProjectIds: await memberVisibleSample(db, member.id, 2_000),
      counts: await seedCounts(db, member.id),
    };
  } finally {
    await database.close();
  }
}

/**
 * More projects, in the personal namespaces of the seeded users who have no membership (round-
 * robin), with their owners' authorizations: grows the total without touching any membership.
 * Owners without memberships keep refreshAuthorizations cheap here.
 */
export async function addPersonalProjects(env: Record<string, string | undefined>, count: number, memberId: number): Promise<SeedCounts> {
  const config = loadConfig(env);
  const database = openConfiguredDatabase(config);
  try {
    const { db } = database;
    const owners = await db
      .selectFrom('namespaces as n')
      .innerJoin('users as u', 'u.id', 'n.owner_id')
      .select(['n.id', 'n.full_path', 'n.full_name', 'n.owner_id'])
      .where('n.type', '=', 'User')
      .where('u.username', 'like', 'user%')
      .where((eb) => eb.not(eb.exists(eb.selectFrom('members as m').select('m.id').whereRef('m.user_id', '=', 'n.owner_id'))))
      .orderBy('n.id')
      .execute();
    await insertProjects(
      db,
      secretBox(config.dataDir),
      owners.map((n) => ({ id: n.id, fullPath: n.full_path, fullName: n.full_name, creatorId: n.owner_id as number })),
      count,
      'tool',
      random(20_250_101),
    );
    await refreshInChunks(
      db,
      owners.map((n) => n.owner_id as number),
      new Date(),
    );
    await analyze(database);
    return await seedCounts(db, memberId);
  } finally {
    await database.close();
  }
}
