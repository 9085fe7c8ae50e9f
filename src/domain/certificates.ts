// X.509 certificates and private keys that users paste (a cluster's CA certificate, a pages
// domain's certificate and key), parsed for real by OpenSSL through node:crypto, as the
// platform's certificate validators parse them, and described in its words.
import { type KeyObject, X509Certificate, createPrivateKey } from 'node:crypto';
import { getCACertificates } from 'node:tls';
import { TAG, derChildren, derItem } from './der.ts';
import { certificateSubject, certificateText } from './x509-text.ts';

export const INVALID_CERTIFICATE = 'must be a valid PEM certificate';
export const INVALID_PRIVATE_KEY = 'must be a valid PEM private key';
export const EXPLICIT_CURVE = 'ECDSA keys with explicit curves are not supported';
export const KEY_MISMATCH = "doesn't match the certificate";
export const MISSES_INTERMEDIATES = 'misses intermediates';

/** The first certificate in `text` (PEM; text around it is ignored, as OpenSSL does), or null. */
export function parseCertificate(text: string): X509Certificate | null {
  try {
    return new X509Certificate(text);
  } catch {
    return null;
  }
}

/** Whether `text` holds a certificate in PEM. */
export const isPemCertificate = (text: string): boolean => parseCertificate(text) !== null;

const PEM_CERTIFICATE = /-----BEGIN (?:TRUSTED )?CERTIFICATE-----[\s\S]*?-----END (?:TRUSTED )?CERTIFICATE-----/g;

/** Every certificate of a PEM bundle, in order (those that do not parse are left out). */
export function pemCertificates(text: string): X509Certificate[] {
  return [...text.matchAll(PEM_CERTIFICATE)].map(([block]) => parseCertificate(block)).filter((c): c is X509Certificate => c !== null);
}

/** What the platform shows of a certificate. */
export interface CertificateSummary {
  /** OpenSSL's one-line form: `/CN=example.com`. */
  subject: string;
  notBefore: Date;
  notAfter: Date;
  /** As `openssl x509 -text -noout` prints it. */
  text: string;
}

export function summarizeCertificate(x509: X509Certificate): CertificateSummary {
  return { subject: certificateSubject(x509), notBefore: x509.validFromDate, notAfter: x509.validToDate, text: certificateText(x509) };
}

/** Before its start or after its end. */
export const certificateExpired = (c: Pick<CertificateSummary, 'notBefore' | 'notAfter'>, now: Date): boolean => now < c.notBefore || c.notAfter < now;

/** The private key in `text` (PEM), or null when there is none, it is encrypted, or it is a public key. */
export function parsePrivateKey(text: string): KeyObject | null {
  try {
    const key = createPrivateKey(text);
    return key.type === 'private' ? key : null;
  } catch {
    return null;
  }
}

const PEM_KEY = /-----BEGIN (EC PRIVATE KEY|PRIVATE KEY)-----([\s\S]*?)-----END \1-----/;
const EC_PUBLIC_KEY_OID = Buffer.from([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]);

/**
 * Whether the key is an EC key whose curve is spelled out (explicit parameters) instead of named,
 * which the platform's Pages daemon cannot use. OpenSSL 3 maps known explicit curves to their
 * names when it loads them, so the encoding itself is read: SEC 1 (`EC PRIVATE KEY`, parameters
 * in [0]) or PKCS #8 (`PRIVATE KEY`, parameters in the algorithm identifier).
 */
export function hasExplicitCurve(text: string): boolean {
  const match = PEM_KEY.exec(text);
  if (!match) return false;
  try {
    const der = Buffer.from(match[2].replace(/\s+/g, ''), 'base64');
    const top = derChildren(der, derItem(der, 0));
    let parameters;
    if (match[1] === 'EC PRIVATE KEY') {
      const wrapped = top.find((item) => item.tag === TAG.context0);
      parameters = wrapped ? derItem(der, wrapped.start) : undefined;
    } else {
      const [oid, params] = derChildren(der, top[1]);
      if (!der.subarray(oid.start, oid.end).equals(EC_PUBLIC_KEY_OID)) return false;
      parameters = params;
    }
    return parameters?.tag === TAG.sequence;
  } catch {
    return false;
  }
}

/** Whether the private key belongs to the certificate's public key. */
export const keyMatchesCertificate = (x509: X509Certificate, key: KeyObject): boolean => x509.checkPrivateKey(key);

/** Signed by its own key. */
function selfSigned(x509: X509Certificate): boolean {
  try {
    return x509.checkIssued(x509) && x509.verify(x509.publicKey);
  } catch {
    return false;
  }
}

let systemAuthorities: X509Certificate[] | null = null;

/** The machine's trusted certificate authorities (OpenSSL's default paths), read once. */
function systemCertificates(): X509Certificate[] {
  systemAuthorities ??= getCACertificates('system').map(parseCertificate).filter((c): c is X509Certificate => c !== null);
  return systemAuthorities;
}

const MAX_DEPTH = 10;

/**
 * Whether the chain is whole, as the platform checks it: the first certificate is self-signed, or
 * it verifies up to a self-signed authority through certificates that are all trusted (the
 * machine's authorities and every certificate submitted, in any order), each an authority that
 * issued the one below it, all within their validity at `now` (an expired certificate fails too).
 */
export function chainIsComplete(leaf: X509Certificate, submitted: readonly X509Certificate[], now: Date): boolean {
  if (selfSigned(leaf)) return true;
  const trusted = [...submitted, ...systemCertificates()];
  const current = (c: X509Certificate) => !certificateExpired({ notBefore: c.validFromDate, notAfter: c.validToDate }, now);
  const issuersOf = (child: X509Certificate) =>
    trusted.filter((candidate) => {
      try {
        return candidate.ca && child.checkIssued(candidate) && child.verify(candidate.publicKey) && current(candidate);
      } catch {
        return false;
      }
    });
  const reaches = (cert: X509Certificate, depth: number): boolean => {
    if (depth > MAX_DEPTH) return false;
    return issuersOf(cert).some((issuer) => selfSigned(issuer) || reaches(issuer, depth + 1));
  };
  return current(leaf) && reaches(leaf, 0);
}
