// Creating, changing and deleting broadcast messages, with the model's checks in its words: a
// message is present, colours are colour codes; times default to now and an hour from now.
import type { ServiceContext } from '../../core/context.ts';
import { type FieldErrors, apiError, invalidFields, paramError } from '../../core/errors.ts';
import type { BroadcastMessageRow } from '../../db/schema.ts';
import { BLANK, INVALID_COLOR, addError, isColorCode } from '../../domain/validation.ts';
import type { CreateBroadcastMessageBody, UpdateBroadcastMessageBody } from './broadcast-messages.schemas.ts';

const HOUR_MS = 3_600_000;
const DEFAULT_COLOR = '#E75E40';
const DEFAULT_FONT = '#FFFFFF';

export const messageNotFound = () => apiError(404, '404 Not found');

export async function findBroadcastMessage(ctx: Pick<ServiceContext, 'db'>, id: number): Promise<BroadcastMessageRow> {
  const row = await ctx.db.selectFrom('broadcast_messages').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw messageNotFound();
  return row;
}

/** Grape's DateTime: any date and time Date.parse reads, stored as an ISO time. */
function timeParam(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const time = Date.parse(raw);
  if (Number.isNaN(time)) throw paramError(`${name} is invalid`);
  return new Date(time).toISOString();
}

type Changes = Omit<UpdateBroadcastMessageBody, 'target_access_levels'> & { target_access_levels?: string };

function changesOf(body: UpdateBroadcastMessageBody): Changes {
  const { target_access_levels: levels, starts_at, ends_at, ...rest } = body;
  const changes: Changes = { ...rest, starts_at: timeParam('starts_at', starts_at), ends_at: timeParam('ends_at', ends_at) };
  if (levels !== undefined) changes.target_access_levels = JSON.stringify([...new Set(levels)]);
  for (const key of Object.keys(changes) as (keyof Changes)[]) if (changes[key] === undefined) delete changes[key];
  return changes;
}

function validate(row: Pick<BroadcastMessageRow, 'message' | 'color' | 'font'>): void {
  const errors: FieldErrors = {};
  if (row.message.trim() === '') addError(errors, 'message', BLANK);
  for (const field of ['color', 'font'] as const) {
    const value = row[field];
    if (value && value.trim() !== '' && !isColorCode(value)) addError(errors, field, INVALID_COLOR);
  }
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
}

export async function createBroadcastMessage(ctx: ServiceContext, body: CreateBroadcastMessageBody): Promise<BroadcastMessageRow> {
  const now = ctx.now();
  const changes = changesOf(body);
  const values = {
    message: body.message,
    starts_at: changes.starts_at ?? now.toISOString(),
    ends_at: changes.ends_at ?? new Date(now.getTime() + HOUR_MS).toISOString(),
    color: changes.color ?? DEFAULT_COLOR,
    font: changes.font ?? DEFAULT_FONT,
    target_access_levels: changes.target_access_levels ?? '[]',
    target_path: changes.target_path ?? null,
    broadcast_type: changes.broadcast_type ?? 'banner',
    dismissable: changes.dismissable ?? null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  validate(values);
  return ctx.db.insertInto('broadcast_messages').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateBroadcastMessage(ctx: ServiceContext, id: number, body: UpdateBroadcastMessageBody): Promise<BroadcastMessageRow> {
  const row = await findBroadcastMessage(ctx, id);
  const changes = changesOf(body);
  validate({ ...row, ...changes });
  if (Object.keys(changes).length === 0) return row;
  return ctx.db
    .updateTable('broadcast_messages')
    .set({ ...changes, updated_at: ctx.now().toISOString() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteBroadcastMessage(ctx: ServiceContext, id: number): Promise<void> {
  await findBroadcastMessage(ctx, id);
  await ctx.db.deleteFrom('broadcast_messages').where('id', '=', id).execute();
}
