// The records of an export tree restored into a project, relation by relation in the platform's
// order, each record on its own: one that does not hold (a blank title, a bad colour, an iid
// taken twice) is left out and reported as a failed relation while the rest goes in. Records are
// checked before they are written, so that a failure never breaks the transaction the whole
// restore runs in: anything unexpected fails the import as a whole and leaves nothing behind.
//
// Users (the platform's MembersMapper): when an administrator imports, the archive's members are
// mapped to the users of this instance with the same primary email, and join the project with
// their role (at most Maintainer); every user reference of a mapped user points to that user, and
// every other one to the importer. A note whose author was not mapped says who wrote it and when.
// When anyone else imports, nothing is mapped.
import path from 'node:path';
import type { Kysely } from 'kysely';
import { ACCESS } from '../../core/access/levels.ts';
import type { DB } from '../../db/schema.ts';
import { isObjectId } from '../../git/args.ts';
import { DISCUSSION_ID, newDiscussionId } from '../../domain/discussion-ids.ts';
import { type InternalIdUsage, trackInternalId } from '../../domain/internal-ids.ts';
import type { BaseContext } from '../../core/context.ts';
import { badgeRow, restoreBoard } from './boards-badges.ts';
import { type JsonObject, readRelation } from './ndjson.ts';
import { COLOR, Invalid, type RelationFailure, invalidRecord, boolish, dateOrNull, int, list, object, required, str, text, time, timeOrNull } from './record-fields.ts';

export interface RestoreTarget {
  projectId: number;
  importerId: number;
  /** The importer is an administrator: members are mapped by email. */
  mapUsers: boolean;
  /** tree/project under the extracted archive. */
  relationsDir: string;
}

export interface RestoreResult {
  failures: RelationFailure[];
  /** Users who became members (their authorizations need refreshing). */
  memberIds: number[];
}

/** Restores every relation of the tree into the project; runs inside the caller's transaction. */
export async function restoreProjectTree(ctx: BaseContext, target: RestoreTarget): Promise<RestoreResult> {
  const db: Kysely<DB> = ctx.db;
  const { projectId, importerId } = target;
  const now = ctx.now().toISOString();
  const failures: RelationFailure[] = [];
  const file = (relation: string) => path.join(target.relationsDir, `${relation}.ndjson`);

  /** Runs one record; a record that does not hold is reported and skipped. */
  async function each(relation: string, work: (record: JsonObject) => Promise<void>): Promise<void> {
    for await (const [record, index] of readRelation(file(relation))) {
      try {
        await work(record);
      } catch (error) {
        if (!(error instanceof Invalid)) throw error;
        failures.push(invalidRecord(relation, index, error));
      }
    }
  }

  // ---- Users --------------------------------------------------------------------------------
  const exportedMembers: JsonObject[] = [];
  for await (const [record] of readRelation(file('project_members'))) exportedMembers.push(record);
  const userMap = new Map<number, number>();
  const memberRoles = new Map<number, number>();
  if (target.mapUsers) {
    const byEmail = new Map<string, { oldId: number; access: number }>();
    for (const member of exportedMembers) {
      const user = object(member.user);
      const oldId = int(user?.id ?? member.user_id);
      const email = str(user?.email) ?? str(user?.public_email);
      if (oldId === null || !email) continue;
      byEmail.set(email.toLowerCase(), { oldId, access: int(member.access_level) ?? ACCESS.GUEST });
    }
    const emails = [...byEmail.keys()];
    for (let i = 0; i < emails.length; i += 500) {
      const chunk = emails.slice(i, i + 500);
      const found = await db
        .selectFrom('users')
        .select(['id', 'email'])
        .where((eb) => eb(eb.fn('lower', ['email']), 'in', chunk))
        .where('state', '=', 'active')
        .execute();
      for (const user of found) {
        const entry = byEmail.get(user.email.toLowerCase());
        if (!entry) continue;
        userMap.set(entry.oldId, user.id);
        memberRoles.set(user.id, Math.min(Math.max(entry.access, ACCESS.GUEST), ACCESS.MAINTAINER));
      }
    }
  }
  const mapped = (v: unknown): number => userMap.get(int(v) ?? -1) ?? importerId;
  const mappedOrNull = (v: unknown): number | null => (int(v) === null ? null : mapped(v));
  /** What issues and merge requests share: the lock, who edited them last and when, their times. */
  const editFields = (record: JsonObject, createdAt: string) => ({
    discussion_locked: record.discussion_locked === null || record.discussion_locked === undefined ? null : boolish(record.discussion_locked),
    updated_by_id: mappedOrNull(record.updated_by_id),
    last_edited_at: timeOrNull(record.last_edited_at),
    last_edited_by_id: mappedOrNull(record.last_edited_by_id),
    created_at: createdAt,
    updated_at: time(record.updated_at, createdAt),
  });
  const isMapped = (v: unknown) => userMap.has(int(v) ?? -1);

  // ---- Labels and milestones, found again by title for the records that name them ---------------
  const labels = new Map<string, number>();
  const existingLabels = await db.selectFrom('labels').select(['id', 'title']).where('project_id', '=', projectId).execute();
  for (const l of existingLabels) labels.set(l.title, l.id);

  async function label(record: JsonObject): Promise<number> {
    const title = required(record.title, 'Title').trim();
    const known = labels.get(title);
    if (known !== undefined) return known;
    const color = str(record.color) ?? '#428BCA';
    if (!COLOR.test(color)) throw new Invalid('Color must be a valid color code');
    const inserted = await db
      .insertInto('labels')
      .values({ project_id: projectId, group_id: null, title, color, description: text(record.description, 'Description') || null, created_at: time(record.created_at, now), updated_at: time(record.updated_at, now) })
      .returning('id')
      .executeTakeFirstOrThrow();
    labels.set(title, inserted.id);
    return inserted.id;
  }

  /** The counters an archive's records take their iids from (alerts are not exported). */
  type ImportedUsage = Exclude<InternalIdUsage, 'alert_management_alerts'>;
  const iids: Record<ImportedUsage, Set<number>> = { issues: new Set(), merge_requests: new Set(), milestones: new Set() };
  let nextIid: Record<ImportedUsage, number> = { issues: 0, merge_requests: 0, milestones: 0 };
  function iidOf(usage: ImportedUsage, v: unknown): number {
    const iid = int(v);
    if (iid !== null && iid <= 0) throw new Invalid('Iid must be greater than 0');
    if (iid !== null && iids[usage].has(iid)) throw new Invalid('Iid has already been taken');
    const chosen = iid ?? Math.max(nextIid[usage], ...iids[usage]) + 1;
    iids[usage].add(chosen);
    nextIid = { ...nextIid, [usage]: Math.max(nextIid[usage], chosen) };
    return chosen;
  }

  const milestones = new Map<string, number>();
  async function milestone(record: JsonObject): Promise<number> {
    const title = required(record.title, 'Title');
    const known = milestones.get(title);
    if (known !== undefined) return known;
    let iid = int(record.iid);
    if (iid === null || iid <= 0 || iids.milestones.has(iid)) iid = null;
    const chosen = iidOf('milestones', iid);
    const state = record.state === 'closed' ? 'closed' : 'active';
    const inserted = await db
      .insertInto('milestones')
      .values({
        project_id: projectId,
        group_id: null,
        iid: chosen,
        title,
        description: text(record.description, 'Description'),
        state,
        due_date: dateOrNull(record.due_date),
        start_date: dateOrNull(record.start_date),
        created_at: time(record.created_at, now),
        updated_at: time(record.updated_at, now),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    milestones.set(title, inserted.id);
    return inserted.id;
  }

  await each('labels', async (record) => {
    const title = required(record.title, 'Title').trim();
    if (labels.has(title)) throw new Invalid('Title has already been taken');
    const id = await label(record);
    for (const p of list(record.priorities)) {
      const priority = int(p.priority);
      if (priority === null) continue;
      await db.insertInto('label_priorities').values({ project_id: projectId, label_id: id, priority, created_at: time(p.created_at, now), updated_at: time(p.updated_at, now) }).execute();
      break;
    }
  });

  await each('milestones', async (record) => {
    const title = required(record.title, 'Title');
    if (milestones.has(title)) throw new Invalid('Title has already been taken');
    const iid = int(record.iid);
    if (iid !== null && iids.milestones.has(iid)) throw new Invalid('Iid has already been taken');
    await milestone(record);
  });

  // ---- Notes, shared by issues and merge requests ---------------------------------------------
  async function notes(type: 'Issue' | 'MergeRequest', id: number, records: JsonObject[], relation: string): Promise<void> {
    const rows = [];
    for (const [index, note] of records.entries()) {
      try {
        let body = text(note.note, 'Note') ?? '';
        const system = boolish(note.system);
        if (!isMapped(note.author_id)) {
          const author = str(object(note.author)?.name) ?? 'Ghost User';
          const stamp = (str(note.updated_at) ?? str(note.created_at) ?? now).split('.')[0];
          body = `${body.trim() === '' ? '*Blank note*' : body}\n\n *By ${author} on ${stamp} (imported from GitLab)*`;
        }
        if (body.trim() === '') throw new Invalid("Note can't be blank");
        const noteType = str(note.type);
        rows.push({
          project_id: projectId,
          noteable_type: type,
          noteable_id: id,
          commit_id: str(note.commit_id) !== null && isObjectId(str(note.commit_id) as string) ? str(note.commit_id) : null,
          author_id: mapped(note.author_id),
          body,
          system,
          confidential: boolish(note.confidential),
          resolvable: boolish(note.resolvable),
          resolved_at: timeOrNull(note.resolved_at),
          resolved_by_id: mappedOrNull(note.resolved_by_id),
          // Diff notes need a position in a diff this instance keeps: they come back as discussion notes.
          type: noteType === 'DiscussionNote' || noteType === 'DiffNote' || noteType === 'LegacyDiffNote' ? 'DiscussionNote' : null,
          // A note without a discussion of its own stands alone.
          discussion_id: str(note.discussion_id) !== null && DISCUSSION_ID.test(str(note.discussion_id) as string) ? str(note.discussion_id) : newDiscussionId(),
          updated_by_id: mappedOrNull(note.updated_by_id),
          created_at: time(note.created_at, now),
          updated_at: time(note.updated_at, now),
        });
      } catch (error) {
        if (!(error instanceof Invalid)) throw error;
        failures.push(invalidRecord('notes', index, error, `${relation}.notes`));
      }
    }
    for (let i = 0; i < rows.length; i += 100) await db.insertInto('notes').values(rows.slice(i, i + 100)).execute();
  }

  async function labelLinks(type: 'Issue' | 'MergeRequest', id: number, records: JsonObject[]): Promise<void> {
    const ids = new Set<number>();
    for (const link of records) {
      const labelRecord = object(link.label);
      if (!labelRecord) continue;
      try {
        ids.add(await label(labelRecord));
      } catch (error) {
        if (!(error instanceof Invalid)) throw error;
      }
    }
    if (ids.size > 0) await db.insertInto('label_links').values([...ids].map((label_id) => ({ label_id, target_type: type, target_id: id, created_at: now, updated_at: now }))).execute();
  }

  async function milestoneOf(record: JsonObject): Promise<number | null> {
    const m = object(record.milestone);
    if (!m) return null;
    try {
      return await milestone(m);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      return null;
    }
  }

  const users = async (ids: readonly number[]) => {
    const unique = [...new Set(ids)];
    return unique.length === 0 ? [] : (await db.selectFrom('users').select('id').where('id', 'in', unique).execute()).map((u) => u.id);
  };

  // ---- Issues ---------------------------------------------------------------------------------
  await each('issues', async (record) => {
    const title = required(record.title, 'Title');
    const description = text(record.description, 'Description');
    const iid = iidOf('issues', record.iid);
    const state = record.state === 'closed' ? 'closed' : 'opened';
    const issueType = record.issue_type === 'incident' || record.issue_type === 'test_case' ? record.issue_type : 'issue';
    const createdAt = time(record.created_at, now);
    const inserted = await db
      .insertInto('issues')
      .values({
        project_id: projectId,
        iid,
        author_id: mapped(record.author_id),
        title,
        description,
        state,
        issue_type: issueType,
        confidential: boolish(record.confidential),
        due_date: dateOrNull(record.due_date),
        weight: int(record.weight),
        milestone_id: await milestoneOf(record),
        time_estimate: int(record.time_estimate) ?? 0,
        closed_at: state === 'closed' ? time(record.closed_at, createdAt) : null,
        closed_by_id: state === 'closed' ? mappedOrNull(record.closed_by_id) : null,
        ...editFields(record, createdAt),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await labelLinks('Issue', inserted.id, list(record.label_links));
    const assignees = await users(list(record.issue_assignees).map((a) => int(a.user_id)).filter((id): id is number => id !== null && isMapped(id)).map(mapped));
    if (assignees.length > 0) await db.insertInto('issue_assignees').values(assignees.map((user_id) => ({ issue_id: inserted.id, user_id }))).execute();
    await notes('Issue', inserted.id, list(record.notes), 'issues');
  });

  // ---- Releases --------------------------------------------------------------------------------
  const tags = new Set<string>();
  await each('releases', async (record) => {
    const tag = required(record.tag, 'Tag');
    if (tags.has(tag)) throw new Invalid('Tag has already been taken');
    tags.add(tag);
    const createdAt = time(record.created_at, now);
    const sha = str(record.sha);
    const inserted = await db
      .insertInto('releases')
      .values({
        project_id: projectId,
        tag,
        name: str(record.name),
        description: text(record.description, 'Description'),
        author_id: mapped(record.author_id),
        sha: sha !== null && isObjectId(sha) ? sha : null,
        released_at: time(record.released_at, createdAt),
        created_at: createdAt,
        updated_at: time(record.updated_at, createdAt),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const names = new Set<string>();
    const urls = new Set<string>();
    for (const link of list(record.links)) {
      const name = str(link.name);
      const url = str(link.url);
      if (!name || !url || names.has(name) || urls.has(url) || !/^(https?|ftp):\/\//.test(url)) continue;
      names.add(name);
      urls.add(url);
      const kind = ['other', 'runbook', 'package', 'image'].includes(str(link.link_type) ?? '') ? (link.link_type as string) : 'other';
      const filepath = str(link.filepath);
      await db
        .insertInto('release_links')
        .values({ release_id: inserted.id, name, url, filepath: filepath && filepath.startsWith('/') ? filepath : null, link_type: kind, created_at: time(link.created_at, createdAt), updated_at: time(link.updated_at, createdAt) })
        .execute();
    }
  });

  // ---- Members --------------------------------------------------------------------------------
  const memberIds: number[] = [];
  if (memberRoles.size > 0) {
    const present = new Set(
      (await db.selectFrom('members').select('user_id').where('source_type', '=', 'Project').where('source_id', '=', projectId).execute()).map((m) => Number(m.user_id)),
    );
    const rows = [...memberRoles].filter(([userId]) => !present.has(userId));
    if (rows.length > 0) {
      await db
        .insertInto('members')
        .values(rows.map(([user_id, access_level]) => ({ source_type: 'Project', source_id: projectId, user_id, access_level, expires_at: null, created_by_id: importerId, created_at: now, updated_at: now })))
        .execute();
      memberIds.push(...rows.map(([userId]) => userId));
    }
  }

  // ---- Merge requests -------------------------------------------------------------------------
  await each('merge_requests', async (record) => {
    const title = required(record.title, 'Title');
    const source = required(record.source_branch, 'Source branch');
    const targetBranch = required(record.target_branch, 'Target branch');
    const iid = iidOf('merge_requests', record.iid);
    const state = ['opened', 'closed', 'merged', 'locked'].includes(str(record.state) ?? '') ? (record.state as string) : 'opened';
    const createdAt = time(record.created_at, now);
    const metrics = object(record.metrics) ?? {};
    const diff = object(record.merge_request_diff) ?? {};
    const sha = (v: unknown) => (str(v) !== null && isObjectId(str(v) as string) ? str(v) : null);
    const head = sha(diff.head_commit_sha) ?? sha(record.diff_head_sha) ?? sha(record.source_branch_sha);
    const params = object(record.merge_params);
    const inserted = await db
      .insertInto('merge_requests')
      .values({
        project_id: projectId,
        iid,
        author_id: mapped(record.author_id),
        title,
        description: text(record.description, 'Description'),
        state,
        source_branch: source,
        target_branch: targetBranch,
        milestone_id: await milestoneOf(record),
        draft: /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|\[wip\]|wip:|wip\s)/i.test(title),
        merge_status: 'unchecked',
        merge_error: null,
        merge_when_pipeline_succeeds: false,
        merge_user_id: null,
        merge_params: params ? JSON.stringify(params) : null,
        merged_by_id: state === 'merged' ? mappedOrNull(metrics.merged_by_id) : null,
        merged_at: state === 'merged' ? timeOrNull(metrics.merged_at) : null,
        closed_by_id: state === 'closed' ? mappedOrNull(metrics.latest_closed_by_id) : null,
        closed_at: state === 'closed' ? timeOrNull(metrics.latest_closed_at) : null,
        squash: boolish(record.squash),
        force_remove_source_branch: record.force_remove_source_branch === null || record.force_remove_source_branch === undefined ? null : boolish(record.force_remove_source_branch),
        should_remove_source_branch: null,
        sha: head,
        merge_commit_sha: sha(record.merge_commit_sha),
        squash_commit_sha: sha(record.squash_commit_sha),
        base_sha: sha(diff.base_commit_sha),
        start_sha: sha(diff.start_commit_sha) ?? sha(record.target_branch_sha),
        head_sha: head,
        ...editFields(record, createdAt),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await labelLinks('MergeRequest', inserted.id, list(record.label_links));
    for (const [table, key] of [
      ['merge_request_assignees', 'merge_request_assignees'],
      ['merge_request_reviewers', 'merge_request_reviewers'],
    ] as const) {
      const ids = await users(list(record[key]).map((a) => int(a.user_id)).filter((id): id is number => id !== null && isMapped(id)).map(mapped));
      if (ids.length > 0) await db.insertInto(table).values(ids.map((user_id) => ({ merge_request_id: inserted.id, user_id }))).execute();
    }
    await notes('MergeRequest', inserted.id, list(record.notes), 'merge_requests');
  });

  // ---- Protected branches and tags ------------------------------------------------------------
  const levelOf = (v: unknown) => {
    const level = int(v);
    return level !== null && [0, 30, 40, 60].includes(level) ? level : null;
  };
  const branches = new Set<string>();
  await each('protected_branches', async (record) => {
    const name = required(record.name, 'Name');
    if (branches.has(name)) throw new Invalid('Name has already been taken');
    branches.add(name);
    const inserted = await db
      .insertInto('protected_branches')
      .values({ project_id: projectId, name, allow_force_push: boolish(record.allow_force_push), code_owner_approval_required: boolish(record.code_owner_approval_required), created_at: time(record.created_at, now), updated_at: time(record.updated_at, now) })
      .returning('id')
      .executeTakeFirstOrThrow();
    const levels: { protected_branch_id: number; action: string; access_level: number }[] = [];
    for (const [key, action, fallback] of [
      ['push_access_levels', 'push', ACCESS.MAINTAINER],
      ['merge_access_levels', 'merge', ACCESS.MAINTAINER],
      ['unprotect_access_levels', 'unprotect', null],
    ] as const) {
      const given = list(record[key]).map((l) => levelOf(l.access_level)).filter((l): l is number => l !== null);
      const chosen = given.length > 0 ? [...new Set(given)] : fallback !== null ? [fallback] : [];
      for (const access_level of chosen) levels.push({ protected_branch_id: inserted.id, action, access_level });
    }
    if (levels.length > 0) await db.insertInto('protected_branch_access_levels').values(levels).execute();
  });
  const protectedTags = new Set<string>();
  await each('protected_tags', async (record) => {
    const name = required(record.name, 'Name');
    if (protectedTags.has(name)) throw new Invalid('Name has already been taken');
    protectedTags.add(name);
    const inserted = await db
      .insertInto('protected_tags')
      .values({ project_id: projectId, name, created_at: time(record.created_at, now), updated_at: time(record.updated_at, now) })
      .returning('id')
      .executeTakeFirstOrThrow();
    const given = list(record.create_access_levels).map((l) => levelOf(l.access_level)).filter((l): l is number => l !== null);
    const chosen = given.length > 0 ? [...new Set(given)] : [ACCESS.MAINTAINER];
    await db.insertInto('protected_tag_create_access_levels').values(chosen.map((access_level) => ({ protected_tag_id: inserted.id, access_level }))).execute();
  });

  // ---- Badges and boards (a list's label found again by title, or made, as a label link's) -------
  await each('project_badges', async (record) => {
    await db.insertInto('badges').values(badgeRow(record, { projectId }, now)).execute();
  });
  await each('boards', (record) => restoreBoard(db, record, { projectId }, label, now));

  for (const usage of ['issues', 'merge_requests', 'milestones'] as const) {
    const top = Math.max(0, ...iids[usage]);
    if (top > 0) await trackInternalId(ctx, projectId, usage, top);
  }
  return { failures, memberIds };
}

/** The one-line relations: the project's features and CI/CD settings, as the update parameters they map to. */
export async function readSingleRelations(relationsDir: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const names: Record<number, string> = { 0: 'disabled', 10: 'private', 20: 'enabled', 30: 'public' };
  for await (const [record] of readRelation(path.join(relationsDir, 'project_feature.ndjson'))) {
    for (const [key, value] of Object.entries(record)) {
      if (!key.endsWith('_access_level')) continue;
      const name = names[int(value) ?? -1];
      if (name) out[key] = key === 'pages_access_level' || name !== 'public' ? name : 'enabled';
    }
    break;
  }
  for await (const [record] of readRelation(path.join(relationsDir, 'ci_cd_settings.ndjson'))) {
    const depth = int(record.default_git_depth);
    if (depth !== null) out.ci_default_git_depth = depth;
    break;
  }
  return out;
}
