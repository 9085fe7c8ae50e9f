// python-gitlab, a real client, against a listening server. The client comes from Debian's
// python3-gitlab package (.ci/run installs it); without it the test is skipped, not passed.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT_TOKEN, type TestApp } from './harness.ts';
import { listeningTestApp } from './listening.ts';
import { sshKey } from './fixtures/ssh-keys.ts';
import { certificates } from './fixtures/certificates.ts';
import { backgroundJobKinds } from '../src/jobs/kinds.ts';
import { startWorker } from '../src/jobs/worker.ts';
import { inProcessRunner } from './ci/builtin-runner.ts';

const PYTHON = '/usr/bin/python3';
const available = spawnSync(PYTHON, ['-c', 'import gitlab'], { encoding: 'utf8' }).status === 0;

let t: TestApp;
let url: string;

before(async () => {
  if (!available) return;
  ({ t, host: url } = await listeningTestApp());
});

after(async () => {
  if (t) await t.close();
});

/** Runs a client script with the server's URL, root's token and any further arguments. */
function runScript(script: string, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runScriptAt(url, script, ...args);
}

/** runScript against another server. */
function runScriptAt(host: string, script: string, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // A client that hangs is killed rather than holding the suite.
    const child = spawn(PYTHON, [path.join(import.meta.dirname, 'clients', script), host, ROOT_TOKEN, ...args], { timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const skip = available ? false : 'python3-gitlab is not installed';

test('python-gitlab: users, pagination, tokens, sudo, errors, groups, projects, members, events', { skip }, async () => {
  const run = await runScript('python_gitlab_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab and the git CLI: files, commits, tree, archive, branches, tags, protected branches, clone and push', { skip }, async () => {
  const run = await runScript('python_gitlab_repository_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: project and group deploy tokens, and a clone with one', { skip }, async () => {
  const run = await runScript('python_gitlab_deploy_tokens_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: license, gitignore, CI and Dockerfile templates, and a project\'s description templates', { skip }, async () => {
  const run = await runScript('python_gitlab_templates_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: issues, comments, labels', { skip }, async () => {
  const run = await runScript('python_gitlab_issues_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: project clusters, their management projects and refusals', { skip }, async () => {
  const run = await runScript('python_gitlab_clusters_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: project and group milestones, their issues, burndown events, promotion', { skip }, async () => {
  const run = await runScript('python_gitlab_milestones_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: SSH keys of users, look-ups by fingerprint, deploy keys', { skip }, async () => {
  const run = await runScript('python_gitlab_keys_check.py', ...[sshKey(), sshKey('rsa'), sshKey('ecdsa')].map((k) => k.text));
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: pages domains of a project and of the instance, certificates and keys, refusals', { skip }, async () => {
  const certs = certificates();
  const run = await runScript('python_gitlab_pages_check.py', t.deps.config.pagesDomain, certs.selfSigned.certFile, certs.selfSigned.keyFile, certs.ecSelfSigned.keyFile);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
  // The new domains' verification (no record: they stay unverified) runs with whatever else waits.
  const outcomes = await t.runJobs();
  assert.ok(outcomes.some((o) => o.kind === 'pages.verify_domain') && outcomes.every((o) => o.ok), JSON.stringify(outcomes));
});

test('python-gitlab: to-do items of issues and merge requests, listed, filtered, marked done one by one and all at once', { skip }, async () => {
  const run = await runScript('python_gitlab_todos_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: group and project invitations (invite several, list, change, withdraw, failures per address)', { skip }, async () => {
  const run = await runScript('python_gitlab_invitations_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
  // The invitations' mails go out (to the log: no mail server here) with whatever else waits.
  const outcomes = await t.runJobs();
  assert.ok(outcomes.some((o) => o.kind === 'invitations.send') && outcomes.every((o) => o.ok), JSON.stringify(outcomes));
});

test('python-gitlab: application settings read and changed, their refusals and effects, sign-ups approved', { skip }, async () => {
  const run = await runScript('python_gitlab_settings_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: merge requests, their commits, changes, comments, merge, pipelines and merging when the pipeline succeeds', { skip }, async () => {
  const worker = await startWorker(t.deps, { kinds: backgroundJobKinds, pollMs: 20 });
  try {
    const run = await runScript('python_gitlab_merge_requests_check.py');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'ok');
  } finally {
    await worker.stop();
  }
});

test('python-gitlab and a runner: pipelines from a push and the API, jobs taken, logged, played, canceled, retried; commit statuses', { skip }, async () => {
  // Pipelines move on as background work, which a worker of this test runs.
  const worker = await startWorker(t.deps, { kinds: backgroundJobKinds, pollMs: 20 });
  try {
    const run = await runScript('python_gitlab_ci_check.py');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'ok');
  } finally {
    await worker.stop();
  }
});

test('python-gitlab: project export (status, download) and import (status, override_params)', { skip }, async () => {
  // Exports and imports run as background work, which a worker of this test runs.
  const worker = await startWorker(t.deps, { kinds: backgroundJobKinds, pollMs: 20 });
  try {
    const run = await runScript('python_gitlab_import_export_check.py');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'ok');
  } finally {
    await worker.stop();
  }
});

test('python-gitlab: project, group and system hooks, their refusals', { skip }, async () => {
  const run = await runScript('python_gitlab_hooks_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: plan limits, a generic package over the limit, repository storage moves one by one and in bulk', { skip }, async () => {
  // A server of its own, with a second repository storage, and a worker that runs the moves.
  const own = await listeningTestApp({ QUARRY_REPOSITORY_STORAGES: 'default=repositories,second=second-repositories' });
  const worker = await startWorker(own.t.deps, { kinds: backgroundJobKinds, pollMs: 20 });
  try {
    const run = await runScriptAt(own.host, 'python_gitlab_limits_check.py');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'ok');
  } finally {
    await worker.stop();
    await own.t.close();
  }
});

test('python-gitlab: personal and project snippets, file actions, and a clone and push of a snippet over HTTP', { skip }, async () => {
  const run = await runScript('python_gitlab_snippets_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: project and group wikis, a wiki attachment, and a clone of the wiki over HTTP', { skip }, async () => {
  const run = await runScript('python_gitlab_wikis_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab and the git CLI: user status, email addresses, GPG keys, a pushed commit signed by GnuPG', { skip }, async () => {
  const run = await runScript('python_gitlab_user_profile_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: commit revert and cherry-pick, issue boards and lists, merge request approvals', { skip }, async () => {
  const run = await runScript('python_gitlab_boards_approvals_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: an alert assigned through GraphQL, the assignee’s to-do listed and done', { skip }, async () => {
  const run = await runScript('python_gitlab_alert_actions_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: group export (download) and import (gl.groups.import_group), under a parent too', { skip }, async () => {
  // Exports and imports run as background work, which a worker of this test runs.
  const worker = await startWorker(t.deps, { kinds: backgroundJobKinds, pollMs: 20 });
  try {
    const run = await runScript('python_gitlab_group_import_export_check.py');
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'ok');
  } finally {
    await worker.stop();
  }
});

test('python-gitlab: badges, notification settings, uploads, Markdown, Sidekiq metrics, project storage, broadcast messages, no license API', { skip }, async () => {
  const run = await runScript('python_gitlab_small_resources_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: issue and merge request discussions (diff threads, resolving), resource label, state and milestone events', { skip }, async () => {
  const run = await runScript('python_gitlab_discussions_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: OAuth applications registered, listed and deleted; a user signed in through the authorization-code flow', { skip }, async () => {
  const run = await runScript('python_gitlab_applications_check.py');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'ok');
});

test('python-gitlab: managed licenses, vulnerabilities from real pipelines and their state changes, dependencies, report errors', { skip }, async () => {
  // The findings come from pipelines the built-in runner's code runs here: a default-branch one
  // with sast, dependency scanning and license scanning reports, and a branch one whose sast
  // report is cut short; the script is given the project and the pipelines.
  const sast = (version: string) =>
    JSON.stringify({
      version,
      vulnerabilities: [
        {
          id: 'py-1', category: 'sast', message: 'SQL injection', description: 'Query built from input', cve: 'bandit:B608:app.py:4', severity: 'High', confidence: 'High',
          scanner: { id: 'bandit', name: 'Bandit' }, location: { file: 'app.py', start_line: 4, end_line: 4 }, identifiers: [{ type: 'bandit_test_id', name: 'B608', value: 'B608' }],
        },
      ],
      scan: { scanner: { id: 'bandit', name: 'Bandit', vendor: { name: 'GitLab' } }, type: 'sast', status: 'success' },
    });
  const ds = JSON.stringify({
    version: '14.0.4',
    vulnerabilities: [
      {
        id: 'py-2', category: 'dependency_scanning', message: 'ReDoS in minimist', cve: 'package-lock.json:minimist:gemnasium:1', severity: 'Medium', confidence: 'Unknown',
        scanner: { id: 'gemnasium', name: 'Gemnasium' }, location: { file: 'package-lock.json', dependency: { package: { name: 'minimist' }, version: '0.0.8' } },
        identifiers: [{ type: 'cve', name: 'CVE-2020-7598', value: 'CVE-2020-7598' }],
      },
    ],
    dependency_files: [
      { path: 'package-lock.json', package_manager: 'npm', dependencies: [{ package: { name: 'minimist' }, version: '0.0.8' }] },
      { path: 'Gemfile.lock', package_manager: 'bundler', dependencies: [{ package: { name: 'rails' }, version: '6.1.4' }] },
    ],
    scan: { scanner: { id: 'gemnasium', name: 'Gemnasium', vendor: { name: 'GitLab' } }, type: 'dependency_scanning', status: 'success' },
  });
  const licenses = JSON.stringify({
    version: '2.1',
    licenses: [{ id: 'MIT', name: 'MIT License', url: 'https://opensource.org/licenses/MIT' }, { id: 'AGPL-3.0', name: 'GNU Affero General Public License v3.0', url: null }],
    dependencies: [{ name: 'minimist', licenses: ['MIT'] }, { name: 'rails', licenses: ['MIT'] }, { name: 'copyleft', licenses: ['AGPL-3.0'] }],
  });
  const config = ['sast', 'dependency_scanning', 'license_scanning']
    .map((type) => `${type}:\n  script: [cp scans/${type}.json report.json]\n  artifacts:\n    reports:\n      ${type}: report.json\n`)
    .join('');
  const created = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'py-scanned', initialize_with_readme: true } });
  assert.equal(created.statusCode, 201, created.body);
  const project = created.json();
  await t.runJobs();
  const runner = await inProcessRunner(t, url, project.runners_token);
  try {
    const commit = async (branch: string, files: Record<string, string>, action: 'create' | 'update') => {
      const body = { branch, ...(branch === 'main' ? {} : { start_branch: 'main' }), commit_message: 'scan', actions: Object.entries(files).map(([file_path, content]) => ({ action, file_path, content })) };
      const res = await t.post(`/api/v4/projects/${project.id}/repository/commits`, { token: ROOT_TOKEN, body });
      assert.equal(res.statusCode, 201, res.body);
      await runner.drain();
      await t.runJobs();
      return (await t.get(`/api/v4/projects/${project.id}/pipelines`, { token: ROOT_TOKEN, query: { ref: branch } })).json()[0];
    };
    const main = await commit('main', { '.gitlab-ci.yml': config, 'scans/sast.json': sast('14.0.4'), 'scans/dependency_scanning.json': ds, 'scans/license_scanning.json': licenses }, 'create');
    const broken = await commit('broken', { 'scans/sast.json': sast('14.0.4').slice(0, 100) }, 'update');
    assert.deepEqual([main.status, broken.status], ['success', 'success']);
    const run = await runScript('python_gitlab_security_check.py', String(project.id), project.path_with_namespace, String(main.id), String(broken.iid));
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'ok');
  } finally {
    runner.close();
  }
});
