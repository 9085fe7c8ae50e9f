// Security reports end to end: pipelines run by the built-in runner's code write sast, dependency
// scanning and license scanning reports as artifacts; a completed default-branch pipeline's
// findings become vulnerabilities (with the platform's UUIDs), later pipelines resolve and bring
// them back, a malformed report is a parsing error that changes nothing, and a branch pipeline
// keeps its findings to itself. Then the vulnerability actions, creation from a finding, the
// dependency list and the licenses under the project's policy.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type InProcessRunner, inProcessRunner } from '../../../test/ci/builtin-runner.ts';
import { addMember } from '../../../test/factories.ts';
import { type TestApp, type TestUser, ROOT_TOKEN } from '../../../test/harness.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { PipelineLicenseEntity, LicenseComplianceEntity, ManagedLicenseEntity } from '../managed-licenses/managed-licenses.schemas.ts';
import { SUPPORTED_SCHEMA_VERSIONS } from '../../ci/reports/security.ts';
import { DependencyEntity, VulnerabilityDetailEntity, VulnerabilityEntity } from './vulnerabilities.schemas.ts';

let t: TestApp;
let host: string;
let runner: InProcessRunner;
let owner: TestUser;
let reporter: TestUser;
let projectId: number;
let fullPath: string;

/** The platform's finding UUID, computed here from its documented algorithm: SHA-1 over the namespace's text and the name. */
function platformUuid(name: string): string {
  const bytes = createHash('sha1').update('58dc0f06-936c-43b3-93bb-71693f1b6570' + name).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const h = bytes.toString('hex');
  return [h.slice(0, 8), h.slice(8, 12), h.slice(12, 16), h.slice(16, 20), h.slice(20)].join('-');
}
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

const SCANNER = { id: 'semgrep', name: 'Semgrep', vendor: { name: 'GitLab' } };
const sastItem = (n: number, severity: string, line: number) => ({
  id: `sast-${n}`,
  category: 'sast',
  message: `Finding ${n}`,
  description: `Description ${n}`,
  cve: `semgrep_id:rule-${n}:${line}`,
  severity,
  confidence: 'Medium',
  scanner: { id: 'semgrep', name: 'Semgrep' },
  location: { file: 'app/main.py', start_line: line, end_line: line + 1 },
  identifiers: [
    { type: 'semgrep_id', name: `rule-${n}`, value: `rule-${n}` },
    { type: 'cwe', name: 'CWE-89', value: '89' },
  ],
});
const sastReport = (items: unknown[]) => JSON.stringify({ version: '14.0.4', vulnerabilities: items, scan: { scanner: SCANNER, type: 'sast', status: 'success' } });
const FULL_SAST = sastReport([sastItem(1, 'High', 10), sastItem(2, 'Low', 20)]);
const SHORT_SAST = sastReport([sastItem(1, 'High', 10)]);

const DS_REPORT = JSON.stringify({
  version: '14.0.4',
  vulnerabilities: [
    {
      id: 'ds-1',
      category: 'dependency_scanning',
      name: 'Prototype pollution',
      message: 'Prototype pollution in lodash',
      cve: 'package-lock.json:lodash:gemnasium:1',
      severity: 'Critical',
      confidence: 'Unknown',
      scanner: { id: 'gemnasium', name: 'Gemnasium' },
      location: { file: 'package-lock.json', dependency: { package: { name: 'lodash' }, version: '4.17.4' } },
      identifiers: [{ type: 'cve', name: 'CVE-2019-10744', value: 'CVE-2019-10744', url: 'https://nvd.nist.gov/vuln/detail/CVE-2019-10744' }],
    },
  ],
  dependency_files: [
    { path: 'package-lock.json', package_manager: 'npm', dependencies: [{ package: { name: 'lodash' }, version: '4.17.4' }, { package: { name: 'express' }, version: '4.17.1' }] },
    { path: 'requirements.txt', package_manager: 'pip', dependencies: [{ package: { name: 'django' }, version: '3.2.0' }] },
  ],
  scan: { scanner: { id: 'gemnasium', name: 'Gemnasium', vendor: { name: 'GitLab' } }, type: 'dependency_scanning', status: 'success' },
});

const LICENSE_REPORT = JSON.stringify({
  version: '2.1',
  licenses: [
    { id: 'MIT', name: 'MIT License', url: 'https://opensource.org/licenses/MIT' },
    { id: 'GPL-3.0', name: 'GNU General Public License v3.0', url: 'https://opensource.org/licenses/GPL-3.0' },
    { id: 'BSD-3-Clause', name: 'BSD 3-Clause', url: null },
  ],
  dependencies: [
    { name: 'lodash', version: '4.17.4', package_manager: 'npm', path: 'package-lock.json', licenses: ['MIT'] },
    { name: 'express', version: '4.17.1', package_manager: 'npm', path: 'package-lock.json', licenses: ['MIT'] },
    { name: 'readline', version: '1.0', package_manager: 'npm', path: 'package-lock.json', licenses: ['GPL-3.0'] },
  ],
});

const CONFIG = `
sast:
  script: [cp scans/sast.json gl-sast-report.json]
  artifacts:
    reports:
      sast: gl-sast-report.json
dependency_scanning:
  script: [cp scans/ds.json gl-dependency-scanning-report.json]
  artifacts:
    reports:
      dependency_scanning: gl-dependency-scanning-report.json
license_scanning:
  script: [cp scans/licenses.json gl-license-scanning-report.json]
  artifacts:
    reports:
      license_scanning: gl-license-scanning-report.json
`;

let committed = false;
/** Commits the reports (and the configuration, the first time) and runs the pipeline it makes; the pipeline. */
async function runPipeline(files: Record<string, string>, branch = 'main'): Promise<{ id: number; status: string }> {
  const all: Record<string, string> = committed ? files : { '.gitlab-ci.yml': CONFIG, 'scans/ds.json': DS_REPORT, 'scans/licenses.json': LICENSE_REPORT, ...files };
  const exists = committed;
  committed = true;
  const res = await t.post(`/api/v4/projects/${projectId}/repository/commits`, {
    token: owner.token,
    body: {
      branch,
      ...(branch !== 'main' ? { start_branch: 'main' } : {}),
      commit_message: 'reports',
      actions: Object.entries(all).map(([file_path, content]) => ({ action: exists ? 'update' : 'create', file_path, content })),
    },
  });
  expectStatus(res, 201);
  await runner.drain();
  await t.runJobs();
  const pipelines = (await t.get(`/api/v4/projects/${projectId}/pipelines`, { token: owner.token, query: { ref: branch } })).json();
  return pipelines[0];
}

const vulnerabilities = async (token = owner.token) => {
  const res = await t.get(`/api/v4/projects/${projectId}/vulnerabilities`, { token });
  expectStatus(res, 200);
  expectEntities(res.json(), VulnerabilityEntity);
  return res.json() as any[];
};
const byTitle = (list: any[], title: string) => list.find((v) => v.title === title);

before(async () => {
  ({ t, host } = await listeningTestApp());
  owner = await t.user();
  reporter = await t.user();
  const created = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'scanned', initialize_with_readme: true } });
  expectStatus(created, 201);
  projectId = created.json().id;
  fullPath = created.json().path_with_namespace;
  await t.runJobs();
  await addMember(t, { id: projectId } as never, reporter.user.id, ACCESS.REPORTER);
  const token = (await t.get(`/api/v4/projects/${projectId}`, { token: owner.token })).json().runners_token;
  runner = await inProcessRunner(t, host, token);
});
after(async () => {
  runner?.close();
  await t.close();
});

describe('findings of default-branch pipelines', () => {
  let first: { id: number; status: string };

  before(async () => {
    first = await runPipeline({ 'scans/sast.json': FULL_SAST });
  });

  test('each finding becomes a detected vulnerability, most severe first, with the platform UUID', async () => {
    assert.equal(first.status, 'success');
    const list = await vulnerabilities();
    assert.deepEqual(
      list.map((v) => [v.title, v.severity, v.state, v.report_type, v.resolved_on_default_branch]),
      [
        ['Prototype pollution in lodash', 'critical', 'detected', 'dependency_scanning', false],
        ['Finding 1', 'high', 'detected', 'sast', false],
        ['Finding 2', 'low', 'detected', 'sast', false],
      ],
    );
    const finding = byTitle(list, 'Finding 1').finding;
    const identifier = sha1('semgrep_id:rule-1');
    const location = sha1('app/main.py:10:11');
    assert.equal(finding.location_fingerprint, location);
    assert.equal(finding.project_fingerprint, sha1('semgrep_id:rule-1:10'));
    assert.equal(finding.uuid, platformUuid(`sast-${identifier}-${location}-${projectId}`));
    assert.equal(finding.metadata_version, '14.0.4');
    assert.equal(finding.confidence, 'medium');
    assert.deepEqual(JSON.parse(finding.raw_metadata), sastItem(1, 'High', 10));
    const ds = byTitle(list, 'Prototype pollution in lodash').finding;
    const dsLocation = sha1('package-lock.json:lodash');
    assert.equal(ds.uuid, platformUuid(`dependency_scanning-${sha1('cve:CVE-2019-10744')}-${dsLocation}-${projectId}`));
    assert.equal(ds.confidence, 'unknown');
    assert.equal(byTitle(list, 'Finding 1').project.id, projectId);
    assert.equal(byTitle(list, 'Finding 1').project_default_branch, 'main');
    assert.equal(byTitle(list, 'Finding 1').author_id, owner.user.id);
  });

  test('a finding no longer reported is resolved on the default branch; a malformed report changes nothing; it comes back', async () => {
    await runPipeline({ 'scans/sast.json': SHORT_SAST });
    let list = await vulnerabilities();
    assert.equal(list.length, 3);
    assert.equal(byTitle(list, 'Finding 2').resolved_on_default_branch, true);
    assert.equal(byTitle(list, 'Finding 1').resolved_on_default_branch, false);
    assert.equal(byTitle(list, 'Prototype pollution in lodash').resolved_on_default_branch, false);

    const broken = await runPipeline({ 'scans/sast.json': '{"version": "14.0.4", "vulnerabilities": [' });
    const scans = await t.deps.db.selectFrom('security_scans').selectAll().where('pipeline_id', '=', broken.id).where('scan_type', '=', 'sast').execute();
    assert.equal(scans.length, 1);
    assert.equal(scans[0].status, 'report_error');
    assert.deepEqual(JSON.parse(scans[0].errors), [{ type: 'ParsingError', message: 'JSON parsing failed' }]);
    list = await vulnerabilities();
    assert.equal(byTitle(list, 'Finding 2').resolved_on_default_branch, true);
    assert.equal(byTitle(list, 'Finding 1').resolved_on_default_branch, false);

    await runPipeline({ 'scans/sast.json': FULL_SAST });
    list = await vulnerabilities();
    assert.equal(list.length, 3);
    assert.equal(byTitle(list, 'Finding 2').resolved_on_default_branch, false);
  });

  test('a pipeline on another branch keeps its findings to itself', async () => {
    const branch = await runPipeline({ 'scans/sast.json': sastReport([sastItem(1, 'High', 10), sastItem(3, 'Medium', 30)]) }, 'feature');
    assert.equal(branch.status, 'success');
    const findings = await t.deps.db.selectFrom('security_findings').select(['name']).where('pipeline_id', '=', branch.id).where('report_type', '=', 'sast').orderBy('name').execute();
    assert.deepEqual(findings.map((f) => f.name), ['Finding 1', 'Finding 3']);
    const list = await vulnerabilities();
    assert.equal(list.length, 3);
    assert.equal(byTitle(list, 'Finding 3'), undefined);
  });
});

describe('report errors and warnings in the pipeline security report summary (GraphQL)', () => {
  const SUMMARY = `query($path: ID!, $iid: ID!) { project(fullPath: $path) { pipeline(iid: $iid) { iid status securityReportSummary {
    sast { vulnerabilitiesCount scans { count nodes { name status errors warnings } } }
    dependencyScanning { vulnerabilitiesCount scans { nodes { name status errors warnings } } }
    dast { vulnerabilitiesCount }
  } } } }`;
  const summaryOf = async (iid: string | number, token = owner.token) => {
    const res = await t.post('/api/graphql', { token, body: { query: SUMMARY, variables: { path: fullPath, iid: String(iid) } } });
    expectStatus(res, 200);
    assert.equal(res.json().errors, undefined, res.body);
    return res.json().data.project;
  };
  const oldItem = { ...sastItem(7, 'Medium', 70), location: undefined };
  const OLD_SAST = JSON.stringify({ version: '13.1.0', vulnerabilities: [sastItem(6, 'High', 60), oldItem], scan: { scanner: SCANNER, type: 'sast', status: 'success' } });
  const VERSION_MESSAGE = `[Schema] Version 13.1.0 for report type sast is unsupported, supported versions for this report type are: ${SUPPORTED_SCHEMA_VERSIONS.join(', ')}`;
  const MISSING_LOCATION = "[Schema] property '/vulnerabilities/1' is missing required keys: location";

  test('a truncated report and one without its required keys: report errors, nothing found, the other sections null', async () => {
    const ds = JSON.stringify({ version: '14.0.4', vulnerabilities: [], scan: { scanner: { id: 'gemnasium', name: 'Gemnasium' }, type: 'dependency_scanning', status: 'success' } });
    const pipeline = await runPipeline({ 'scans/sast.json': FULL_SAST.slice(0, 120), 'scans/ds.json': ds }, 'broken-reports');
    assert.equal(pipeline.status, 'success');
    const project = await summaryOf((pipeline as any).iid);
    assert.deepEqual(project.pipeline, {
      iid: String((pipeline as any).iid),
      status: 'SUCCESS',
      securityReportSummary: {
        sast: { vulnerabilitiesCount: 0, scans: { count: 1, nodes: [{ name: 'sast', status: 'REPORT_ERROR', errors: ['[ParsingError] JSON parsing failed'], warnings: [] }] } },
        dependencyScanning: { vulnerabilitiesCount: 0, scans: { nodes: [{ name: 'dependency_scanning', status: 'REPORT_ERROR', errors: ['[Schema] root is missing required keys: dependency_files'], warnings: [] }] } },
        dast: null,
      },
    });
  });

  test('an unknown schema version and an item without location: warnings, the rest read', async () => {
    const pipeline = await runPipeline({ 'scans/sast.json': OLD_SAST, 'scans/ds.json': DS_REPORT }, 'old-schema');
    const summary = (await summaryOf((pipeline as any).iid)).pipeline.securityReportSummary;
    assert.deepEqual(summary.sast, { vulnerabilitiesCount: 1, scans: { count: 1, nodes: [{ name: 'sast', status: 'SUCCEEDED', errors: [], warnings: [VERSION_MESSAGE, MISSING_LOCATION] }] } });
    assert.deepEqual(summary.dependencyScanning, { vulnerabilitiesCount: 1, scans: { nodes: [{ name: 'dependency_scanning', status: 'SUCCEEDED', errors: [], warnings: [] }] } });
  });

  test('a job that asks for schema validation has the same report refused', async () => {
    const validated = CONFIG.replace('sast:\n  script:', 'sast:\n  variables:\n    VALIDATE_SCHEMA: "true"\n  script:');
    const pipeline = await runPipeline({ '.gitlab-ci.yml': validated, 'scans/sast.json': OLD_SAST }, 'validated-schema');
    assert.equal(pipeline.status, 'success');
    const summary = (await summaryOf((pipeline as any).iid)).pipeline.securityReportSummary;
    assert.deepEqual(summary.sast, { vulnerabilitiesCount: 0, scans: { count: 1, nodes: [{ name: 'sast', status: 'REPORT_ERROR', errors: [VERSION_MESSAGE, MISSING_LOCATION], warnings: [] }] } });
  });

  test('the summary is the security dashboard\'s: a reporter gets null, a stranger no project; an unknown pipeline is null', async () => {
    const iid = (await t.get(`/api/v4/projects/${projectId}/pipelines`, { token: owner.token, query: { ref: 'broken-reports' } })).json()[0].iid;
    const asReporter = await summaryOf(iid, reporter.token);
    assert.equal(asReporter.pipeline.iid, String(iid));
    assert.equal(asReporter.pipeline.securityReportSummary, null);
    const stranger = await t.user();
    assert.equal(await summaryOf(iid, stranger.token), null);
    assert.equal((await summaryOf(999999)).pipeline, null);
    assert.equal((await summaryOf('not-a-number')).pipeline, null);
  });
});

describe('vulnerability actions', () => {
  let id: number;
  before(async () => {
    id = byTitle(await vulnerabilities(), 'Finding 1').id;
  });
  const act = (action: string, token = owner.token) => t.post(`/api/v4/vulnerabilities/${id}/${action}`, { token });

  test('GET a vulnerability: the single form', async () => {
    const res = await t.get(`/api/v4/vulnerabilities/${id}`, { token: owner.token });
    expectStatus(res, 200);
    expectEntity(res.json(), VulnerabilityDetailEntity);
    assert.deepEqual(res.json().project, { id: projectId, name: 'scanned', full_path: fullPath, full_name: res.json().project.full_name });
    assert.equal(res.json().state, 'detected');
    const missing = await t.get('/api/v4/vulnerabilities/999999', { token: owner.token });
    expectStatus(missing, 404);
    assert.deepEqual(missing.json(), { message: '404 Vulnerability Not Found' });
  });

  test('confirm, dismiss (closed), resolve, revert; 304 when already there; who and when recorded', async () => {
    let res = await act('confirm');
    expectStatus(res, 201);
    expectEntity(res.json(), VulnerabilityDetailEntity);
    assert.equal(res.json().state, 'confirmed');
    let row = await t.deps.db.selectFrom('vulnerabilities').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.confirmed_by_id, owner.user.id);
    assert.ok(row.confirmed_at);
    res = await act('confirm');
    assert.equal(res.statusCode, 304);
    assert.equal(res.body, '');

    res = await act('dismiss');
    expectStatus(res, 201);
    assert.equal(res.json().state, 'closed');
    assert.equal(res.json().closed_by_id, owner.user.id);
    assert.ok(res.json().closed_at);
    assert.equal((await act('dismiss')).statusCode, 304);
    const listed = byTitle(await vulnerabilities(), 'Finding 1');
    assert.equal(listed.state, 'closed');
    assert.equal(listed.dismissed_by_id, owner.user.id);

    res = await act('resolve');
    expectStatus(res, 201);
    assert.equal(res.json().state, 'resolved');
    assert.equal((await act('resolve')).statusCode, 304);
    assert.equal(byTitle(await vulnerabilities(), 'Finding 1').resolved_by_id, owner.user.id);

    res = await act('revert');
    expectStatus(res, 201);
    assert.equal(res.json().state, 'detected');
    assert.equal(res.json().closed_by_id, null);
    assert.equal((await act('revert')).statusCode, 304);
    row = await t.deps.db.selectFrom('vulnerabilities').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual([row.confirmed_by_id, row.resolved_by_id, row.dismissed_by_id, row.resolved_at], [null, null, null, null]);
  });

  test('a reporter may not act (403)', async () => {
    const res = await act('confirm', reporter.token);
    expectStatus(res, 403);
    assert.deepEqual(res.json(), { message: '403 Forbidden' });
  });
});

describe('a vulnerability made from a finding', () => {
  test('from a finding without one: 201 in the list form, opened, by the caller; again or unknown: 400', async () => {
    const vulnerability = byTitle(await vulnerabilities(), 'Finding 2');
    const findingId = vulnerability.finding.id;
    // A finding whose vulnerability is gone is free again.
    await t.deps.db.deleteFrom('vulnerabilities').where('id', '=', vulnerability.id).execute();
    const res = await t.post(`/api/v4/projects/${projectId}/vulnerabilities`, { token: ROOT_TOKEN, query: { finding_id: String(findingId) } });
    expectStatus(res, 201);
    expectEntity(res.json(), VulnerabilityEntity);
    assert.equal(res.json().state, 'opened');
    assert.equal(res.json().title, 'Finding 2');
    assert.equal(res.json().severity, 'low');
    assert.equal(res.json().confidence, 'medium');
    assert.equal(res.json().author_id, 1);
    assert.equal(res.json().finding.id, findingId);
    assert.equal(res.json().finding.vulnerability_id, res.json().id);
    const body = { message: { base: ['finding is not found or is already attached to a vulnerability'] } };
    for (const finding_id of [String(findingId), '999999']) {
      const again = await t.post(`/api/v4/projects/${projectId}/vulnerabilities`, { token: owner.token, query: { finding_id } });
      expectStatus(again, 400);
      assert.deepEqual(again.json(), body);
    }
    const missing = await t.post(`/api/v4/projects/${projectId}/vulnerabilities`, { token: owner.token });
    expectStatus(missing, 400);
    assert.deepEqual(missing.json(), { error: 'finding_id is missing' });
  });
});

describe('dependencies', () => {
  const get = (query: Record<string, string | string[]> = {}, token = owner.token) => t.get(`/api/v4/projects/${projectId}/dependencies`, { token, query });

  test('the latest default-branch dependency list, by name, with vulnerabilities for the security dashboard', async () => {
    const res = await get();
    expectStatus(res, 200);
    expectEntities(res.json(), DependencyEntity);
    assert.deepEqual(res.json(), [
      { name: 'django', version: '3.2.0', package_manager: 'pip', dependency_file_path: 'requirements.txt', vulnerabilities: [] },
      { name: 'express', version: '4.17.1', package_manager: 'npm', dependency_file_path: 'package-lock.json', vulnerabilities: [] },
      { name: 'lodash', version: '4.17.4', package_manager: 'npm', dependency_file_path: 'package-lock.json', vulnerabilities: [{ name: 'Prototype pollution in lodash', severity: 'critical' }] },
    ]);
    assert.equal(res.headers['x-total'], '3');
  });

  test('a reporter sees no vulnerabilities key', async () => {
    const res = await get({}, reporter.token);
    expectStatus(res, 200);
    expectEntities(res.json(), DependencyEntity);
    assert.ok(res.json().every((d: object) => !('vulnerabilities' in d)));
  });

  test('package_manager as an array or a comma list; an unknown one is 400; paginated', async () => {
    assert.deepEqual((await get({ package_manager: 'pip' })).json().map((d: any) => d.name), ['django']);
    assert.deepEqual((await get({ 'package_manager[]': ['npm', 'pip'] })).json().map((d: any) => d.name), ['django', 'express', 'lodash']);
    assert.deepEqual((await get({ package_manager: 'npm,yarn' })).json().map((d: any) => d.name), ['express', 'lodash']);
    const bad = await get({ package_manager: 'cargo' });
    expectStatus(bad, 400);
    assert.deepEqual(bad.json(), { error: 'package_manager does not have a valid value' });
    const page = await get({ per_page: '1', page: '2' });
    assert.deepEqual(page.json().map((d: any) => d.name), ['express']);
    assert.equal(page.headers['x-total-pages'], '3');
  });
});

describe('licenses under the project policy', () => {
  let pipelineId: number;
  before(async () => {
    pipelineId = (await t.get(`/api/v4/projects/${projectId}/pipelines`, { token: owner.token, query: { ref: 'main' } })).json()[0].id;
    for (const [name, approval_status] of [['MIT', 'approved'], ['GNU General Public License v3.0', 'blacklisted']]) {
      const res = await t.post(`/api/v4/projects/${projectId}/managed_licenses`, { token: owner.token, body: { name, approval_status } });
      expectStatus(res, 201);
      expectEntity(res.json(), ManagedLicenseEntity);
    }
  });

  test('the REST summary: a blacklisted license in use fails the policy', async () => {
    const res = await t.get(`/api/v4/projects/${projectId}/pipelines/${pipelineId}/licenses`, { token: reporter.token });
    expectStatus(res, 200);
    expectEntity(res.json(), LicenseComplianceEntity);
    const body = res.json();
    assert.deepEqual([body.status, body.approved, body.blacklisted, body.unclassified], ['failed', 1, 1, 1]);
    const mit = body.licenses.find((l: any) => l.spdx_identifier === 'MIT');
    assert.deepEqual(mit.classification.approval_status, 'approved');
    assert.deepEqual(mit.dependencies, [{ name: 'lodash' }, { name: 'express' }]);
    assert.equal(mit.count, 2);
  });

  test('a license report that cannot be read: the summary fails with its error, licenses.json lists what could be read', async () => {
    const broken = await runPipeline({ 'scans/licenses.json': LICENSE_REPORT.slice(0, 50) }, 'broken-licenses');
    const res = await t.get(`/api/v4/projects/${projectId}/pipelines/${broken.id}/licenses`, { token: reporter.token });
    expectStatus(res, 200);
    expectEntity(res.json(), LicenseComplianceEntity);
    assert.deepEqual(res.json(), { pipeline_id: broken.id, status: 'failed', approved: 0, blacklisted: 0, unclassified: 0, licenses: [], errors: ['JSON parsing failed'] });
    const json = await t.get(`/${fullPath}/-/pipelines/${broken.id}/licenses.json`, { token: owner.token });
    expectStatus(json, 200);
    assert.deepEqual(json.json(), []);
  });

  test('licenses.json where the platform serves it; 404 without a report or for a stranger', async () => {
    const res = await t.get(`/${fullPath}/-/pipelines/${pipelineId}/licenses.json`, { token: owner.token });
    expectStatus(res, 200);
    expectEntities(res.json(), PipelineLicenseEntity);
    assert.deepEqual(res.json().map((l: any) => [l.name, l.classification.approval_status]), [
      ['BSD 3-Clause', 'unclassified'],
      ['GNU General Public License v3.0', 'blacklisted'],
      ['MIT License', 'approved'],
    ]);
    const stranger = await t.user();
    expectStatus(await t.get(`/${fullPath}/-/pipelines/${pipelineId}/licenses.json`, { token: stranger.token }), 404);
    expectStatus(await t.get(`/${fullPath}/-/pipelines/999999/licenses.json`, { token: owner.token }), 404);
  });
});
