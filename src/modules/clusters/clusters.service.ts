// Adding, changing and removing a project's clusters (14.x Clusters::CreateService, UpdateService
// and the API's destroy). A management project is checked first and alone, as the platform does:
// a project of the cluster's project's own namespace (no subgroup, no shared project) whose
// pipelines the caller may administer. Then the model's rules (clusters.validation.ts), with the
// API address checked as a public URL unless the instance allows local requests. The token is
// sealed with the instance's key; an update without one (or with a blank one) keeps it. Removing a
// cluster leaves what it made in Kubernetes, as the platform's API does.
import { projectAs } from '../../core/access/loaders.ts';
import { type ServiceContext, requireActor } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { ClusterRow, ProjectRow } from '../../db/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { readProjectSettings } from '../../domain/settings/project-settings.ts';
import { blockedPublicUrlMessage } from '../../domain/url-blocker.ts';
import { ciAbilities } from '../pipelines/index.ts';
import { environmentScopeTaken } from './clusters.finder.ts';
import type { CreateClusterBody, UpdateClusterBody } from './clusters.schemas.ts';
import { type ClusterCheck, type ClusterFields, DUPLICATED_SCOPE, MANAGEMENT_PROJECT_REFUSED, clusterErrors, namespaceOf, unlessBlank } from './clusters.validation.ts';

/** The caller may name a project of the cluster's namespace whose pipelines they administer, or none (null). */
async function checkManagementProject(ctx: ServiceContext, project: ProjectRow, id: number | null | undefined): Promise<void> {
  if (id === undefined || id === null) return;
  const actor = requireActor(ctx);
  const candidate = await ctx.db.selectFrom('projects').selectAll().where('id', '=', id).where('namespace_id', '=', project.namespace_id).executeTakeFirst();
  if (candidate) {
    const [loaded, settings] = await Promise.all([projectAs(ctx.db, actor, candidate), readProjectSettings(ctx.db, candidate)]);
    if (ciAbilities(actor, loaded, settings).has('admin_pipeline')) return;
  }
  throw invalidFields({ management_project_id: [MANAGEMENT_PROJECT_REFUSED] });
}

/** Why the API address is refused; only asked when the platform's fields change. */
async function apiUrlBlocked(ctx: ServiceContext, apiUrl: string): Promise<string | null> {
  const settings = await applicationSettings(ctx.db);
  return blockedPublicUrlMessage(apiUrl, { allowLocal: settings.allow_local_requests_from_web_hooks_and_services });
}

/** Throws the platform's 400 when the cluster may not be written as checked. */
async function validate(ctx: ServiceContext, project: ProjectRow, check: Omit<ClusterCheck, 'apiUrlBlocked' | 'scopeTaken'>, managementProjectId: number | null, exceptId: number | null) {
  const [blocked, scopeTaken] = await Promise.all([
    check.platformChanged ? apiUrlBlocked(ctx, check.fields.api_url) : null,
    environmentScopeTaken(ctx.db, { projectId: project.id, managementProjectId, environmentScope: check.fields.environment_scope, exceptId }),
  ]);
  const errors = clusterErrors({ ...check, apiUrlBlocked: blocked, scopeTaken });
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
}

/** A concurrent writer of the same scope in the project: the answer of the check before it. */
async function unlessScopeTaken<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw invalidFields({ environment_scope: [DUPLICATED_SCOPE] });
    throw error;
  }
}

/** POST /projects/:id/clusters/user: a cluster added as an existing one, by the caller. */
export async function createCluster(ctx: ServiceContext, project: ProjectRow, input: CreateClusterBody): Promise<ClusterRow> {
  await checkManagementProject(ctx, project, input.management_project_id);
  const platform = input.platform_kubernetes_attributes;
  const token = platform.token.trim();
  const fields: ClusterFields = {
    name: input.name,
    domain: unlessBlank(input.domain),
    environment_scope: input.environment_scope ?? '*',
    api_url: platform.api_url.trim(),
    token,
    ca_cert: unlessBlank(platform.ca_cert?.trim()),
    namespace: namespaceOf(platform.namespace),
  };
  const managementProjectId = input.management_project_id ?? null;
  await validate(ctx, project, { fields, platformChanged: true, caCertChanged: true, provisioned: null }, managementProjectId, null);
  const at = ctx.now().toISOString();
  return unlessScopeTaken(() =>
    ctx.db
      .insertInto('clusters')
      .values({
        name: fields.name,
        domain: fields.domain,
        environment_scope: fields.environment_scope,
        api_url: fields.api_url,
        ca_cert: fields.ca_cert,
        namespace: fields.namespace,
        project_id: project.id,
        user_id: requireActor(ctx).user.id,
        enabled: input.enabled ?? true,
        managed: input.managed ?? true,
        provider_type: 'user',
        management_project_id: managementProjectId,
        authorization_type: platform.authorization_type ?? 'rbac',
        token_encrypted: secretBox(ctx.config.dataDir).seal(token),
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

/** PUT /projects/:id/clusters/:cluster_id: the fields given; a cluster the platform provisioned keeps its name and connection. */
export async function updateCluster(ctx: ServiceContext, project: ProjectRow, row: ClusterRow, changes: UpdateClusterBody): Promise<ClusterRow> {
  await checkManagementProject(ctx, project, changes.management_project_id);
  const box = secretBox(ctx.config.dataDir);
  const platform = changes.platform_kubernetes_attributes ?? {};
  // A blank token is no change.
  const token = platform.token?.trim() || null;
  const fields: ClusterFields = {
    name: changes.name ?? row.name,
    domain: changes.domain === undefined ? row.domain : unlessBlank(changes.domain),
    environment_scope: changes.environment_scope ?? row.environment_scope,
    api_url: platform.api_url?.trim() ?? row.api_url,
    token,
    ca_cert: platform.ca_cert === undefined ? row.ca_cert : unlessBlank(platform.ca_cert.trim()),
    namespace: platform.namespace === undefined ? row.namespace : namespaceOf(platform.namespace),
  };
  const tokenChanged = token !== null && token !== box.open(row.token_encrypted);
  const caCertChanged = fields.ca_cert !== row.ca_cert;
  const connectionChanged = fields.api_url !== row.api_url || tokenChanged || caCertChanged;
  const managementProjectId = changes.management_project_id === undefined ? row.management_project_id : changes.management_project_id;
  const provisioned = row.provider_type === 'user' ? null : { nameChanged: fields.name !== row.name, connectionChanged };
  const platformChanged = connectionChanged || fields.namespace !== row.namespace;
  await validate(ctx, project, { fields, platformChanged, caCertChanged, provisioned }, managementProjectId, row.id);

  const next = {
    name: fields.name,
    domain: fields.domain,
    environment_scope: fields.environment_scope,
    api_url: fields.api_url,
    ca_cert: fields.ca_cert,
    namespace: fields.namespace,
    enabled: changes.enabled ?? row.enabled,
    managed: changes.managed ?? row.managed,
    management_project_id: managementProjectId,
  };
  const unchanged = (Object.keys(next) as (keyof typeof next)[]).every((key) => next[key] === row[key]);
  // Nothing to write keeps the cluster's updated_at, as the platform's save does.
  if (unchanged && !tokenChanged) return row;
  return unlessScopeTaken(() =>
    ctx.db
      .updateTable('clusters')
      .set({ ...next, ...(tokenChanged ? { token_encrypted: box.seal(token) } : {}), updated_at: ctx.now().toISOString() })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

export async function deleteCluster(ctx: ServiceContext, row: ClusterRow): Promise<void> {
  await ctx.db.deleteFrom('clusters').where('id', '=', row.id).execute();
}
