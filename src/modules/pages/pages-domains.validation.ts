// A pages domain's rules (14.x PagesDomain and its certificate validators), pure: the caller finds
// out beforehand whether the domain is taken. Errors come in the platform's order: the host name,
// its uniqueness, the certificate, the key, the pages host, then the key against the certificate
// and the certificate's chain. As on the platform, a certificate that does not parse also misses
// its intermediates, and a key that matches no parsed certificate does not match it.
import type { FieldErrors } from '../../core/errors.ts';
import {
  EXPLICIT_CURVE,
  INVALID_CERTIFICATE,
  INVALID_PRIVATE_KEY,
  KEY_MISMATCH,
  MISSES_INTERMEDIATES,
  chainIsComplete,
  hasExplicitCurve,
  keyMatchesCertificate,
  parseCertificate,
  parsePrivateKey,
  pemCertificates,
} from '../../domain/certificates.ts';
import { hostnameErrors } from '../../domain/hostname.ts';
import { TAKEN, addError } from '../../domain/validation.ts';

/** What a domain will hold once written. */
export interface DomainCheck {
  domain: string;
  certificate: string | null;
  /** In clear. */
  key: string | null;
  /** The certificate is new or changed: its chain is checked only then. */
  certificateChanged: boolean;
  taken: boolean;
  /** The instance's pages host: domains under it are the instance's. */
  pagesHost: string;
  now: Date;
}

/** Ruby's `present?`: neither empty nor only white space. */
export const isPresent = (value: string | null): value is string => value !== null && value.trim() !== '';

export const restrictedMessage = (pagesHost: string) => `*.${pagesHost} is restricted`;

export function domainErrors(check: DomainCheck): FieldErrors {
  const errors: FieldErrors = {};
  for (const message of hostnameErrors(check.domain)) addError(errors, 'domain', message);
  if (check.taken) addError(errors, 'domain', TAKEN);
  const certificatePresent = isPresent(check.certificate);
  const keyPresent = isPresent(check.key);
  const x509 = certificatePresent ? parseCertificate(check.certificate!) : null;
  if (certificatePresent && !x509) addError(errors, 'certificate', INVALID_CERTIFICATE);
  const key = keyPresent ? parsePrivateKey(check.key!) : null;
  if (keyPresent && !key) addError(errors, 'key', INVALID_PRIVATE_KEY);
  if (keyPresent && hasExplicitCurve(check.key!)) addError(errors, 'key', EXPLICIT_CURVE);
  // The platform compares with the end of the name, dot or not.
  if (check.domain.toLowerCase().endsWith(check.pagesHost.toLowerCase())) addError(errors, 'domain', restrictedMessage(check.pagesHost));
  if ((certificatePresent || keyPresent) && !(x509 && key && keyMatchesCertificate(x509, key))) addError(errors, 'key', KEY_MISMATCH);
  if (certificatePresent && check.certificateChanged && !(x509 && chainIsComplete(x509, pemCertificates(check.certificate!), check.now))) {
    addError(errors, 'certificate', MISSES_INTERMEDIATES);
  }
  return errors;
}
