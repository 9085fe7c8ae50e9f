// Pure broadcast message rows → the broadcast message entity; active between its start and its end.
import type { BroadcastMessageRow } from '../../db/schema.ts';
import type { BroadcastMessage } from './broadcast-messages.schemas.ts';

export function presentBroadcastMessage(row: BroadcastMessageRow, now: Date): BroadcastMessage {
  const at = now.toISOString();
  return {
    id: row.id,
    message: row.message,
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    color: row.color,
    font: row.font,
    target_access_levels: JSON.parse(row.target_access_levels) as number[],
    target_path: row.target_path,
    broadcast_type: row.broadcast_type as BroadcastMessage['broadcast_type'],
    dismissable: row.dismissable,
    active: row.starts_at <= at && row.ends_at > at,
  };
}
