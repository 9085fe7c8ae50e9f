// Pages domains (spec Part 1 §2.12, §4.7; the platform's 14.x PagesDomain entities): a project's
// form with its certificate described, and the instance form (administrators' list) with the
// project's id and only the certificate's expiry. The private key is a parameter only.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, FileOrString, IdOrPath, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';

/** Entities::PagesDomainCertificate. */
export const PagesDomainCertificateEntity = Entity({
  /** OpenSSL's one-line form: `/CN=example.com`. */
  subject: Type.String(),
  expired: Type.Boolean(),
  /** The PEM text as it was given (intermediates included). */
  certificate: Type.String(),
  /** As `openssl x509 -text -noout` prints the first certificate. */
  certificate_text: Type.String(),
});

const domainFields = {
  domain: Type.String(),
  /** https:// when the domain has a certificate. */
  url: Type.String(),
  verified: Type.Boolean(),
  verification_code: Type.String(),
  enabled_until: Nullable(Timestamp),
  auto_ssl_enabled: Type.Boolean(),
};

/** Entities::PagesDomain: `certificate` only when one is stored. */
export const PagesDomainEntity = Entity({ ...domainFields, certificate: Type.Optional(PagesDomainCertificateEntity) });
export type PagesDomain = Static<typeof PagesDomainEntity>;

/** Entities::PagesDomainBasic: the administrators' list, the expiry under `certificate_expiration` (only when a certificate is stored). */
export const PagesDomainBasicEntity = Entity({
  domain: domainFields.domain,
  url: domainFields.url,
  project_id: Type.Integer(),
  verified: domainFields.verified,
  verification_code: domainFields.verification_code,
  enabled_until: domainFields.enabled_until,
  auto_ssl_enabled: domainFields.auto_ssl_enabled,
  certificate_expiration: Type.Optional(Entity({ expired: Type.Boolean(), expiration: Timestamp })),
});
export type PagesDomainBasic = Static<typeof PagesDomainBasicEntity>;

export const ListDomainsQuery = Params({ ...PageParams });
export const ProjectParams = Params({ id: IdOrPath });
export const DomainParams = Params({ id: IdOrPath, domain: Type.String({ minLength: 1 }) });

const certificate = FileOrString({ description: 'The certificate in PEM, intermediates after it (text or a file)' });
const key = FileOrString({ description: 'The private key in PEM (text or a file)' });

export const CreateDomainBody = Params(
  {
    domain: Type.String(),
    certificate: Type.Optional(certificate),
    key: Type.Optional(key),
    auto_ssl_enabled: Type.Optional(Bool({ default: false })),
  },
  { 'x-all-or-none-of': [['certificate', 'key']] },
);
export type CreateDomainBody = Static<typeof CreateDomainBody>;

/** Only what is given changes; empty `certificate` and `key` remove the certificate. */
export const UpdateDomainBody = Params({
  certificate: Type.Optional(certificate),
  key: Type.Optional(key),
  auto_ssl_enabled: Type.Optional(Bool()),
});
export type UpdateDomainBody = Static<typeof UpdateDomainBody>;
