// Certificates described as OpenSSL describes them, checked against the `openssl` command on
// certificates it made: the full text of `openssl x509 -text -noout` (keys RSA, EC and Ed25519;
// names with escapes, quotes, UTF-8 and several attributes in one RDN; the extensions web
// certificates carry, signed certificate timestamps included; one it does not know) and the
// subject in the one-line form; then the chain check and the key checks.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { type CertificateSet, certificates, opensslSubject, opensslText } from '../../test/fixtures/certificates.ts';
import { chainIsComplete, hasExplicitCurve, parseCertificate, parsePrivateKey, pemCertificates } from './certificates.ts';
import { certificateSubject, certificateText } from './x509-text.ts';

let certs: CertificateSet;
before(() => {
  certs = certificates();
});

/** A list of two signed certificate timestamps (RFC 6962), the second with extensions, as an OCTET STRING. */
function sctList(): string {
  const signature = '3044022048585f0ec49ea5a9f4df5e2f85ba3b4d6ae3cb9a0a4d5b2a2f7c9c6cb29b24c6022009f5f1e79e1d6ac0d1d6c3bdfbd9c0b9b4b7ad2d0ee55a29bc4d2a5a1e22a8f7';
  const sct = (logId: string, timestamp: string, ext = '') => {
    const body = `00${logId}${timestamp}${(ext.length / 2).toString(16).padStart(4, '0')}${ext}0403${(signature.length / 2).toString(16).padStart(4, '0')}${signature}`;
    return `${(body.length / 2).toString(16).padStart(4, '0')}${body}`;
  };
  const items = sct('e83ed0da3ef5063532e75728bc896bc903d3cbd1116beceb69e1777d6d06bd6e', '0000016a0f5c9c8a') + sct('a4b90990b418581487bb13a2cc67700a3c359804f91bdfb8e377cd0ec80ddc10', '0000016a0f5c9cd0', '0102030405');
  const list = `${(items.length / 2).toString(16).padStart(4, '0')}${items}`;
  return `0481${(list.length / 2).toString(16).padStart(2, '0')}${list}`;
}

/** A certificate with most extensions OpenSSL prints, and odd names. */
function richCertificate(): string {
  const config = [
    '[req]',
    'distinguished_name = dn',
    '[dn]',
    '[ext]',
    'subjectAltName = DNS:example.com, DNS:*.example.com, IP:10.0.0.1, IP:2001:db8::1, email:a@example.com, URI:https://example.com/x, dirName:dir_sect, RID:1.2.3.4',
    'issuerAltName = DNS:issuer.example.com',
    'keyUsage = critical, digitalSignature, keyEncipherment, keyCertSign',
    'extendedKeyUsage = serverAuth, clientAuth, codeSigning, 1.2.3.4.5',
    'basicConstraints = critical, CA:true, pathlen:2',
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid, issuer',
    'authorityInfoAccess = OCSP;URI:http://ocsp.example.com, caIssuers;URI:http://ca.example.com/ca.crt',
    'crlDistributionPoints = URI:http://crl.example.com/a.crl, URI:http://crl2.example.com/b.crl',
    'certificatePolicies = 2.23.140.1.2.1, @pol_sect',
    'nsComment = "Quarry test comment"',
    'nsCertType = server, client',
    'tlsfeature = status_request',
    '1.2.3.4.5.6 = ASN1:UTF8String:hello custom',
    `1.3.6.1.4.1.11129.2.4.2 = DER:${sctList()}`,
    '[dir_sect]',
    'C = DE',
    'O = Dir Org',
    'CN = dir name',
    '[pol_sect]',
    'policyIdentifier = 1.3.6.1.4.1.44947.1.1.1',
    'CPS.1 = "http://cps.example.com"',
    'userNotice.1 = @notice',
    '[notice]',
    'explicitText = "Explicit notice text"',
    'organization = "Notice Org"',
    'noticeNumbers = 1, 2',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(certs.dir, 'rich.cnf'), config);
  const subject = '/C=FR/ST=Île-de-France/O=Foo, Inc.+OU=R&D "x"/CN=a\\/b\\+c/L= lead#,trail /street=back\\\\slash/emailAddress=a@b.c/DC=org';
  certs.openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'rich.key', '-out', 'rich.pem', '-days', '400', '-utf8', '-subj', subject, '-config', 'rich.cnf', '-extensions', 'ext');
  return path.join(certs.dir, 'rich.pem');
}

function assertAsOpenssl(certFile: string) {
  const x509 = parseCertificate(fs.readFileSync(certFile, 'utf8'));
  assert.ok(x509);
  assert.equal(certificateText(x509), opensslText(certs, certFile));
  assert.equal(certificateSubject(x509), opensslSubject(certs, certFile));
}

describe('as OpenSSL prints them', () => {
  test('the fixtures: RSA, EC, expired, a chain', () => {
    for (const c of [certs.selfSigned, certs.ecSelfSigned, certs.expired, certs.root, certs.intermediate, certs.leaf]) assertAsOpenssl(c.certFile);
  });

  test('Ed25519, a version 1 certificate with a serial beyond a long', () => {
    certs.openssl('req', '-x509', '-newkey', 'ed25519', '-nodes', '-keyout', 'ed.key', '-out', 'ed.pem', '-days', '10', '-subj', '/CN=ed');
    assertAsOpenssl(path.join(certs.dir, 'ed.pem'));
    certs.openssl('x509', '-req', '-in', 'leaf.csr', '-signkey', 'leaf.key', '-out', 'v1.pem', '-days', '5', '-set_serial', '0x8fffffffffffffff');
    assertAsOpenssl(path.join(certs.dir, 'v1.pem'));
  });

  test('names that need escapes and quotes, and the extensions web certificates carry', () => {
    assertAsOpenssl(richCertificate());
  });
});

describe('checks', () => {
  test('the chain: complete when it reaches a self-signed certificate among those given, in any order', () => {
    const { leaf, intermediate, root } = certs;
    const now = new Date();
    const check = (...chain: (typeof leaf)[]) => chainIsComplete(parseCertificate(chain[0].cert)!, pemCertificates(chain.map((c) => c.cert).join('\n')), now);
    assert.equal(check(leaf, intermediate, root), true);
    assert.equal(check(leaf, root, intermediate), true);
    assert.equal(check(leaf, intermediate), false);
    assert.equal(check(leaf), false);
    assert.equal(check(certs.selfSigned), true);
    // Past the leaf's end, the chain no longer verifies.
    assert.equal(chainIsComplete(parseCertificate(leaf.cert)!, pemCertificates(leaf.cert + intermediate.cert + root.cert), new Date(Date.now() + 400 * 24 * 3600 * 1000)), false);
  });

  test('keys: private ones only; explicit curves seen in both encodings', () => {
    assert.ok(parsePrivateKey(certs.selfSigned.key));
    assert.equal(parsePrivateKey(certs.openssl('pkey', '-in', certs.selfSigned.keyFile, '-pubout')), null);
    assert.equal(parsePrivateKey('nope'), null);
    assert.equal(hasExplicitCurve(certs.explicitCurve.key), true);
    assert.equal(hasExplicitCurve(certs.openssl('pkcs8', '-topk8', '-nocrypt', '-in', certs.explicitCurve.keyFile)), true);
    assert.equal(hasExplicitCurve(certs.ecSelfSigned.key), false);
    assert.equal(hasExplicitCurve(certs.selfSigned.key), false);
  });
});
