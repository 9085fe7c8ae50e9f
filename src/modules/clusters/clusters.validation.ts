// A cluster's rules (14.x Clusters::Cluster, Clusters::Platforms::Kubernetes and their validators),
// pure: the caller finds out beforehand what needs the database or the network (whether the API
// address is refused, whether the environment scope is taken). Errors come in the platform's order:
// the environment scope, the platform's fields (checked when they change), the name, the domain,
// then the scope's uniqueness.
import type { FieldErrors } from '../../core/errors.ts';
import { INVALID_CERTIFICATE, isPemCertificate } from '../../domain/certificates.ts';
import { environmentScopeErrors } from '../../domain/environment-scope.ts';
import { hostnameErrors } from '../../domain/hostname.ts';
import { BLANK, addError, tooLong } from '../../domain/validation.ts';

export const DUPLICATED_SCOPE = 'cannot add duplicated environment scope';
export const MANAGEMENT_PROJECT_REFUSED = "Project does not exist or you don't have permission to perform this action";

const NAME_MAX = 255;
const NAMESPACE_MAX = 63;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const RESERVED_NAMESPACES = ['gitlab-managed-apps'];

/** What a cluster will hold once written. */
export interface ClusterFields {
  name: string;
  domain: string | null;
  environment_scope: string;
  api_url: string;
  /** In clear, as given; null when an update keeps the one it has. */
  token: string | null;
  ca_cert: string | null;
  namespace: string | null;
}

export interface ClusterCheck {
  fields: ClusterFields;
  /** Whether the platform's fields change (always, for a new cluster): only then are they checked. */
  platformChanged: boolean;
  caCertChanged: boolean;
  /** Set for a cluster the platform provisioned (not added as an existing one): what would change of what it keeps. */
  provisioned: { nameChanged: boolean; connectionChanged: boolean } | null;
  /** Why the API address is refused (domain/url-blocker.ts), or null. */
  apiUrlBlocked: string | null;
  scopeTaken: boolean;
}

/** A blank optional text reads as unset. */
export const unlessBlank = (value: string | null | undefined): string | null => (value === undefined || value === null || value.trim() === '' ? null : value);
/** Namespaces are kept in lower case. */
export const namespaceOf = (value: string | null | undefined): string | null => unlessBlank(value)?.toLowerCase() ?? null;

function platformErrors(errors: FieldErrors, check: ClusterCheck): void {
  const { fields } = check;
  const add = (field: string, message: string) => addError(errors, `platform_kubernetes.${field}`, message);
  if (fields.namespace !== null) {
    if (fields.namespace.length > NAMESPACE_MAX) add('namespace', tooLong(NAMESPACE_MAX));
    if (!NAMESPACE.test(fields.namespace)) add('namespace', "can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'");
    if (RESERVED_NAMESPACES.includes(fields.namespace)) add('namespace', 'is reserved');
  }
  if (check.apiUrlBlocked !== null) add('api_url', check.apiUrlBlocked);
  if (fields.api_url === '') add('api_url', BLANK);
  if (fields.token === '') add('token', BLANK);
  if (check.caCertChanged && fields.ca_cert !== null && !isPemCertificate(fields.ca_cert)) add('ca_cert', INVALID_CERTIFICATE);
  if (check.provisioned?.connectionChanged) add('base', 'Cannot modify managed Kubernetes cluster');
}

/** The cluster's validation errors by field; empty when it may be written. */
export function clusterErrors(check: ClusterCheck): FieldErrors {
  const errors: FieldErrors = {};
  const { fields } = check;
  environmentScopeErrors(errors, fields.environment_scope);
  if (check.platformChanged) platformErrors(errors, check);
  if (check.provisioned === null) {
    if (fields.name.trim() === '') addError(errors, 'name', 'has to be present');
    if (fields.name.length > NAME_MAX) addError(errors, 'name', tooLong(NAME_MAX));
  } else if (check.provisioned.nameChanged) {
    addError(errors, 'name', "can not be changed because it's synchronized with provider");
  }
  if (fields.domain !== null) for (const message of hostnameErrors(fields.domain)) addError(errors, 'domain', message);
  if (check.scopeTaken) addError(errors, 'environment_scope', DUPLICATED_SCOPE);
  return errors;
}
