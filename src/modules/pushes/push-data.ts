// push_data of push events as the platform builds it (ProcessRefChangesService, Branch- and
// TagHooksService, PushEventPayloadService): read from the repository once the refs have moved.
import { ZERO_OID } from '../../git/args.ts';
import { countCommits, logCommitIds, readCommits } from '../../git/history.ts';
import { type RefUpdate, resolveCommit, resolveRef } from '../../git/refs.ts';
import type { PushData } from '../events/events.schemas.ts';

/** More refs of one type and action than this in one change make one bulk event instead (push_event_activities_limit). */
const PUSH_EVENT_ACTIVITIES_LIMIT = 3;

/** A new default branch reports the count of its whole history, and the title of the oldest of its latest commits so many. */
const PROCESS_COMMIT_LIMIT = 100;

const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';
/** What Ruby's String#strip removes. */
const RUBY_SPACE = /^[\0\t\n\v\f\r ]+|[\0\t\n\v\f\r ]+$/g;
const TITLE_LENGTH = 70;

type Action = PushData['action'];
type RefType = PushData['ref_type'];

/** A commit message's title: its first line, stripped, cut to 70 characters with "..." as Rails' truncate does. */
export function commitTitle(message: string): string {
  const newline = message.indexOf('\n');
  const line = (newline === -1 ? message : message.slice(0, newline + 1)).replace(RUBY_SPACE, '');
  const chars = Array.from(line);
  return chars.length > TITLE_LENGTH ? `${chars.slice(0, TITLE_LENGTH - 3).join('')}...` : line;
}

function actionOf(update: RefUpdate): Action {
  if (update.before === ZERO_OID) return 'created';
  return update.after === ZERO_OID ? 'removed' : 'pushed';
}

async function titleOf(gitDir: string, id: string): Promise<string | null> {
  const [commit] = await readCommits(gitDir, [id]);
  return commit ? commitTitle(commit.message) : null;
}

/** The commits a branch change reports: how many, and the title of the one the event shows. */
async function branchCommits(gitDir: string, update: RefUpdate, branch: string, defaultBranch: string | null): Promise<{ count: number; title: string | null }> {
  const { before, after } = update;
  if (after === ZERO_OID) return { count: 0, title: null };
  if (before === ZERO_OID && (defaultBranch === null || defaultBranch === branch)) {
    // The platform lists the latest commits newest first and shows the last of that list.
    const latest = await logCommitIds(gitDir, { revisions: [after] }, { skip: 0, limit: PROCESS_COMMIT_LIMIT });
    return { count: await countCommits(gitDir, { revisions: [after] }), title: await titleOf(gitDir, latest[latest.length - 1]) };
  }
  // A new branch reports what the default branch lacks; an update what the old head lacked. The
  // platform lists those oldest first and shows the last: the new head, when there are any.
  // By commit id, not by name, so that the count is kept per commit and often needs no walk.
  const exclude = before !== ZERO_OID ? before : defaultBranch === null ? null : await resolveRef(gitDir, `${BRANCH_PREFIX}${defaultBranch}`);
  const count = await countCommits(gitDir, { revisions: exclude === null ? [after] : [after, `^${exclude}`] });
  return { count, title: count > 0 ? await titleOf(gitDir, after) : null };
}

/** A tag reports the commit it points at, if it still points where the change left it. */
async function tagCommits(gitDir: string, update: RefUpdate): Promise<{ count: number; title: string | null }> {
  if (update.after === ZERO_OID || (await resolveRef(gitDir, update.ref)) !== update.after) return { count: 0, title: null };
  const commit = await resolveCommit(gitDir, update.after);
  return commit === null ? { count: 0, title: null } : { count: 1, title: await titleOf(gitDir, commit) };
}

async function singleData(gitDir: string, update: RefUpdate, refType: RefType, defaultBranch: string | null): Promise<PushData> {
  const prefix = refType === 'branch' ? BRANCH_PREFIX : TAG_PREFIX;
  const name = update.ref.slice(prefix.length);
  const { count, title } = refType === 'branch' ? await branchCommits(gitDir, update, name, defaultBranch) : await tagCommits(gitDir, update);
  const action = actionOf(update);
  return {
    commit_count: count,
    action,
    ref_type: refType,
    commit_from: action === 'created' ? null : update.before,
    commit_to: action === 'removed' ? null : update.after,
    ref: name,
    commit_title: title,
    ref_count: null,
  };
}

/**
 * The push_data of each event a change of refs records, in the platform's order: branches, then
 * tags; within each, grouped by action in order of appearance; a group larger than the limit is
 * one bulk event. Refs other than branches and tags record nothing. `defaultBranch` is the
 * project's default branch once the change is done.
 */
export async function pushEventsData(gitDir: string, updates: readonly RefUpdate[], defaultBranch: string | null): Promise<PushData[]> {
  const data: PushData[] = [];
  for (const [refType, prefix] of [['branch', BRANCH_PREFIX], ['tag', TAG_PREFIX]] as const) {
    const groups = new Map<Action, RefUpdate[]>();
    for (const update of updates) {
      if (!update.ref.startsWith(prefix)) continue;
      const action = actionOf(update);
      groups.set(action, [...(groups.get(action) ?? []), update]);
    }
    for (const [action, group] of groups) {
      if (group.length > PUSH_EVENT_ACTIVITIES_LIMIT) {
        data.push({ commit_count: 0, action, ref_type: refType, commit_from: null, commit_to: null, ref: null, commit_title: null, ref_count: group.length });
        continue;
      }
      for (const update of group) data.push(await singleData(gitDir, update, refType, defaultBranch));
    }
  }
  return data;
}
