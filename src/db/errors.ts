// Recognises database errors that both dialects report differently.

/** A unique index refused a row (SQLite: SQLITE_CONSTRAINT_UNIQUE / PRIMARYKEY, PostgreSQL: 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errcode?: number; message?: string } | null;
  if (!e) return false;
  if (e.code === '23505') return true;
  if (e.errcode === 2067 || e.errcode === 1555) return true;
  return typeof e.message === 'string' && e.message.includes('UNIQUE constraint failed');
}
