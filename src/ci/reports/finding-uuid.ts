// The UUID of a security finding as the platform computes it (Gitlab::UUID.v5 over
// "<report type>-<primary identifier fingerprint>-<location fingerprint>-<project id>"). The
// platform's v5 is Rails 6.1's Digest::UUID.uuid_v5, which feeds the namespace to SHA-1 as the
// 36-character text it was given rather than as its 16 bytes: an RFC 4122 implementation gives
// other values, so this one hashes the text, as the platform does, to name findings alike.
import { createHash } from 'node:crypto';

/** The namespace of the platform's production instances. */
export const FINDING_UUID_NAMESPACE = '58dc0f06-936c-43b3-93bb-71693f1b6570';

/** Digest::UUID.uuid_v5(namespace, name) of Rails 6.1: SHA-1 of the namespace's text, then the name. */
export function uuidV5(name: string, namespace = FINDING_UUID_NAMESPACE): string {
  const hash = createHash('sha1').update(namespace, 'utf8').update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export interface FindingUuidParts {
  reportType: string;
  primaryIdentifierFingerprint: string;
  locationFingerprint: string;
  projectId: number;
}

export const findingUuid = (parts: FindingUuidParts) =>
  uuidV5(`${parts.reportType}-${parts.primaryIdentifierFingerprint}-${parts.locationFingerprint}-${parts.projectId}`);
