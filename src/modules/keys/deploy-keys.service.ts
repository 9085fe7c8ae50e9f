// Writes of deploy keys (spec part 1 §4.6, the platform's 14.x deploy keys API): adding a key to a
// project (or joining an existing one to it), changing its title and push access, enabling a key
// of another project, and removing a key from a project (and from the system with its last one).
import type { Kysely } from 'kysely';
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { type FieldErrors, apiError, invalidFields, notFound } from '../../core/errors.ts';
import type { DB, KeyRow } from '../../db/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { TAKEN } from '../../domain/validation.ts';
import { type ProjectDeployKey, findAccessibleDeployKey, findProjectDeployKey, findProjectDeployKeyByText } from './deploy-keys.finder.ts';
import type { AddDeployKeyBody, UpdateDeployKeyBody } from './deploy-keys.schemas.ts';
import { insertKey, removeOrphanedDeployKeys } from './keys.service.ts';
import { checkKey, storedKeyText } from './keys.validation.ts';

/** The key's errors as the platform reports them through the project's join ("deploy_key.title"). */
const throughJoin = (errors: FieldErrors) => invalidFields(Object.fromEntries(Object.entries(errors).map(([field, messages]) => [`deploy_key.${field}`, messages])));

/** Enables a key on a project, unless it already is; the join as it stands. */
async function join(db: Kysely<DB>, projectId: number, keyId: number, canPush: boolean, at: string): Promise<ProjectDeployKey> {
  await db
    .insertInto('deploy_keys_projects')
    .values({ deploy_key_id: keyId, project_id: projectId, can_push: canPush, created_at: at, updated_at: at })
    .onConflict((oc) => oc.columns(['deploy_key_id', 'project_id']).doNothing())
    .execute();
  const joined = await findProjectDeployKey(db, projectId, keyId);
  if (!joined) throw new Error(`deploy key ${keyId} vanished while being enabled on project ${projectId}`);
  return joined;
}

/**
 * POST /projects/:id/deploy_keys. A key the project already has is answered as it is (push access
 * unchanged); one the caller may reach elsewhere is joined to the project; any other is created,
 * which fails on its fingerprint when the key exists where the caller cannot reach it.
 */
export async function addDeployKey(ctx: ServiceContext, projectId: number, input: AddDeployKeyBody): Promise<ProjectDeployKey> {
  const actor = requireActor(ctx);
  const restrictions = await applicationSettings(ctx.db);
  const canPush = input.can_push ?? false;
  return withTransaction(ctx, async ({ db }) => {
    const text = storedKeyText(input.key.trim());
    const here = await findProjectDeployKeyByText(db, projectId, text);
    if (here) return here;
    const at = ctx.now().toISOString();
    const elsewhere = await findAccessibleDeployKey(db, { userId: actor.user.id, isAdmin: actor.isAdmin }, { text });
    if (elsewhere) return join(db, projectId, elsewhere.id, canPush, at);

    const { key, errors } = await checkKey(db, restrictions, { title: input.title, key: input.key.trim() });
    if (errors) throw throughJoin(errors);
    const row = await insertKey(db, {
      type: 'DeployKey',
      user_id: null,
      creator_id: actor.user.id,
      title: key.title,
      key: key.key,
      fingerprint: key.fingerprint,
      fingerprint_sha256: key.fingerprintSha256,
      public: false,
      expires_at: null,
      created_at: at,
      updated_at: at,
    });
    if (!row) throw throughJoin({ fingerprint: [TAKEN] });
    return join(db, projectId, row.id, canPush, at);
  });
}

/** The project's key, or the platform's record-not-found 404 (lower-case "found"). */
async function projectKey(db: Kysely<DB>, projectId: number, keyId: number): Promise<ProjectDeployKey> {
  const key = await findProjectDeployKey(db, projectId, keyId);
  if (!key) throw apiError(404, '404 Not found');
  return key;
}

/**
 * PUT /projects/:id/deploy_keys/:key_id. Push access is the project's to set; the title belongs to
 * the key, which administrators may rename, and the maintainers of a project using it unless it
 * is a public key (then the title is left as it is, silently, as on the platform).
 */
export async function updateDeployKey(ctx: ServiceContext, projectId: number, keyId: number, input: UpdateDeployKeyBody): Promise<ProjectDeployKey> {
  const actor = requireActor(ctx);
  const restrictions = await applicationSettings(ctx.db);
  return withTransaction(ctx, async ({ db }) => {
    const current = await projectKey(db, projectId, keyId);
    const at = ctx.now().toISOString();
    const renamed = input.title !== undefined && input.title !== current.title && (actor.isAdmin || !current.public);
    if (renamed) {
      const { errors } = await checkKey(db, restrictions, { title: input.title!, key: current.key }, current.id);
      if (errors) throw throughJoin(errors);
      await db.updateTable('keys').set({ title: input.title, updated_at: at }).where('id', '=', keyId).execute();
    }
    if (input.can_push !== undefined) {
      await db
        .updateTable('deploy_keys_projects')
        .set({ can_push: input.can_push, updated_at: at })
        .where('deploy_key_id', '=', keyId)
        .where('project_id', '=', projectId)
        .execute();
    }
    return projectKey(db, projectId, keyId);
  });
}

/** POST /projects/:id/deploy_keys/:key_id/enable: a key the caller may reach, joined to the project (once). */
export async function enableDeployKey(ctx: ServiceContext, projectId: number, keyId: number): Promise<KeyRow> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async ({ db }) => {
    const key = await findAccessibleDeployKey(db, { userId: actor.user.id, isAdmin: actor.isAdmin }, { id: keyId });
    if (!key) throw notFound('Deploy Key');
    await join(db, projectId, key.id, false, ctx.now().toISOString());
    return key;
  });
}

/** DELETE /projects/:id/deploy_keys/:key_id: the key leaves the project, and the system when no project uses it (public keys stay). */
export async function removeDeployKey(ctx: ServiceContext, projectId: number, keyId: number): Promise<void> {
  await withTransaction(ctx, async ({ db }) => {
    await db.deleteFrom('deploy_keys_projects').where('deploy_key_id', '=', keyId).where('project_id', '=', projectId).execute();
    await removeOrphanedDeployKeys(db, { ids: [keyId] });
  });
}
