// Pipelines of real git pushes over HTTP: one per pushed branch or tag holding a configuration,
// `-o ci.skip` saving a skipped pipeline, `-o ci.variable="KEY=value"` reaching the jobs, and a
// runner cloning with its job token as `gitlab-ci-token`, the persistent ref included.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type GitCli, gitCli, gitUrl } from '../git-cli.ts';
import type { TestApp } from '../harness.ts';
import { listeningTestApp } from '../listening.ts';
import { ciProject } from './fixtures.ts';

let t: TestApp;
let host: string;
let git: GitCli;

before(async () => {
  ({ t, host } = await listeningTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' }));
  git = gitCli();
});
after(async () => {
  git.close();
  await t.close();
});

test('pushes make pipelines, push options skip them or add variables, and a job clones with its token', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  const project = (await t.get(`/api/v4/projects/${ci.projectId}`, { token: ci.owner.token })).json();
  await t.put(`/api/v4/projects/${ci.projectId}/protected_branches/main`, { token: ci.owner.token }).catch(() => undefined);
  const remote = gitUrl(host, project.path_with_namespace, { login: ci.owner.user.username, password: ci.owner.token });
  const dir = path.join(git.root, 'work');
  await git.ok(['clone', '--quiet', remote, dir]);
  await git.commit(dir, '.gitlab-ci.yml', 'build:\n  script: [x]\n', 'CI');
  await git.ok(['push', '--quiet', '-o', 'ci.skip', 'origin', 'HEAD:main'], dir);
  await t.runJobs();
  let [pipeline] = await ci.pipelines();
  assert.equal(pipeline.status, 'skipped');

  await git.commit(dir, 'a.txt', 'a', 'More');
  await git.ok(['push', '--quiet', '-o', 'ci.variable=DEPLOY=now', '-o', 'ci.variable=EMPTY=', 'origin', 'HEAD:main'], dir);
  await t.runJobs();
  [pipeline] = await ci.pipelines();
  assert.equal(pipeline.status, 'pending');
  const job = await ci.takeJob(runner);
  assert.ok(job);
  const vars = new Map((job.variables as { key: string; value: string }[]).map((v) => [v.key, v.value]));
  assert.equal(vars.get('DEPLOY'), 'now');
  assert.equal(vars.get('EMPTY'), '');

  // The runner's fetch: the persistent ref and the branch, with the job token.
  const info = job.git_info as { repo_url: string; refspecs: string[]; sha: string };
  const repoUrl = new URL(info.repo_url);
  const cloneUrl = gitUrl(host, project.path_with_namespace, { login: 'gitlab-ci-token', password: decodeURIComponent(repoUrl.password) });
  const build = path.join(git.root, 'build');
  await git.ok(['init', '--quiet', build]);
  await git.ok(['fetch', '--quiet', cloneUrl, ...info.refspecs], build);
  assert.equal((await git.ok(['rev-parse', `refs/pipelines/${pipeline.id}`], build)).trim(), info.sha);
  // A job token never pushes.
  const push = await git.run(['push', cloneUrl, `${info.sha}:refs/heads/from-job`], build);
  assert.notEqual(push.code, 0);

  await ci.finishJob(job, 'success');
  // Once the pipeline is done its persistent ref goes.
  const refs = await git.ok(['ls-remote', remote]);
  assert.doesNotMatch(refs, /refs\/pipelines\//);
});
