// Pure row → entity for a user's status.
import type { UserStatusRow } from '../../db/schema.ts';
import { escapeHtml } from '../../domain/single-line-html.ts';
import type { UserStatus } from './user-status.schemas.ts';

/**
 * The status, or the empty one of a user who shows none. The message renders through the
 * platform's emoji pipeline: HTML escaped, no Markdown (emoji codes stay as text here).
 */
export function presentUserStatus(row: UserStatusRow | undefined): UserStatus {
  if (!row) return { emoji: null, message: null, availability: null, message_html: '', clear_status_at: null };
  return {
    emoji: row.emoji,
    message: row.message,
    availability: row.availability,
    message_html: row.message ? escapeHtml(row.message) : '',
    clear_status_at: row.clear_status_at,
  };
}
