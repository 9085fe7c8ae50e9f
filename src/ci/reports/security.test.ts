// The report parsers and the finding UUID: the UUID against values computed by the platform's
// documented algorithm (Rails 6.1's uuid_v5 hashing the namespace's text), which an RFC 4122
// implementation does not give; malformed reports are errors, never exceptions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidV5 } from './finding-uuid.ts';
import { parseLicenseReport } from './license-scanning.ts';
import { SUPPORTED_SCHEMA_VERSIONS, parseSecurityReport } from './security.ts';

test('the UUID hashes the namespace as text, as the platform does, not as RFC 4122 bytes', () => {
  // SHA-1 over "58dc0f06-936c-43b3-93bb-71693f1b6570" + name, version 5 and variant bits set
  // (computed with Python's hashlib from the algorithm's description).
  assert.equal(uuidV5('sast-abc-def-1'), 'f9df0b95-2ed1-5539-bcbc-2b4eb45d5e7d');
  // What an RFC 4122 library (Python's uuid.uuid5) gives for the same namespace and name.
  assert.notEqual(uuidV5('sast-abc-def-1'), '028aa019-1c96-58b5-a2f9-463e72fdf848');
  assert.match(uuidV5('x'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('malformed security reports are errors of the platform\'s kinds, and give nothing', () => {
  for (const [type, content, error] of [
    ['sast', '{"version": "14.0.4", "vulnerabilities": [', { type: 'ParsingError', message: 'JSON parsing failed' }],
    ['sast', '[1, 2]', { type: 'ParsingError', message: 'Invalid report format' }],
    ['sast', '{"version": "14.0.0"}', { type: 'Schema', message: 'root is missing required keys: vulnerabilities' }],
    ['sast', '{"vulnerabilities": []}', { type: 'Schema', message: 'root is missing required keys: version' }],
    ['sast', '{"version": "14.0.0", "vulnerabilities": {}}', { type: 'Schema', message: "property '/vulnerabilities' is not of type: array" }],
    ['sast', '{"version": "fourteen", "vulnerabilities": []}', { type: 'Schema', message: "property '/version' does not match pattern: ^[0-9]+\\.[0-9]+\\.[0-9]+$" }],
    ['dependency_scanning', '{"version": "14.0.0", "vulnerabilities": []}', { type: 'Schema', message: 'root is missing required keys: dependency_files' }],
  ] as const) {
    const parsed = parseSecurityReport(type, content, 1);
    assert.deepEqual(parsed, { findings: [], dependencies: [], errors: [error], warnings: [] }, content);
  }
});

test('an unknown schema version and items left out are warnings; a job asking for validation makes them errors', () => {
  const item = { message: 'kept', scanner: { id: 's', name: 'S' }, location: { file: 'a', start_line: 1 }, identifiers: [{ type: 'cwe', name: 'CWE-1', value: '1' }] };
  const content = JSON.stringify({ version: '13.1.0', vulnerabilities: [item, { message: 'no location', scanner: { id: 's', name: 'S' }, identifiers: item.identifiers }] });
  const version = { type: 'Schema', message: `Version 13.1.0 for report type sast is unsupported, supported versions for this report type are: ${SUPPORTED_SCHEMA_VERSIONS.join(', ')}` };
  const missing = { type: 'Schema', message: "property '/vulnerabilities/1' is missing required keys: location" };
  const read = parseSecurityReport('sast', content, 1);
  assert.deepEqual(read.findings.map((f) => f.name), ['kept']);
  assert.deepEqual([read.errors, read.warnings], [[], [version, missing]]);
  const validated = parseSecurityReport('sast', content, 1, true);
  assert.deepEqual(validated, { findings: [], dependencies: [], errors: [version, missing], warnings: [] });
  assert.deepEqual(parseSecurityReport('sast', JSON.stringify({ version: '14.1.2', vulnerabilities: [item] }), 1, true).warnings, []);
});

test('items without identifiers or location are left out; severities and confidences outside the lists are unknown', () => {
  const parsed = parseSecurityReport(
    'sast',
    JSON.stringify({
      version: '14.0.0',
      vulnerabilities: [
        { message: 'no identifiers', scanner: { id: 's', name: 'S' }, location: { file: 'a' }, identifiers: [] },
        { message: 'kept', severity: 'Extreme', confidence: 'sure', scanner: { id: 's', name: 'S' }, location: { file: 'a', start_line: 3 }, identifiers: [{ type: 'cwe', name: 'CWE-1', value: '1' }] },
        'not an object',
      ],
    }),
    7,
  );
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(parsed.warnings.map((w) => w.message), ["property '/vulnerabilities/0' is not a valid finding: it needs an identifier with a type and a value, a location and a scanner", "property '/vulnerabilities/2' is not of type: object"]);
  assert.deepEqual(parsed.findings.map((f) => [f.name, f.severity, f.confidence]), [['kept', 'unknown', 'unknown']]);
});

test('license reports: version 2 by license id, version 1 inline, malformed ones an error', () => {
  const v2 = parseLicenseReport(JSON.stringify({ version: '2.1', licenses: [{ id: 'MIT', name: 'MIT License' }], dependencies: [{ name: 'a', licenses: ['MIT'] }, { name: 'b', licenses: ['Apache-2.0'] }] }));
  assert.deepEqual(v2.licenses.map((l) => [l.spdxIdentifier, l.name, l.dependencies.map((d) => d.name)]), [['Apache-2.0', 'Apache-2.0', ['b']], ['MIT', 'MIT License', ['a']]]);
  const v1 = parseLicenseReport(JSON.stringify({ licenses: [{ name: 'MIT', count: 1 }], dependencies: [{ license: { name: 'MIT' }, dependency: { name: 'x' } }] }));
  assert.deepEqual(v1.licenses.map((l) => [l.name, l.dependencies.length]), [['MIT', 1]]);
  assert.deepEqual(parseLicenseReport('nope').errors, ['JSON parsing failed']);
  assert.deepEqual(parseLicenseReport('[]').errors, ['License scanning report parsing failed']);
});
