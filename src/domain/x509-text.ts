// A certificate's full text as `openssl x509 -text -noout` prints it (OpenSSL 3's X509_print_ex
// with the default name options), which the platform shows as a pages domain's certificate_text.
// Node has no such dump, so it is written here from the certificate's structure (parsed with
// @peculiar/asn1-x509): the fields, the public key (RSA, named EC curves, Ed25519/Ed448), the
// extensions web certificates carry (constraints, key usages, key identifiers, alternative
// names, information access, CRL distribution points, policies, signed certificate timestamps,
// TLS features, Netscape's), and the signature. An extension outside that list is printed as
// OpenSSL prints one it has no printer for: its bytes, with `.` for those that are not text.
import type { KeyObject, X509Certificate } from 'node:crypto';
import type * as Asn1Ecc from '@peculiar/asn1-ecc';
import type * as Asn1Schema from '@peculiar/asn1-schema';
import type * as Asn1X509 from '@peculiar/asn1-x509';
import type { Extension, GeneralName, NoticeReference } from '@peculiar/asn1-x509';
import { lazyModule } from '../core/lazy-module.ts';
import { derItem } from './der.ts';
import { nameEntries, oidLongName, oidShortName, onelineName, textName } from './x509-names.ts';

const asn1Ecc = lazyModule<typeof Asn1Ecc>('@peculiar/asn1-ecc');
const asn1Schema = lazyModule<typeof Asn1Schema>('@peculiar/asn1-schema');
const asn1X509 = lazyModule<typeof Asn1X509>('@peculiar/asn1-x509');
/** The DER as the structure `schema` (one of the ASN.1 classes). */
const parse = <T>(der: Parameters<typeof Asn1Schema.AsnConvert.parse>[0], schema: new () => T): T => asn1Schema().AsnConvert.parse(der, schema);

const hex = (bytes: Uint8Array, separator = ':', upper = false) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).map((h) => (upper ? h.toUpperCase() : h)).join(separator);
const pad = (n: number) => ' '.repeat(n);
const buf = (data: ArrayBuffer | Uint8Array) => Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data);

/** An INTEGER's content octets as a magnitude (two's complement; negative numbers are rare enough to show as their magnitude). */
function magnitude(content: Buffer): { bytes: Buffer; negative: boolean } {
  const negative = content.length > 0 && (content[0] & 0x80) !== 0;
  let bytes = content;
  if (negative) {
    const inverted = Buffer.from(bytes.map((b) => ~b & 0xff));
    for (let i = inverted.length - 1; i >= 0; i -= 1) {
      inverted[i] = (inverted[i] + 1) & 0xff;
      if (inverted[i] !== 0) break;
    }
    bytes = inverted;
  }
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  return { bytes: bytes.subarray(start), negative };
}

/** `Serial Number:` as X509_print_ex writes it: decimal and hex when it fits a long, else hex bytes on the next line. */
function serialLines(content: Buffer): string {
  const { bytes, negative } = magnitude(content);
  const neg = negative ? '-' : '';
  if (bytes.length <= 8) {
    const value = BigInt(`0x${hex(bytes, '') || '0'}`);
    if (value <= 0x7fffffffffffffffn) return `        Serial Number: ${neg}${value} (${neg}0x${value.toString(16)})\n`;
  }
  return `        Serial Number:\n${pad(12)}${negative ? ' (Negative)' : ''}${hex(bytes)}\n`;
}

/** print_labeled_bignum: small numbers inline, larger ones as hex, 15 bytes a line, a leading 00 when the top bit is set. */
function bignumLines(label: string, unsigned: Buffer, indent: number): string {
  let start = 0;
  while (start < unsigned.length - 1 && unsigned[start] === 0) start += 1;
  const value = unsigned.subarray(start);
  if (value.length === 0 || (value.length === 1 && value[0] === 0)) return `${pad(indent)}${label} 0\n`;
  if (value.length <= 8) {
    const n = BigInt(`0x${hex(value, '')}`);
    return `${pad(indent)}${label} ${n} (0x${n.toString(16)})\n`;
  }
  const shown = value[0] & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value;
  return `${pad(indent)}${label}\n${hexBlock(shown, indent + 4, 15)}`;
}

/** Bytes as `aa:bb:…`, `perLine` a line, each line but the last ending with `:`. */
function hexBlock(bytes: Uint8Array, indent: number, perLine: number): string {
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += perLine) lines.push(pad(indent) + hex(bytes.subarray(i, i + perLine)));
  return `${lines.join(':\n')}\n`;
}

/** Named curves: the size of their order, and their NIST name. */
const CURVES: Record<string, { bits: number; nist: string | null }> = {
  prime192v1: { bits: 192, nist: 'P-192' },
  secp224r1: { bits: 224, nist: 'P-224' },
  prime256v1: { bits: 256, nist: 'P-256' },
  secp384r1: { bits: 384, nist: 'P-384' },
  secp521r1: { bits: 521, nist: 'P-521' },
  secp256k1: { bits: 256, nist: null },
};

/** The key part of `Subject Public Key Info`, at indent 16, as OpenSSL's text encoders write it. */
function publicKeyLines(algorithm: string, parameters: ArrayBuffer | null | undefined, keyBits: Buffer, key: KeyObject | null): string {
  const at = pad(16);
  if (key?.asymmetricKeyType === 'rsa' || key?.asymmetricKeyType === 'rsa-pss') {
    const jwk = key.export({ format: 'jwk' });
    const modulus = Buffer.from(jwk.n ?? '', 'base64url');
    const exponent = Buffer.from(jwk.e ?? '', 'base64url');
    return `${at}Public-Key: (${key.asymmetricKeyDetails?.modulusLength ?? modulus.length * 8} bit)\n${bignumLines('Modulus:', modulus, 16)}${bignumLines('Exponent:', exponent, 16)}`;
  }
  if (algorithm === '1.2.840.10045.2.1' && parameters) {
    const curve = oidShortName(parse(parameters, asn1Ecc().ECParameters).namedCurve ?? '');
    const known = CURVES[curve];
    if (!known) return `${pad(12)}Unable to load Public Key\n`;
    return `${at}Public-Key: (${known.bits} bit)\n${at}pub:\n${hexBlock(keyBits, 20, 15)}${at}ASN1 OID: ${curve}\n${known.nist ? `${at}NIST CURVE: ${known.nist}\n` : ''}`;
  }
  if (algorithm === '1.3.101.112' || algorithm === '1.3.101.113') {
    return `${at}${oidLongName(algorithm)} Public-Key:\n${at}pub:\n${hexBlock(keyBits, 20, 15)}`;
  }
  return `${pad(12)}Unable to load Public Key\n`;
}

/** ASN1_STRING_print: the bytes as text, `.` for anything but printable ASCII, CR and LF. */
function asTextBytes(bytes: Uint8Array): string {
  return [...bytes].map((b) => (b > 0x7e || (b < 0x20 && b !== 0x0a && b !== 0x0d) ? '.' : String.fromCharCode(b))).join('');
}

/** ossl_ipaddr_to_asc. */
function ipText(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.length === 16) return Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16).toUpperCase()).join(':');
  return `<invalid length=${bytes.length}>`;
}

/** A general name as i2v_GENERAL_NAME lists it (SAN, AIA): `DNS:…`, `DirName:/CN=…`. */
function generalNameValue(name: GeneralName): string {
  if (name.dNSName !== undefined) return `DNS:${name.dNSName}`;
  if (name.rfc822Name !== undefined) return `email:${name.rfc822Name}`;
  if (name.uniformResourceIdentifier !== undefined) return `URI:${name.uniformResourceIdentifier}`;
  if (name.iPAddress !== undefined) return `IP Address:${ipText(ipBytes(name.iPAddress))}`;
  if (name.directoryName !== undefined) return `DirName:${onelineName(nameEntries(name.directoryName))}`;
  if (name.registeredID !== undefined) return `Registered ID:${oidLongName(name.registeredID)}`;
  if (name.x400Address !== undefined) return 'X400Name:<unsupported>';
  if (name.ediPartyName !== undefined) return 'EdiPartyName:<unsupported>';
  return 'othername:<unsupported>';
}

/** A general name as GENERAL_NAME_print writes it (CRL distribution points): directory names in the text form. */
function generalNamePrint(name: GeneralName): string {
  if (name.directoryName !== undefined) return `DirName:${textName(nameEntries(name.directoryName))}`;
  if (name.registeredID !== undefined) return `Registered ID:${oidLongName(name.registeredID)}`;
  return generalNameValue(name);
}

/** The library gives an IP address as text; its bytes back, for OpenSSL's rendering. */
function ipBytes(text: string): Buffer {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(text)) return Buffer.from(text.split('.').map(Number));
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const groups = (s: string | null) => (s ? s.split(':').filter((g) => g !== '') : []);
  const before = groups(head);
  const after = groups(tail);
  const all = tail === null ? before : [...before, ...Array(8 - before.length - after.length).fill('0'), ...after];
  const out = Buffer.alloc(all.length * 2);
  all.forEach((g, i) => out.writeUInt16BE(Number.parseInt(g, 16) || 0, i * 2));
  return out;
}

const KEY_USAGES = ['Digital Signature', 'Non Repudiation', 'Key Encipherment', 'Data Encipherment', 'Key Agreement', 'Certificate Sign', 'CRL Sign', 'Encipher Only', 'Decipher Only'];
const NS_CERT_TYPES = ['SSL Client', 'SSL Server', 'S/MIME', 'Object Signing', 'Unused', 'SSL CA', 'S/MIME CA', 'Object Signing CA'];
const REASONS = ['Unused', 'Key Compromise', 'CA Compromise', 'Affiliation Changed', 'Superseded', 'Cessation Of Operation', 'Certificate Hold', 'Privilege Withdrawn', 'AA Compromise'];

/** The names of the bits set in a BIT STRING (ASN1_BIT_STRING_get_bit). */
function bitNames(bits: Uint8Array, names: readonly string[]): string[] {
  return names.filter((_, i) => ((bits[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0);
}

/** The DER of an extension's value. */
const extensionDer = (ext: Extension) => buf(ext.extnValue.buffer);

/** A BIT STRING's bits (its content after the unused-bits octet). */
function bitStringBits(der: Buffer): Buffer {
  return der.subarray(3, 2 + (der[1] ?? 0));
}

/** BIO_hex_string: `AA:BB:…`, `width` bytes a line, lines after the first at `indent`. */
function hexString(bytes: Uint8Array, indent: number, width: number): string {
  let out = '';
  bytes.forEach((b, i) => {
    if (i > 0 && i % width === 0) out += `\n${pad(indent)}`;
    out += b.toString(16).toUpperCase().padStart(2, '0') + (i < bytes.length - 1 ? ':' : '');
  });
  return out;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A timestamp in milliseconds as ASN1_GENERALIZEDTIME_print writes it with its fraction. */
function sctTime(ms: bigint): string {
  const d = new Date(Number(ms));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(Number(ms % 1000n)).padStart(3, '0')} ${d.getUTCFullYear()} GMT`;
}

const SCT_HASHES: Record<number, string> = { 1: 'MD5', 2: 'SHA1', 3: 'SHA224', 4: 'SHA256', 5: 'SHA384', 6: 'SHA512' };

/** SCT_get_signature_nid's name for a hash and signature algorithm pair. */
function sctSignatureName(hash: number, signature: number): string {
  const h = SCT_HASHES[hash];
  if (h === 'SHA256' && signature === 1) return 'sha256WithRSAEncryption';
  if (h === 'SHA256' && signature === 3) return 'ecdsa-with-SHA256';
  return `${hash.toString(16).toUpperCase().padStart(2, '0')}${signature.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** The signed certificate timestamps of a precertificate (RFC 6962 §3.3), as SCT_LIST_print writes them. */
function sctLines(der: Buffer, indent: number): string {
  const outer = derItem(der, 0);
  const list = der.subarray(outer.start, outer.end);
  const broken = () => new Error('not a list of signed certificate timestamps');
  if (outer.tag !== 0x04 || outer.end !== der.length || list.length < 2 || list.readUInt16BE(0) !== list.length - 2) throw broken();
  const items: string[] = [];
  for (let offset = 2; offset < list.length; ) {
    if (offset + 2 > list.length) throw broken();
    const length = list.readUInt16BE(offset);
    const sct = list.subarray(offset + 2, offset + 2 + length);
    if (sct.length !== length || length === 0) throw broken();
    offset += 2 + length;
    let text = `${pad(indent)}Signed Certificate Timestamp:\n${pad(indent + 4)}Version   : `;
    if (sct[0] !== 0) {
      items.push(`${text}unknown\n${pad(indent + 16)}${hexString(sct, indent + 16, 16)}`);
      continue;
    }
    if (sct.length < 47) throw broken();
    const extLength = sct.readUInt16BE(41);
    let at = 43 + extLength;
    if (at + 4 > sct.length) throw broken();
    const sigLength = sct.readUInt16BE(at + 2);
    if (at + 4 + sigLength !== sct.length) throw broken();
    text += 'v1 (0x0)';
    text += `\n${pad(indent + 4)}Log ID    : ${hexString(sct.subarray(1, 33), indent + 16, 16)}`;
    text += `\n${pad(indent + 4)}Timestamp : ${sctTime(sct.readBigUInt64BE(33))}`;
    text += `\n${pad(indent + 4)}Extensions: ${extLength === 0 ? 'none' : hexString(sct.subarray(43, 43 + extLength), indent + 16, 16)}`;
    text += `\n${pad(indent + 4)}Signature : ${sctSignatureName(sct[at], sct[at + 1])}`;
    at += 4;
    text += `\n${pad(indent + 4)}            ${hexString(sct.subarray(at, at + sigLength), indent + 16, 16)}`;
    items.push(text);
  }
  return items.join('\n');
}

/** A DisplayText as OpenSSL prints it with `%.*s`: its raw bytes, up to the first NUL (so a BMPString of Latin text shows nothing). */
function displayText(t: { ia5String?: string; visibleString?: string; bmpString?: string; utf8String?: string } | undefined): string {
  if (!t) return '';
  if (t.utf8String !== undefined) return t.utf8String.split('\0')[0];
  if (t.bmpString !== undefined) {
    const bytes = Buffer.from(t.bmpString, 'utf16le').swap16();
    const end = bytes.indexOf(0);
    return bytes.subarray(0, end === -1 ? bytes.length : end).toString('latin1');
  }
  return (t.ia5String ?? t.visibleString ?? '').split('\0')[0];
}

/** ASN1_GENERALIZEDTIME_print: `Nov 27 20:23:42 2006 GMT` from `20061127202342Z`. */
function generalizedTime(text: string): string {
  const m = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\.\d+)?(Z?)$/.exec(text);
  if (!m) return 'Bad time value';
  const [, year, month, day, hours, minutes, seconds, fraction, zulu] = m;
  return `${MONTHS[Number(month) - 1]} ${String(Number(day)).padStart(2, ' ')} ${hours}:${minutes}:${seconds}${fraction ?? ''} ${year}${zulu ? ' GMT' : ''}`;
}

/** The private key usage period (RFC 5280 §4.2.1.4, kept by older CAs): [0] and [1] GeneralizedTime. */
function usagePeriod(der: Buffer, indent: number): string {
  const seq = derItem(der, 0);
  const parts: string[] = [];
  for (let at = seq.start; at < seq.end; ) {
    const item = derItem(der, at);
    const time = generalizedTime(der.subarray(item.start, item.end).toString('latin1'));
    parts.push(`${(item.tag & 0x1f) === 0 ? 'Not Before' : 'Not After'}: ${time}`);
    at = item.end;
  }
  return pad(indent) + parts.join(', ');
}

function policyLines(der: Buffer, indent: number): string {
  const policies = parse(der, asn1X509().CertificatePolicies);
  return policies
    .map((policy) => {
      let text = `${pad(indent)}Policy: ${oidLongName(policy.policyIdentifier)}`;
      if (policy.policyQualifiers) {
        const inner = indent + 2;
        const qualifiers = policy.policyQualifiers.map((q) => {
          const value = buf(q.qualifier);
          if (q.policyQualifierId === '1.3.6.1.5.5.7.2.1') {
            const { start, end } = derItem(value, 0);
            return `${pad(inner)}CPS: ${value.subarray(start, end).toString('latin1')}`;
          }
          if (q.policyQualifierId === '1.3.6.1.5.5.7.2.2') {
            const notice = parse(value, asn1X509().UserNotice);
            const at = inner + 2;
            let noticeText = `${pad(inner)}User Notice:\n`;
            const ref: NoticeReference | undefined = notice.noticeRef;
            if (ref) {
              noticeText += `${pad(at)}Organization: ${displayText(ref.organization)}\n`;
              noticeText += `${pad(at)}Number${ref.noticeNumbers.length > 1 ? 's' : ''}: ${ref.noticeNumbers.join(', ')}`;
              if (notice.explicitText) noticeText += '\n';
            }
            if (notice.explicitText) noticeText += `${pad(at)}Explicit Text: ${displayText(notice.explicitText)}`;
            return noticeText;
          }
          return `${pad(inner + 2)}Unknown Qualifier: ${oidLongName(q.policyQualifierId)}`;
        });
        text += `\n${qualifiers.join('\n')}`;
      }
      return text;
    })
    .join('\n');
}

function distributionPointLines(der: Buffer, indent: number): string {
  const points = parse(der, asn1X509().CRLDistributionPoints);
  const gens = (names: GeneralName[]) => names.map((n) => `${pad(indent + 2)}${generalNamePrint(n)}`);
  const lines = points.flatMap((point) => {
    const out: string[] = [];
    const name = point.distributionPoint;
    if (name?.fullName) out.push(`${pad(indent)}Full Name:`, ...gens(name.fullName));
    else if (name?.nameRelativeToCRLIssuer) out.push(`${pad(indent)}Relative Name:`, `${pad(indent + 2)}${textName(nameEntries(new (asn1X509().Name)([name.nameRelativeToCRLIssuer])))}`);
    if (point.reasons) out.push(`${pad(indent)}Reasons:`, `${pad(indent + 2)}${bitNames(buf(point.reasons.value), REASONS).join(', ') || '<EMPTY>'}`);
    if (point.cRLIssuer) out.push(`${pad(indent)}CRL Issuer:`, ...gens(point.cRLIssuer));
    return out;
  });
  return lines.join('\n');
}

/** i2v lists: on one line joined with `, ` (or one a line for the multi-line extensions). */
const listed = (values: string[], indent: number, multiline: boolean) =>
  values.length === 0 ? `${pad(indent)}<EMPTY>\n` : multiline ? values.map((v) => pad(indent) + v).join('\n') : pad(indent) + values.join(', ');

/** The body of one extension at `indent`, or null when OpenSSL would not know how to print it. */
function extensionBody(ext: Extension, indent: number): string | null {
  const der = extensionDer(ext);
  switch (ext.extnID) {
    case '2.5.29.19': {
      const bc = parse(der, asn1X509().BasicConstraints);
      return listed([`CA:${bc.cA ? 'TRUE' : 'FALSE'}`, ...(bc.pathLenConstraint !== undefined ? [`pathlen:${bc.pathLenConstraint}`] : [])], indent, false);
    }
    case '2.5.29.15':
      parse(der, asn1X509().KeyUsage);
      return listed(bitNames(bitStringBits(der), KEY_USAGES), indent, false);
    case '2.16.840.1.113730.1.1':
      return listed(bitNames(bitStringBits(der), NS_CERT_TYPES), indent, false);
    case '2.5.29.37':
      return listed(parse(der, asn1X509().ExtendedKeyUsage).map(oidLongName), indent, false);
    case '2.5.29.14':
      return pad(indent) + hex(buf(parse(der, asn1X509().SubjectKeyIdentifier).buffer), ':', true);
    case '2.5.29.35': {
      const aki = parse(der, asn1X509().AuthorityKeyIdentifier);
      const values: string[] = [];
      const withNames = aki.authorityCertIssuer !== undefined || aki.authorityCertSerialNumber !== undefined;
      if (aki.keyIdentifier) values.push(`${withNames ? 'keyid:' : ''}${hex(buf(aki.keyIdentifier.buffer), ':', true)}`);
      for (const name of aki.authorityCertIssuer ?? []) values.push(generalNameValue(name));
      if (aki.authorityCertSerialNumber) values.push(`serial:${hex(magnitude(buf(aki.authorityCertSerialNumber)).bytes, ':', true)}`);
      return listed(values, indent, true);
    }
    case '2.5.29.17':
      return listed(parse(der, asn1X509().SubjectAlternativeName).map(generalNameValue), indent, false);
    case '2.5.29.18':
      return listed(parse(der, asn1X509().IssueAlternativeName).map(generalNameValue), indent, false);
    case '1.3.6.1.5.5.7.1.1':
    case '1.3.6.1.5.5.7.1.11': {
      const access = ext.extnID === '1.3.6.1.5.5.7.1.1' ? parse(der, asn1X509().AuthorityInfoAccessSyntax) : parse(der, asn1X509().SubjectInfoAccessSyntax);
      return listed(access.map((a) => `${oidLongName(a.accessMethod)} - ${generalNameValue(a.accessLocation)}`), indent, true);
    }
    case '2.5.29.31':
      return distributionPointLines(der, indent);
    case '2.5.29.16':
      return usagePeriod(der, indent);
    case '2.5.29.32':
      return policyLines(der, indent);
    case '1.3.6.1.4.1.11129.2.4.2':
      return sctLines(der, indent);
    case '1.3.6.1.5.5.7.1.24': {
      const features: string[] = [];
      const seq = derItem(der, 0);
      for (let at = seq.start; at < seq.end; ) {
        const item = derItem(der, at);
        const n = Number(BigInt(`0x${hex(der.subarray(item.start, item.end), '') || '0'}`));
        features.push(n === 5 ? 'status_request' : n === 17 ? 'status_request_v2' : String(n));
        at = item.end;
      }
      return listed(features, indent, false);
    }
    case '2.16.840.1.113730.1.13': {
      const { start, end } = derItem(der, 0);
      return pad(indent) + der.subarray(start, end).toString('latin1');
    }
    default:
      return null;
  }
}

function extensionsText(extensions: readonly Extension[]): string {
  if (extensions.length === 0) return '';
  let out = `${pad(8)}X509v3 extensions:\n`;
  for (const ext of extensions) {
    out += `${pad(12)}${oidLongName(ext.extnID)}: ${ext.critical ? 'critical' : ''}\n`;
    let body: string | null = null;
    try {
      body = extensionBody(ext, 16);
    } catch {
      body = null;
    }
    out += `${body ?? pad(16) + asTextBytes(extensionDer(ext))}\n`;
  }
  return out;
}

/** X509_signature_dump: 18 bytes a line at indent 8. */
function signatureDump(bytes: Uint8Array): string {
  return hexBlock(bytes, 8, 18);
}

/** The certificate's text, as `openssl x509 -text -noout` prints it. */
export function certificateText(x509: X509Certificate): string {
  const cert = parse(x509.raw, asn1X509().Certificate);
  const tbs = cert.tbsCertificate;
  const spki = tbs.subjectPublicKeyInfo;
  const key = x509.publicKey;
  // The BIT STRING's bytes past its unused-bits octet.
  const keyBits = Buffer.from(new Uint8Array(spki.subjectPublicKey));
  let text = 'Certificate:\n    Data:\n';
  text += `        Version: ${tbs.version + 1} (0x${tbs.version.toString(16)})\n`;
  text += serialLines(buf(tbs.serialNumber));
  text += `        Signature Algorithm: ${oidLongName(tbs.signature.algorithm)}\n`;
  text += `        Issuer: ${textName(nameEntries(tbs.issuer))}\n`;
  text += `        Validity\n            Not Before: ${x509.validFrom}\n            Not After : ${x509.validTo}\n`;
  text += `        Subject: ${textName(nameEntries(tbs.subject))}\n`;
  text += `        Subject Public Key Info:\n            Public Key Algorithm: ${oidLongName(spki.algorithm.algorithm)}\n`;
  text += publicKeyLines(spki.algorithm.algorithm, spki.algorithm.parameters, keyBits, key);
  text += extensionsText(tbs.extensions ?? []);
  text += `    Signature Algorithm: ${oidLongName(cert.signatureAlgorithm.algorithm)}\n    Signature Value:\n`;
  text += signatureDump(new Uint8Array(cert.signatureValue));
  return text;
}

/** The subject in OpenSSL's one-line form (`/CN=…`), as the platform shows it. */
export function certificateSubject(x509: X509Certificate): string {
  return onelineName(nameEntries(parse(x509.raw, asn1X509().Certificate).tbsCertificate.subject));
}

