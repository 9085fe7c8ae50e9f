// A project's records written as the platform's 14.x export tree (its import_export.yml): the
// project's attributes in tree/project.json, and a file per relation under tree/project/, each
// record with its nested records (an issue with its notes, label links and milestone). Users are
// referenced as the platform does: members carry {id, email, username}, authors their id and
// name. No CI/CD variables, webhooks, runner tokens or other secrets are written. Records are read
// in batches by id, their nested records a query per batch.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { DB, IssueRow, MergeRequestRow, ProjectRow } from '../../db/schema.ts';
import { FEATURE_LEVEL_CODES, readProjectSettings } from '../../domain/settings/project-settings.ts';
import { badgeJson, boardsJson } from './boards-badges.ts';
import { labelJson, milestoneJson } from './record-json.ts';
import { type JsonObject, NdjsonWriter } from './ndjson.ts';

const BATCH = 200;

/** Relation files of the tree, in the order the platform's restorer reads them. */
export const PROJECT_RELATIONS = [
  'labels',
  'milestones',
  'issues',
  'releases',
  'project_members',
  'merge_requests',
  'protected_branches',
  'protected_tags',
  'project_feature',
  'project_badges',
  'ci_cd_settings',
  'boards',
] as const;
export type ProjectRelation = (typeof PROJECT_RELATIONS)[number];

const bool = (v: unknown) => v === true || v === 1;

export interface TreeProgress {
  (relation: string): Promise<void>;
}

/** Writes tree/project.json and tree/project/*.ndjson for the project under `dir`. */
export async function writeProjectTree(db: Kysely<DB>, project: ProjectRow, dir: string, options: { description: string | null; progress?: TreeProgress }): Promise<void> {
  const tree = path.join(dir, 'tree');
  const relations = path.join(tree, 'project');
  await fs.mkdir(relations, { recursive: true });
  const settings = await readProjectSettings(db, project);
  const s = settings.settings as Record<string, unknown>;
  const ci = settings.ciCd as Record<string, unknown>;
  const attributes: JsonObject = {
    description: options.description ?? project.description,
    visibility_level: project.visibility_level,
    archived: bool(project.archived),
    default_branch: project.default_branch,
    merge_requests_ff_only_enabled: s.merge_method === 'ff',
    merge_requests_rebase_enabled: s.merge_method === 'rebase_merge',
    squash_option: s.squash_option,
    request_access_enabled: s.request_access_enabled,
    only_allow_merge_if_pipeline_succeeds: s.only_allow_merge_if_pipeline_succeeds,
    only_allow_merge_if_all_discussions_are_resolved: s.only_allow_merge_if_all_discussions_are_resolved,
    allow_merge_on_skipped_pipeline: s.allow_merge_on_skipped_pipeline,
    printing_merge_request_link_enabled: s.printing_merge_request_link_enabled,
    remove_source_branch_after_merge: s.remove_source_branch_after_merge,
    resolve_outdated_diff_discussions: s.resolve_outdated_diff_discussions,
    autoclose_referenced_issues: s.autoclose_referenced_issues,
    suggestion_commit_message: s.suggestion_commit_message,
    service_desk_enabled: s.service_desk_enabled,
    shared_runners_enabled: ci.shared_runners_enabled,
    public_builds: ci.public_builds,
    build_timeout: ci.build_timeout,
    ci_config_path: ci.ci_config_path,
    build_coverage_regex: ci.build_coverage_regex,
    auto_cancel_pending_pipelines: ci.auto_cancel_pending_pipelines,
  };
  await fs.writeFile(path.join(tree, 'project.json'), JSON.stringify(attributes), { flag: 'wx' });

  const step = async (relation: ProjectRelation, write: (out: NdjsonWriter) => Promise<void>) => {
    await options.progress?.(relation);
    const out = new NdjsonWriter(path.join(relations, `${relation}.ndjson`));
    try {
      await write(out);
    } finally {
      await out.close();
    }
  };

  await step('labels', async (out) => {
    const rows = await db.selectFrom('labels').selectAll().where('project_id', '=', project.id).orderBy('id').execute();
    const priorities = await db.selectFrom('label_priorities').selectAll().where('project_id', '=', project.id).execute();
    for (const label of rows) {
      const json = labelJson(label);
      json.priorities = priorities.filter((p) => p.label_id === label.id).map((p) => ({ priority: p.priority, created_at: p.created_at, updated_at: p.updated_at }));
      await out.write(json);
    }
  });

  await step('milestones', async (out) => {
    const rows = await db.selectFrom('milestones').selectAll().where('project_id', '=', project.id).orderBy('id').execute();
    for (const m of rows) await out.write(milestoneJson(m));
  });

  await step('issues', (out) => writeIssuables(db, project.id, 'Issue', out));

  await step('releases', async (out) => {
    const rows = await db.selectFrom('releases').selectAll().where('project_id', '=', project.id).orderBy('id').execute();
    const links = rows.length === 0 ? [] : await db.selectFrom('release_links').selectAll().where('release_id', 'in', rows.map((r) => r.id)).orderBy('id').execute();
    for (const r of rows) {
      await out.write({
        id: r.id,
        tag: r.tag,
        name: r.name,
        description: r.description,
        sha: r.sha,
        author_id: r.author_id,
        released_at: r.released_at,
        created_at: r.created_at,
        updated_at: r.updated_at,
        links: links
          .filter((l) => l.release_id === r.id)
          .map((l) => ({ id: l.id, name: l.name, url: l.url, filepath: l.filepath, link_type: l.link_type, created_at: l.created_at, updated_at: l.updated_at })),
      });
    }
  });

  await step('project_members', async (out) => {
    const rows = await db
      .selectFrom('members')
      .innerJoin('users', 'users.id', 'members.user_id')
      .select(['members.id', 'members.access_level', 'members.user_id', 'members.expires_at', 'members.created_by_id', 'members.created_at', 'members.updated_at', 'users.email', 'users.username'])
      .where('members.source_type', '=', 'Project')
      .where('members.source_id', '=', project.id)
      .orderBy('members.id')
      .execute();
    for (const m of rows) {
      await out.write({
        id: m.id,
        access_level: m.access_level,
        source_type: 'Project',
        user_id: m.user_id,
        notification_level: 3,
        created_at: m.created_at,
        updated_at: m.updated_at,
        created_by_id: m.created_by_id,
        expires_at: m.expires_at,
        user: { id: m.user_id, email: m.email, username: m.username },
      });
    }
  });

  await step('merge_requests', (out) => writeIssuables(db, project.id, 'MergeRequest', out));

  await step('protected_branches', async (out) => {
    const rows = await db.selectFrom('protected_branches').selectAll().where('project_id', '=', project.id).orderBy('id').execute();
    const levels = rows.length === 0 ? [] : await db.selectFrom('protected_branch_access_levels').selectAll().where('protected_branch_id', 'in', rows.map((r) => r.id)).orderBy('id').execute();
    for (const b of rows) {
      const of = (action: string) => levels.filter((l) => l.protected_branch_id === b.id && l.action === action).map((l) => ({ access_level: l.access_level }));
      await out.write({
        id: b.id,
        name: b.name,
        created_at: b.created_at,
        updated_at: b.updated_at,
        allow_force_push: bool(b.allow_force_push),
        code_owner_approval_required: bool(b.code_owner_approval_required),
        merge_access_levels: of('merge'),
        push_access_levels: of('push'),
        unprotect_access_levels: of('unprotect'),
      });
    }
  });

  await step('protected_tags', async (out) => {
    const rows = await db.selectFrom('protected_tags').selectAll().where('project_id', '=', project.id).orderBy('id').execute();
    const levels = rows.length === 0 ? [] : await db.selectFrom('protected_tag_create_access_levels').selectAll().where('protected_tag_id', 'in', rows.map((r) => r.id)).execute();
    for (const t of rows) {
      await out.write({
        id: t.id,
        name: t.name,
        created_at: t.created_at,
        updated_at: t.updated_at,
        create_access_levels: levels.filter((l) => l.protected_tag_id === t.id).map((l) => ({ access_level: l.access_level })),
      });
    }
  });

  await step('project_feature', async (out) => {
    const features = settings.features as Record<string, string>;
    const json: JsonObject = {};
    for (const [key, value] of Object.entries(features)) json[key] = FEATURE_LEVEL_CODES[value as keyof typeof FEATURE_LEVEL_CODES] ?? 20;
    await out.write(json);
  });

  await step('project_badges', async (out) => {
    const rows = await db.selectFrom('badges').selectAll().where('type', '=', 'ProjectBadge').where('project_id', '=', project.id).orderBy('id').execute();
    for (const badge of rows) await out.write(badgeJson(badge));
  });

  await step('ci_cd_settings', async (out) => {
    await out.write({ group_runners_enabled: true, default_git_depth: ci.ci_default_git_depth ?? null });
  });

  await step('boards', async (out) => {
    const boards = (await boardsJson(db, { projectId: project.id })).get(project.id) ?? [];
    for (const board of boards) await out.write(board);
  });
}

/** Issues or merge requests with their notes, label links, milestone and assignees, by batches of ids. */
async function writeIssuables(db: Kysely<DB>, projectId: number, type: 'Issue' | 'MergeRequest', out: NdjsonWriter): Promise<void> {
  const milestones = new Map((await db.selectFrom('milestones').selectAll().where('project_id', '=', projectId).execute()).map((m) => [m.id, m]));
  let after = 0;
  for (;;) {
    const rows =
      type === 'Issue'
        ? await db.selectFrom('issues').selectAll().where('project_id', '=', projectId).where('id', '>', after).orderBy('id').limit(BATCH).execute()
        : await db.selectFrom('merge_requests').selectAll().where('project_id', '=', projectId).where('id', '>', after).orderBy('id').limit(BATCH).execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1].id;
    const ids = rows.map((r) => r.id);
    const [notes, links, assignees, reviewers] = await Promise.all([
      db.selectFrom('notes').selectAll().where('noteable_type', '=', type).where('noteable_id', 'in', ids).orderBy('id').execute(),
      db
        .selectFrom('label_links')
        .innerJoin('labels', 'labels.id', 'label_links.label_id')
        .select(['label_links.target_id', 'label_links.created_at', 'label_links.updated_at', 'labels.id', 'labels.title', 'labels.color', 'labels.description', 'labels.group_id'])
        .where('label_links.target_type', '=', type)
        .where('label_links.target_id', 'in', ids)
        .orderBy('label_links.id')
        .execute(),
      type === 'Issue'
        ? db.selectFrom('issue_assignees').select(['issue_id as target_id', 'user_id']).where('issue_id', 'in', ids).execute()
        : db.selectFrom('merge_request_assignees').select(['merge_request_id as target_id', 'user_id']).where('merge_request_id', 'in', ids).execute(),
      type === 'Issue' ? Promise.resolve([]) : db.selectFrom('merge_request_reviewers').select(['merge_request_id as target_id', 'user_id']).where('merge_request_id', 'in', ids).execute(),
    ]);
    const authorIds = new Set(notes.map((n) => n.author_id).filter((id): id is number => id !== null));
    const authors = authorIds.size === 0 ? new Map<number, string>() : new Map((await db.selectFrom('users').select(['id', 'name']).where('id', 'in', [...authorIds]).execute()).map((u) => [u.id, u.name]));
    const by = <T extends { target_id: number | string }>(list: readonly T[], id: number) => list.filter((x) => Number(x.target_id) === id);
    const notesOf = new Map<number, typeof notes>();
    for (const n of notes) notesOf.set(Number(n.noteable_id), [...(notesOf.get(Number(n.noteable_id)) ?? []), n]);
    for (const row of rows) {
      const milestone = row.milestone_id !== null ? milestones.get(row.milestone_id) : undefined;
      const common: JsonObject = {
        id: row.id,
        iid: row.iid,
        title: row.title,
        description: row.description,
        state: row.state,
        author_id: row.author_id,
        created_at: row.created_at,
        updated_at: row.updated_at,
        updated_by_id: row.updated_by_id,
        last_edited_at: row.last_edited_at,
        last_edited_by_id: row.last_edited_by_id,
        discussion_locked: row.discussion_locked === null ? null : bool(row.discussion_locked),
        ...(milestone ? { milestone: milestoneJson(milestone) } : {}),
        label_links: by(links, row.id).map((l) => ({ target_type: type, created_at: l.created_at, updated_at: l.updated_at, label: labelJson(l) })),
        notes: (notesOf.get(row.id) ?? []).map((n) => ({
          id: n.id,
          note: n.body,
          noteable_type: type,
          author_id: n.author_id,
          created_at: n.created_at,
          updated_at: n.updated_at,
          project_id: projectId,
          commit_id: n.commit_id,
          system: bool(n.system),
          confidential: bool(n.confidential),
          type: n.type,
          discussion_id: n.discussion_id,
          resolvable: bool(n.resolvable),
          resolved_at: n.resolved_at,
          resolved_by_id: n.resolved_by_id,
          updated_by_id: n.updated_by_id,
          line_code: null,
          position: null,
          author: { name: n.author_id !== null ? (authors.get(n.author_id) ?? 'Ghost User') : 'Ghost User' },
          award_emoji: [],
          events: [],
        })),
        events: [],
        timelogs: [],
        resource_label_events: [],
        award_emoji: [],
      };
      if (type === 'Issue') {
        const issue = row as IssueRow;
        await out.write({
          ...common,
          confidential: bool(issue.confidential),
          issue_type: issue.issue_type,
          due_date: issue.due_date,
          weight: issue.weight,
          time_estimate: issue.time_estimate,
          closed_at: issue.closed_at,
          closed_by_id: issue.closed_by_id,
          issue_assignees: by(assignees, row.id).map((a) => ({ user_id: a.user_id })),
        });
      } else {
        const mr = row as MergeRequestRow;
        await out.write({
          ...common,
          source_branch: mr.source_branch,
          target_branch: mr.target_branch,
          source_project_id: projectId,
          target_project_id: projectId,
          merge_status: mr.merge_status,
          merge_error: mr.merge_error,
          merge_params: mr.merge_params === null ? {} : safeJson(mr.merge_params),
          merge_when_pipeline_succeeds: bool(mr.merge_when_pipeline_succeeds),
          merge_user_id: mr.merge_user_id,
          merge_commit_sha: mr.merge_commit_sha,
          squash_commit_sha: mr.squash_commit_sha,
          squash: bool(mr.squash),
          force_remove_source_branch: mr.force_remove_source_branch === null ? null : bool(mr.force_remove_source_branch),
          diff_head_sha: mr.sha,
          source_branch_sha: mr.head_sha ?? mr.sha,
          target_branch_sha: mr.start_sha,
          metrics: { merged_by_id: mr.merged_by_id, merged_at: mr.merged_at, latest_closed_by_id: mr.closed_by_id, latest_closed_at: mr.closed_at },
          merge_request_diff: { state: 'collected', base_commit_sha: mr.base_sha, start_commit_sha: mr.start_sha, head_commit_sha: mr.head_sha, merge_request_diff_commits: [], merge_request_diff_files: [] },
          merge_request_assignees: by(assignees, row.id).map((a) => ({ user_id: a.user_id })),
          merge_request_reviewers: by(reviewers, row.id).map((a) => ({ user_id: a.user_id })),
        });
      }
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
