// X.509 certificates that users paste (a cluster's CA certificate): parsed for real by OpenSSL
// through node:crypto, as the platform's certificate validation parses them.
import { X509Certificate } from 'node:crypto';

export const INVALID_CERTIFICATE = 'must be a valid PEM certificate';

/** Whether `text` holds a certificate in PEM (text around it is ignored, as OpenSSL does). */
export function isPemCertificate(text: string): boolean {
  try {
    new X509Certificate(text);
    return true;
  } catch {
    return false;
  }
}
