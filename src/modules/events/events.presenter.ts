// Pure row → entity for activity events; lists pass in their authors, loaded in one query.
import type { EventRow, NoteRow, UserRow } from '../../db/schema.ts';
import { presentNote } from '../notes/notes.presenter.ts';
import { type UserView, presentUserBasic } from '../users/users.presenter.ts';
import type { Event, PushData } from './events.schemas.ts';

export interface EventView extends UserView {
  authors: ReadonlyMap<number, UserRow>;
  /** The notes that events of the page target, with the iid of what each is on; and the users they name. */
  notes?: ReadonlyMap<number, { note: NoteRow; noteableIid: number | null }>;
  noteAuthors?: ReadonlyMap<number, UserRow>;
}

const NOTE = 'Note';

function eventNote(row: EventRow, view: EventView) {
  const found = row.target_id === null ? undefined : view.notes?.get(row.target_id);
  if (!found) return null;
  const { note, noteableIid } = found;
  return presentNote(note, view.noteAuthors ?? new Map(), noteableIid, view.baseUrl);
}

const WIKI_PAGE = 'WikiPage::Meta';
const DESIGN = 'DesignManagement::Design';
const DESIGN_ACTIONS: Record<string, string> = { created: 'uploaded', updated: 'revised', destroyed: 'deleted', archived: 'archived' };

/** Push data as stored by the pushing code, with every key of the entity. */
function pushData(raw: string | null): PushData {
  const data = (raw ? JSON.parse(raw) : {}) as Partial<PushData>;
  return {
    commit_count: data.commit_count ?? 0,
    action: data.action ?? 'pushed',
    ref_type: data.ref_type ?? 'branch',
    commit_from: data.commit_from ?? null,
    commit_to: data.commit_to ?? null,
    ref: data.ref ?? null,
    commit_title: data.commit_title ?? null,
    ref_count: data.ref_count ?? null,
  };
}

/** The platform's wording of an event's action, as its activity feed reads. */
export function actionName(event: Pick<EventRow, 'action' | 'target_type'>, push: PushData | null): string {
  const { action, target_type: targetType } = event;
  if (push) return push.action === 'created' ? 'pushed new' : push.action === 'removed' ? 'deleted' : 'pushed to';
  if (targetType === DESIGN) return DESIGN_ACTIONS[action] ?? action;
  switch (action) {
    case 'closed':
      return 'closed';
    case 'merged':
      return 'accepted';
    case 'joined':
      return 'joined';
    case 'left':
      return 'left';
    case 'expired':
      return 'removed due to membership expiration from';
    case 'destroyed':
      return 'destroyed';
    case 'commented':
      return 'commented on';
    case 'approved':
      return 'approved';
  }
  if (targetType === WIKI_PAGE && (action === 'created' || action === 'updated')) return action;
  if (action === 'created' && (targetType === null || targetType === 'Project')) return 'created';
  // Opened or reopened issues, merge requests and milestones.
  return 'opened';
}

export function presentEvent(row: EventRow, view: EventView): Event {
  const author = view.authors.get(row.author_id);
  if (!author) throw new Error(`event ${row.id}: author ${row.author_id} was not loaded`);
  const push = row.action === 'pushed' ? pushData(row.push_data) : null;
  return {
    id: row.id,
    title: null,
    project_id: row.project_id,
    action_name: actionName(row, push),
    target_id: row.target_id,
    // Targets without an iid (notes, snippets) show their id.
    target_iid: row.target_iid ?? row.target_id,
    target_type: row.target_type,
    author_id: row.author_id,
    target_title: row.target_title,
    created_at: row.created_at,
    ...(row.target_type === NOTE ? { note: eventNote(row, view) } : {}),
    author: presentUserBasic(author, view),
    ...(push ? { push_data: push } : {}),
    author_username: author.username,
  };
}
