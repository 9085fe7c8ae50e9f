// Who may call the vulnerability and dependency routes, on private, internal and public projects:
// the security dashboard (vulnerabilities, their actions, creation from a finding) is for
// Developers and up, a Reporter or Guest who sees the project gets 403, someone who does not see
// it 404 (anonymous callers too: 403 on a public project); the dependency list is for whoever may
// read the code, signed in; a pipeline's security report summary (GraphQL) is the dashboard's too,
// null for other readers of the pipeline. Findings, vulnerabilities and scans are seeded in the
// database here (the pipelines that make them are exercised in security-reports.test.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Expectation, type MatrixWorld, ROLE_LEVEL, buildMatrixWorld, canSee, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { DependencyEntity, VulnerabilityDetailEntity, VulnerabilityEntity } from './vulnerabilities.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
const listed = new Map<number, number>();
let sequence = 0;

/** A finding of the project (with a vulnerability unless `free`); the ids. */
async function seed(projectId: number, free = false): Promise<{ findingId: number; vulnerabilityId: number | null }> {
  const { db } = t.deps;
  const now = new Date().toISOString();
  const n = ++sequence;
  const scanner = await db.insertInto('vulnerability_scanners').values({ project_id: projectId, external_id: `s-${n}`, name: 'Scanner', vendor: 'GitLab', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
  const identifier = await db
    .insertInto('vulnerability_identifiers')
    .values({ project_id: projectId, fingerprint: `f${String(n).padStart(39, '0')}`, external_type: 'cwe', external_id: String(n), name: `CWE-${n}`, url: null, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  let vulnerabilityId: number | null = null;
  if (!free) {
    const v = await db
      .insertInto('vulnerabilities')
      .values({ project_id: projectId, author_id: 1, title: `Finding ${n}`, description: null, state: 'detected', severity: 'high', severity_level: 6, confidence: 'medium', report_type: 'sast', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    vulnerabilityId = v.id;
  }
  const finding = await db
    .insertInto('vulnerability_occurrences')
    .values({
      project_id: projectId,
      scanner_id: scanner.id,
      primary_identifier_id: identifier.id,
      vulnerability_id: vulnerabilityId,
      report_type: 'sast',
      severity: 'high',
      confidence: 'medium',
      name: `Finding ${n}`,
      description: null,
      uuid: `00000000-0000-5000-8000-${String(n).padStart(12, '0')}`,
      project_fingerprint: '0'.repeat(40),
      location_fingerprint: '0'.repeat(40),
      metadata_version: '14.0.0',
      raw_metadata: '{}',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { findingId: finding.id, vulnerabilityId };
}

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) listed.set(project.id, (await seed(project.id)).vulnerabilityId as number);
});
after(() => t.close());

// Anonymous callers are refused by the ability: 404 where they cannot see the project, 403 where they can.
const dashboard = (success: number) => expectation({ auth: 'optional', success, minLevel: ACCESS.DEVELOPER });
const vulnerabilityRefusals = refusals('Project', { 404: { message: '404 Vulnerability Not Found' } });

test('GET projects/:id/vulnerabilities', async () => {
  await runMatrix(world, {
    expect: dashboard(200),
    errors: refusals('Project'),
    call: (c) => t.get(`/api/v4/projects/${c.project.id}/vulnerabilities`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), VulnerabilityEntity),
  });
});

test('POST projects/:id/vulnerabilities', async () => {
  await runMatrix(world, {
    expect: dashboard(201),
    errors: refusals('Project'),
    call: async (c) => t.post(`/api/v4/projects/${c.project.id}/vulnerabilities`, { token: c.caller.token, query: { finding_id: String((await seed(c.project.id, true)).findingId) } }),
    verify: (res) => expectEntity(res.json(), VulnerabilityEntity),
  });
});

test('GET vulnerabilities/:id', async () => {
  await runMatrix(world, {
    expect: dashboard(200),
    errors: vulnerabilityRefusals,
    call: (c) => t.get(`/api/v4/vulnerabilities/${listed.get(c.project.id)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), VulnerabilityDetailEntity),
  });
});

for (const action of ['confirm', 'resolve', 'dismiss', 'revert']) {
  test(`POST vulnerabilities/:id/${action}`, async () => {
    await runMatrix(world, {
      expect: dashboard(201),
      errors: vulnerabilityRefusals,
      call: async (c) => {
        const { vulnerabilityId } = await seed(c.project.id);
        // A revert needs a vulnerability that is not detected already.
        if (action === 'revert') await t.deps.db.updateTable('vulnerabilities').set({ state: 'confirmed' }).where('id', '=', vulnerabilityId).execute();
        return t.post(`/api/v4/vulnerabilities/${vulnerabilityId}/${action}`, { token: c.caller.token });
      },
      verify: (res) => expectEntity(res.json(), VulnerabilityDetailEntity),
    });
  });
}

/** Signed-in readers of the code: Reporters of a private project, anyone who sees a public or internal one. */
const codeReaders: Expectation = (role, visibility) => {
  const base = expectation({ auth: 'required', success: 200 })(role, visibility);
  if (base === 200 && visibility === 'private' && role !== 'admin' && ROLE_LEVEL[role] < ACCESS.REPORTER) return 403;
  return base;
};

test('GET projects/:id/dependencies', async () => {
  await runMatrix(world, {
    expect: codeReaders,
    errors: refusals('Project'),
    call: (c) => t.get(`/api/v4/projects/${c.project.id}/dependencies`, { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), DependencyEntity),
  });
});

/** A pipeline of the project with a sast scan whose report could not be read; its iid. */
async function seedScan(projectId: number): Promise<number> {
  const { db } = t.deps;
  const now = new Date().toISOString();
  const pipeline = await db
    .insertInto('ci_pipelines')
    .values({ project_id: projectId, iid: 1, ref: 'main', sha: 'a'.repeat(40), before_sha: '0'.repeat(40), tag: false, protected: false, source: 'push', status: 'success', failure_reason: null, yaml_errors: null, user_id: 1, config_path: null, source_job_id: null, source_pipeline_id: null, source_project_id: null, trigger_id: null, schedule_id: null, duration: null, committed_at: null, started_at: null, finished_at: now, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const build = await db
    .insertInto('ci_builds')
    .values({
      pipeline_id: pipeline.id, project_id: projectId, type: 'build', name: 'semgrep-sast', stage: 'test', stage_idx: 0, status: 'success', ref: 'main', tag: false, protected: false, when: 'on_success', allow_failure: false,
      scheduling_type: 'stage', needs: null, options: '{}', yaml_variables: '[]', tag_list: '[]', coverage_regex: null, coverage: null, resource_group: null, environment: null, interruptible: false, retried: false,
      user_id: 1, runner_id: null, token_digest: null, failure_reason: null, exit_code: null, timeout: null, timeout_source: null, downstream_pipeline_id: null, target_url: null, description: null,
      artifacts_expire_at: null, erased_at: null, erased_by_id: null, scheduled_at: null, queued_at: null, started_at: null, finished_at: now, created_at: now, updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('security_scans')
    .values({ project_id: projectId, pipeline_id: pipeline.id, build_id: build.id, scan_type: 'sast', status: 'report_error', errors: JSON.stringify([{ type: 'ParsingError', message: 'JSON parsing failed' }]), created_at: now })
    .execute();
  return 1;
}

test('GraphQL project { pipeline(iid:) { securityReportSummary } }', async () => {
  for (const project of Object.values(world.projects)) await seedScan(project.id);
  const query = 'query($p: ID!) { project(fullPath: $p) { pipeline(iid: "1") { iid securityReportSummary { sast { scans { nodes { name status errors warnings } } } } } } }';
  const summary = { sast: { scans: { nodes: [{ name: 'semgrep-sast', status: 'REPORT_ERROR', errors: ['[ParsingError] JSON parsing failed'], warnings: [] }] } } };
  await runMatrix(world, {
    // A blocked account may not use the API at all (the endpoint's own test).
    except: ['blocked'],
    expect: () => 200,
    call: (c) => t.post('/api/graphql', { token: c.caller.token, body: { query, variables: { p: c.project.full_path } } }),
    verify: (res, c) => {
      // Whoever sees the project reads its pipelines (public jobs, the default); the summary is the security dashboard's.
      const dashboard = c.role === 'admin' || ROLE_LEVEL[c.role] >= ACCESS.DEVELOPER;
      const project = canSee(c.role, c.visibility) ? { pipeline: { iid: '1', securityReportSummary: dashboard ? summary : null } } : null;
      assert.deepEqual(res.json(), { data: { project } });
    },
  });
});
