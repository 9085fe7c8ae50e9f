// Object identifiers and distinguished names of X.509 certificates as OpenSSL 3 writes them: the
// names it knows for the identifiers certificates carry (others stay dotted), a name in the
// one-line form the platform shows as a certificate's subject (`/C=FR/CN=example.com`, OpenSSL's
// X509_NAME_oneline), and in the form `openssl x509 -text` prints (`C = FR, CN = example.com`,
// its XN_FLAG_ONELINE, with RFC 2253 escapes and quotes).
import type { AttributeTypeAndValue, Name } from '@peculiar/asn1-x509';

/** OID → [short name, long name], for the identifiers that certificates commonly carry. */
const OBJECTS: Record<string, readonly [string, string]> = {
  // Name attributes.
  '2.5.4.3': ['CN', 'commonName'],
  '2.5.4.4': ['SN', 'surname'],
  '2.5.4.5': ['serialNumber', 'serialNumber'],
  '2.5.4.6': ['C', 'countryName'],
  '2.5.4.7': ['L', 'localityName'],
  '2.5.4.8': ['ST', 'stateOrProvinceName'],
  '2.5.4.9': ['street', 'streetAddress'],
  '2.5.4.10': ['O', 'organizationName'],
  '2.5.4.11': ['OU', 'organizationalUnitName'],
  '2.5.4.12': ['title', 'title'],
  '2.5.4.13': ['description', 'description'],
  '2.5.4.15': ['businessCategory', 'businessCategory'],
  '2.5.4.16': ['postalAddress', 'postalAddress'],
  '2.5.4.17': ['postalCode', 'postalCode'],
  '2.5.4.18': ['postOfficeBox', 'postOfficeBox'],
  '2.5.4.20': ['telephoneNumber', 'telephoneNumber'],
  '2.5.4.41': ['name', 'name'],
  '2.5.4.42': ['GN', 'givenName'],
  '2.5.4.43': ['initials', 'initials'],
  '2.5.4.44': ['generationQualifier', 'generationQualifier'],
  '2.5.4.46': ['dnQualifier', 'dnQualifier'],
  '2.5.4.65': ['pseudonym', 'pseudonym'],
  '2.5.4.72': ['role', 'role'],
  '2.5.4.97': ['organizationIdentifier', 'organizationIdentifier'],
  '1.2.840.113549.1.9.1': ['emailAddress', 'emailAddress'],
  '1.2.840.113549.1.9.2': ['unstructuredName', 'unstructuredName'],
  '0.9.2342.19200300.100.1.1': ['UID', 'userId'],
  '0.9.2342.19200300.100.1.25': ['DC', 'domainComponent'],
  '1.3.6.1.4.1.311.60.2.1.1': ['jurisdictionL', 'jurisdictionLocalityName'],
  '1.3.6.1.4.1.311.60.2.1.2': ['jurisdictionST', 'jurisdictionStateOrProvinceName'],
  '1.3.6.1.4.1.311.60.2.1.3': ['jurisdictionC', 'jurisdictionCountryName'],
  // Key and signature algorithms.
  '1.2.840.113549.1.1.1': ['rsaEncryption', 'rsaEncryption'],
  '1.2.840.113549.1.1.4': ['RSA-MD5', 'md5WithRSAEncryption'],
  '1.2.840.113549.1.1.5': ['RSA-SHA1', 'sha1WithRSAEncryption'],
  '1.2.840.113549.1.1.10': ['RSASSA-PSS', 'rsassaPss'],
  '1.2.840.113549.1.1.11': ['RSA-SHA256', 'sha256WithRSAEncryption'],
  '1.2.840.113549.1.1.12': ['RSA-SHA384', 'sha384WithRSAEncryption'],
  '1.2.840.113549.1.1.13': ['RSA-SHA512', 'sha512WithRSAEncryption'],
  '1.2.840.113549.1.1.14': ['RSA-SHA224', 'sha224WithRSAEncryption'],
  '1.2.840.10040.4.1': ['DSA', 'dsaEncryption'],
  '1.2.840.10040.4.3': ['DSA-SHA1', 'dsaWithSHA1'],
  '2.16.840.1.101.3.4.3.2': ['dsa_with_SHA256', 'dsa_with_SHA256'],
  '1.2.840.10045.2.1': ['id-ecPublicKey', 'id-ecPublicKey'],
  '1.2.840.10045.4.1': ['ecdsa-with-SHA1', 'ecdsa-with-SHA1'],
  '1.2.840.10045.4.3.1': ['ecdsa-with-SHA224', 'ecdsa-with-SHA224'],
  '1.2.840.10045.4.3.2': ['ecdsa-with-SHA256', 'ecdsa-with-SHA256'],
  '1.2.840.10045.4.3.3': ['ecdsa-with-SHA384', 'ecdsa-with-SHA384'],
  '1.2.840.10045.4.3.4': ['ecdsa-with-SHA512', 'ecdsa-with-SHA512'],
  '1.3.101.112': ['ED25519', 'ED25519'],
  '1.3.101.113': ['ED448', 'ED448'],
  // Extensions.
  '2.5.29.14': ['subjectKeyIdentifier', 'X509v3 Subject Key Identifier'],
  '2.5.29.15': ['keyUsage', 'X509v3 Key Usage'],
  '2.5.29.16': ['privateKeyUsagePeriod', 'X509v3 Private Key Usage Period'],
  '2.5.29.17': ['subjectAltName', 'X509v3 Subject Alternative Name'],
  '2.5.29.18': ['issuerAltName', 'X509v3 Issuer Alternative Name'],
  '2.5.29.19': ['basicConstraints', 'X509v3 Basic Constraints'],
  '2.5.29.30': ['nameConstraints', 'X509v3 Name Constraints'],
  '2.5.29.31': ['crlDistributionPoints', 'X509v3 CRL Distribution Points'],
  '2.5.29.32': ['certificatePolicies', 'X509v3 Certificate Policies'],
  '2.5.29.33': ['policyMappings', 'X509v3 Policy Mappings'],
  '2.5.29.35': ['authorityKeyIdentifier', 'X509v3 Authority Key Identifier'],
  '2.5.29.36': ['policyConstraints', 'X509v3 Policy Constraints'],
  '2.5.29.37': ['extendedKeyUsage', 'X509v3 Extended Key Usage'],
  '2.5.29.46': ['freshestCRL', 'X509v3 Freshest CRL'],
  '2.5.29.54': ['inhibitAnyPolicy', 'X509v3 Inhibit Any Policy'],
  '1.3.6.1.5.5.7.1.1': ['authorityInfoAccess', 'Authority Information Access'],
  '1.3.6.1.5.5.7.1.11': ['subjectInfoAccess', 'Subject Information Access'],
  '1.3.6.1.5.5.7.1.24': ['tlsfeature', 'TLS Feature'],
  '1.3.6.1.4.1.11129.2.4.2': ['ct_precert_scts', 'CT Precertificate SCTs'],
  '1.3.6.1.4.1.11129.2.4.3': ['ct_precert_poison', 'CT Precertificate Poison'],
  '2.16.840.1.113730.1.1': ['nsCertType', 'Netscape Cert Type'],
  '2.16.840.1.113730.1.13': ['nsComment', 'Netscape Comment'],
  // Extended key usages, access methods, policies.
  '1.3.6.1.5.5.7.3.1': ['serverAuth', 'TLS Web Server Authentication'],
  '1.3.6.1.5.5.7.3.2': ['clientAuth', 'TLS Web Client Authentication'],
  '1.3.6.1.5.5.7.3.3': ['codeSigning', 'Code Signing'],
  '1.3.6.1.5.5.7.3.4': ['emailProtection', 'E-mail Protection'],
  '1.3.6.1.5.5.7.3.5': ['ipsecEndSystem', 'IPSec End System'],
  '1.3.6.1.5.5.7.3.6': ['ipsecTunnel', 'IPSec Tunnel'],
  '1.3.6.1.5.5.7.3.7': ['ipsecUser', 'IPSec User'],
  '1.3.6.1.5.5.7.3.8': ['timeStamping', 'Time Stamping'],
  '1.3.6.1.5.5.7.3.9': ['OCSPSigning', 'OCSP Signing'],
  '1.3.6.1.5.5.7.3.17': ['ipsecIKE', 'ipsec Internet Key Exchange'],
  '2.5.29.37.0': ['anyExtendedKeyUsage', 'Any Extended Key Usage'],
  '1.3.6.1.4.1.311.10.3.3': ['msSGC', 'Microsoft Server Gated Crypto'],
  '2.16.840.1.113730.4.1': ['nsSGC', 'Netscape Server Gated Crypto'],
  '1.3.6.1.5.5.7.48.1': ['OCSP', 'OCSP'],
  '1.3.6.1.5.5.7.48.2': ['caIssuers', 'CA Issuers'],
  '1.3.6.1.5.5.7.2.1': ['id-qt-cps', 'Policy Qualifier CPS'],
  '1.3.6.1.5.5.7.2.2': ['id-qt-unotice', 'Policy Qualifier User Notice'],
  '2.5.29.32.0': ['anyPolicy', 'X509v3 Any Policy'],
  // Named curves.
  '1.2.840.10045.3.1.1': ['prime192v1', 'prime192v1'],
  '1.3.132.0.33': ['secp224r1', 'secp224r1'],
  '1.2.840.10045.3.1.7': ['prime256v1', 'prime256v1'],
  '1.3.132.0.34': ['secp384r1', 'secp384r1'],
  '1.3.132.0.35': ['secp521r1', 'secp521r1'],
  '1.3.132.0.10': ['secp256k1', 'secp256k1'],
};

/** The long name OpenSSL gives the identifier (i2a_ASN1_OBJECT), else the dotted form. */
export const oidLongName = (oid: string): string => OBJECTS[oid]?.[1] ?? oid;
export const oidShortName = (oid: string): string => OBJECTS[oid]?.[0] ?? oid;
export const isKnownOid = (oid: string): boolean => Object.hasOwn(OBJECTS, oid);

/** One attribute of a name: its type, its string's ASN.1 tag and bytes, and the RDN it belongs to. */
export interface NameEntry {
  oid: string;
  tag: number;
  bytes: Buffer;
  /** The whole encoding, for values of types that are not strings. */
  der: Buffer | null;
  rdn: number;
}

const TAGS = { utf8String: 12, printableString: 19, teletexString: 20, ia5String: 22, universalString: 28, bmpString: 30 } as const;

function utf16be(text: string): Buffer {
  const le = Buffer.from(text, 'utf16le');
  for (let i = 0; i + 1 < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1], le[i]];
  return le;
}

function utf32be(text: string): Buffer {
  const points = [...text].map((c) => c.codePointAt(0) ?? 0);
  const out = Buffer.alloc(points.length * 4);
  points.forEach((p, i) => out.writeUInt32BE(p, i * 4));
  return out;
}

/** The content octets of a DER value, and its tag number. */
function derContent(der: Buffer): { tag: number; content: Buffer } {
  let length = der[1] ?? 0;
  let offset = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    length = 0;
    for (let i = 0; i < count; i += 1) length = length * 256 + (der[2 + i] ?? 0);
    offset += count;
  }
  return { tag: (der[0] ?? 0) & 0x1f, content: der.subarray(offset, offset + length) };
}

function entryOf(atv: AttributeTypeAndValue, rdn: number): NameEntry {
  const v = atv.value;
  if (v.utf8String !== undefined) return { oid: atv.type, tag: TAGS.utf8String, bytes: Buffer.from(v.utf8String, 'utf8'), der: null, rdn };
  if (v.printableString !== undefined) return { oid: atv.type, tag: TAGS.printableString, bytes: Buffer.from(v.printableString, 'latin1'), der: null, rdn };
  if (v.teletexString !== undefined) return { oid: atv.type, tag: TAGS.teletexString, bytes: Buffer.from(v.teletexString, 'latin1'), der: null, rdn };
  if (v.ia5String !== undefined) return { oid: atv.type, tag: TAGS.ia5String, bytes: Buffer.from(v.ia5String, 'latin1'), der: null, rdn };
  if (v.bmpString !== undefined) return { oid: atv.type, tag: TAGS.bmpString, bytes: utf16be(v.bmpString), der: null, rdn };
  if (v.universalString !== undefined) return { oid: atv.type, tag: TAGS.universalString, bytes: utf32be(v.universalString), der: null, rdn };
  const der = Buffer.from(v.anyValue ?? new ArrayBuffer(0));
  const { tag, content } = derContent(der);
  return { oid: atv.type, tag, bytes: content, der, rdn };
}

export function nameEntries(name: Name): NameEntry[] {
  return name.flatMap((rdn, index) => rdn.map((atv) => entryOf(atv, index)));
}

const hex2 = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');

/** X509_NAME_oneline: `/TYPE=value` per attribute (`+` within one RDN), `/` and `+` escaped, other bytes outside ASCII as `\xHH`. */
export function onelineName(entries: readonly NameEntry[]): string {
  let out = '';
  entries.forEach((entry, i) => {
    out += i > 0 && entries[i - 1].rdn === entry.rdn ? '+' : '/';
    out += `${oidShortName(entry.oid)}=`;
    for (const byte of entry.bytes) {
      if (byte < 0x20 || byte > 0x7e) out += `\\x${hex2(byte)}`;
      else if (byte === 0x2f || byte === 0x2b) out += `\\${String.fromCharCode(byte)}`;
      else out += String.fromCharCode(byte);
    }
  });
  return out;
}

// RFC 2253 characters: escaped with a backslash, or (those marked quotable) making the value quoted.
const BACKSLASHED = new Set(['"', '\\']);
const QUOTABLE = new Set([',', '+', '<', '>', ';']);

/** The code points of a string value, by its type (tag2nbyte); null for types that are not strings. */
function codePoints(entry: NameEntry): number[] | null {
  switch (entry.tag) {
    // UTF-8 is printed byte by byte, as OpenSSL does not convert it twice.
    case 12:
    case 18:
    case 19:
    case 20:
    case 22:
    case 23:
    case 24:
    case 26:
      return [...entry.bytes];
    case 30: {
      const points: number[] = [];
      for (let i = 0; i + 1 < entry.bytes.length; i += 2) points.push(entry.bytes.readUInt16BE(i));
      return points;
    }
    case 28: {
      const points: number[] = [];
      for (let i = 0; i + 3 < entry.bytes.length; i += 4) points.push(entry.bytes.readUInt32BE(i));
      return points;
    }
    default:
      return null;
  }
}

/** One attribute's value as do_print_ex writes it with ASN1_STRFLGS_RFC2253 and ESC_QUOTE. */
function textValue(entry: NameEntry): string {
  const points = codePoints(entry);
  if (points === null) return `#${[...(entry.der ?? entry.bytes)].map(hex2).join('')}`;
  // Characters beyond one byte go out as UTF-8; UTF-8 strings are already bytes.
  const bytes: number[] = entry.tag === 12 ? points : points.flatMap((p) => (p < 0x80 ? [p] : [...Buffer.from(String.fromCodePoint(p), 'utf8')]));
  let quoted = false;
  let out = '';
  bytes.forEach((byte, i) => {
    const c = String.fromCharCode(byte);
    const edge = (i === 0 && (c === ' ' || c === '#')) || (i === bytes.length - 1 && c === ' ');
    if (byte > 0x7f || byte < 0x20 || byte === 0x7f) out += `\\${hex2(byte)}`;
    else if (QUOTABLE.has(c) || edge) {
      quoted = true;
      out += c;
    } else if (BACKSLASHED.has(c)) out += `\\${c}`;
    else out += c;
  });
  return quoted ? `"${out}"` : out;
}

/** XN_FLAG_ONELINE: `TYPE = value`, attributes joined with `, `, those of one RDN with ` + `. */
export function textName(entries: readonly NameEntry[]): string {
  let out = '';
  entries.forEach((entry, i) => {
    if (i > 0) out += entries[i - 1].rdn === entry.rdn ? ' + ' : ', ';
    out += `${oidShortName(entry.oid)} = ${textValue(entry)}`;
  });
  return out;
}
