// Creating, changing and deleting CI/CD variables of a project, a group or the instance, with the
// platform's validation: a key is unique per owner (and per environment scope for a project).
// Values are kept encrypted with the instance's key.
import type { ServiceContext } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { CiVariableRow } from '../../db/schema.ts';
import { INSTANCE_VALUE_LIMIT, type VariableType, keyTaken, variableErrors } from '../../ci/variable-rules.ts';
import type { VariableOwner } from './ci-variables.finder.ts';

export interface VariableInput {
  key: string;
  value: string;
  protected?: boolean;
  masked?: boolean;
  variable_type?: VariableType;
  environment_scope?: string;
}

export type VariableChanges = Partial<VariableInput>;

const scoped = (owner: VariableOwner) => owner.type === 'project';

/** Throws the platform's 400 with the fields' errors when the variable would be invalid or its key taken. */
async function validate(ctx: ServiceContext, owner: VariableOwner, v: Required<Omit<VariableInput, 'environment_scope'>> & { environment_scope: string }, exceptId: number | null) {
  const errors = variableErrors(
    { key: v.key, value: v.value, masked: v.masked, environmentScope: scoped(owner) ? v.environment_scope : undefined },
    { valueLimit: owner.type === 'instance' ? INSTANCE_VALUE_LIMIT : undefined },
  );
  const clash = await ctx.db
    .selectFrom('ci_variables')
    .select('id')
    .where('owner_type', '=', owner.type)
    .where('owner_id', '=', owner.id)
    .where('key', '=', v.key)
    .where('environment_scope', '=', v.environment_scope)
    .$if(exceptId !== null, (q) => q.where('id', '!=', exceptId as number))
    .executeTakeFirst();
  if (clash) (errors.key ??= []).push(keyTaken(v.key));
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
}

/** A concurrent writer of the same key and scope: the same answer as the check before it. */
async function unlessTaken<T>(key: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw invalidFields({ key: [keyTaken(key)] });
    throw error;
  }
}

export async function createVariable(ctx: ServiceContext, owner: VariableOwner, input: VariableInput): Promise<CiVariableRow> {
  const v = {
    key: input.key,
    value: input.value,
    protected: input.protected ?? false,
    masked: input.masked ?? false,
    variable_type: input.variable_type ?? 'env_var',
    environment_scope: scoped(owner) ? (input.environment_scope ?? '*') : '*',
  };
  await validate(ctx, owner, v, null);
  const at = ctx.now().toISOString();
  const box = secretBox(ctx.config.dataDir);
  const { value, ...rest } = v;
  return unlessTaken(v.key, () =>
    ctx.db
      .insertInto('ci_variables')
      .values({ owner_type: owner.type, owner_id: owner.id, ...rest, value_encrypted: box.seal(value), created_at: at, updated_at: at })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

export async function updateVariable(ctx: ServiceContext, owner: VariableOwner, row: CiVariableRow, changes: VariableChanges): Promise<CiVariableRow> {
  const box = secretBox(ctx.config.dataDir);
  const v = {
    key: changes.key ?? row.key,
    value: changes.value ?? box.open(row.value_encrypted),
    protected: changes.protected ?? row.protected,
    masked: changes.masked ?? row.masked,
    variable_type: changes.variable_type ?? (row.variable_type as VariableType),
    environment_scope: scoped(owner) ? (changes.environment_scope ?? row.environment_scope) : row.environment_scope,
  };
  await validate(ctx, owner, v, row.id);
  const { value, ...rest } = v;
  return unlessTaken(v.key, () =>
    ctx.db
      .updateTable('ci_variables')
      .set({ ...rest, value_encrypted: box.seal(value), updated_at: ctx.now().toISOString() })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

export async function deleteVariable(ctx: ServiceContext, row: CiVariableRow): Promise<void> {
  await ctx.db.deleteFrom('ci_variables').where('id', '=', row.id).execute();
}
