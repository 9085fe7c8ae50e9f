// Pure row → entity for an email address.
import type { EmailRow } from '../../db/schema.ts';
import type { Email } from './emails.schemas.ts';

export function presentEmail(row: EmailRow): Email {
  return { id: row.id, email: row.email, confirmed_at: row.confirmed_at };
}
