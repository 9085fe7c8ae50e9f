// Pages domain rows → entities (pure). The certificate is described from its PEM text each time
// (subject, expiry, text): nothing derived from it is stored but its validity period.
import type { PagesDomainRow } from '../../db/schema.ts';
import { type CertificateSummary, certificateExpired, parseCertificate, summarizeCertificate } from '../../domain/certificates.ts';
import type { PagesDomain, PagesDomainBasic } from './pages-domains.schemas.ts';

/** The stored certificate, described; null when there is none. */
function describe(row: PagesDomainRow): CertificateSummary | null {
  const x509 = row.certificate ? parseCertificate(row.certificate) : null;
  return x509 ? summarizeCertificate(x509) : null;
}

const url = (row: PagesDomainRow) => `${row.certificate ? 'https' : 'http'}://${row.domain}`;

export function presentPagesDomain(row: PagesDomainRow, now: Date): PagesDomain {
  const summary = describe(row);
  return {
    domain: row.domain,
    url: url(row),
    verified: row.verified_at !== null,
    verification_code: row.verification_code,
    enabled_until: row.enabled_until,
    auto_ssl_enabled: row.auto_ssl_enabled,
    ...(summary && row.certificate
      ? { certificate: { subject: summary.subject, expired: certificateExpired(summary, now), certificate: row.certificate, certificate_text: summary.text } }
      : {}),
  };
}

export function presentPagesDomainBasic(row: PagesDomainRow, now: Date): PagesDomainBasic {
  const notBefore = row.certificate_valid_not_before;
  const notAfter = row.certificate_valid_not_after;
  return {
    domain: row.domain,
    url: url(row),
    project_id: row.project_id,
    verified: row.verified_at !== null,
    verification_code: row.verification_code,
    enabled_until: row.enabled_until,
    auto_ssl_enabled: row.auto_ssl_enabled,
    ...(row.certificate && notBefore && notAfter
      ? { certificate_expiration: { expired: certificateExpired({ notBefore: new Date(notBefore), notAfter: new Date(notAfter) }, now), expiration: notAfter } }
      : {}),
  };
}
