// The built-in runner end to end: `quarry serve` starts it, a pushed configuration runs on it, and
// every job's status, log, artifacts, report, coverage and the pipeline's outcome are those the
// platform's runner would produce.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Instance, jobsByName, pipelines, startInstance, traceOf } from './runner-fixtures.ts';

const CONFIG = `
stages: [build, test, deploy]
variables:
  GREETING: hello
  SECRET_WORD: $MASKED_SECRET
build:
  stage: build
  script:
    - mkdir -p out vendor
    - echo "built $GREETING" > out/result.txt
    - echo "BUILD_VERSION=1.2.3" > build.env
    - echo "vendored" > vendor/lib.txt
    - echo "the secret is $MASKED_SECRET"
  artifacts:
    paths: [out/]
    reports:
      dotenv: build.env
  cache:
    key: deps-$CI_COMMIT_REF_SLUG
    paths: [vendor/]
unit:
  stage: test
  needs: [build]
  cache:
    key: deps-$CI_COMMIT_REF_SLUG
    paths: [vendor/]
    policy: pull
  script:
    - cat out/result.txt
    - cat vendor/lib.txt
    - echo "version $BUILD_VERSION"
    - printf '<testsuite name="unit"><testcase classname="a" name="ok" time="0.1"/><testcase classname="a" name="bad" time="0.2"><failure message="boom">trace</failure></testcase></testsuite>' > report.xml
    - echo "Coverage 87.5%"
  coverage: '/Coverage (\\d+\\.\\d+)%/'
  artifacts:
    reports:
      junit: report.xml
flaky:
  stage: test
  script:
    - echo "about to fail"
    - exit 7
  allow_failure: true
matrix:
  stage: test
  parallel:
    matrix:
      - TARGET: [linux, mac]
  script:
    - echo "target $TARGET"
deploy:
  stage: deploy
  when: manual
  script:
    - echo "deploying $CI_JOB_MANUAL"
later:
  stage: deploy
  when: delayed
  start_in: 1 second
  script:
    - echo "later"
child:
  stage: deploy
  trigger:
    include: child.yml
    strategy: depend
other:
  stage: deploy
  trigger:
    project: root/other
    strategy: depend
generate:
  stage: build
  script:
    - |
      cat > generated.yml <<'YAML'
      generated-job:
        script:
          - echo "made by $GENERATOR"
      YAML
  artifacts:
    paths: [generated.yml]
dynamic:
  stage: test
  needs: [generate]
  variables:
    GENERATOR: the generate job
  trigger:
    include:
      - artifact: generated.yml
        job: generate
    strategy: depend
`;

const CHILD = `
child-job:
  script:
    - echo "in the child pipeline $CI_PIPELINE_SOURCE"
`;

let instance: Instance;
before(async () => {
  instance = await startInstance({ QUARRY_BUILTIN_RUNNER: '1' });
});
after(async () => {
  await instance?.close();
});

test('serve starts the built-in runner: an online instance runner', async () => {
  const runner = await instance.until('the built-in runner', async () => {
    const res = await instance.api('GET', '/runners/all');
    return (res.body as any[]).find((r) => r.description === 'built-in runner' && r.online);
  });
  assert.equal(runner.is_shared, true);
  assert.equal(runner.runner_type, 'instance_type');
  assert.equal(runner.active, true);
});

test('a pushed configuration runs on the built-in runner: stages, needs, artifacts, cache, dotenv, junit, coverage, matrix, manual, delayed, child and multi-project pipelines', async () => {
  const other = await instance.pushProject('other', { '.gitlab-ci.yml': 'downstream-job:\n  script:\n    - echo "downstream of $CI_PIPELINE_SOURCE"\n' });
  // Its own push's pipeline first: a newer pipeline of a ref cancels the older ones, downstream ones too.
  await instance.until('the push pipeline of the other project', async () => ((await pipelines(instance, other.id))[0]?.status === 'success' ? true : undefined));
  const project = await instance.pushProject('app', { 'child.yml': CHILD, 'README.md': '# app\n', '.gitlab-ci.yml': CONFIG });
  const masked = await instance.api('POST', `/projects/${project.id}/variables`, { key: 'MASKED_SECRET', value: 'hunter2-very-secret', masked: true });
  assert.equal(masked.status, 201, masked.text);
  // The push's pipeline may have started before the variable existed: run a new one once the
  // push's has ended. Both trigger a pipeline downstream in the other project, and a newer
  // pipeline of a ref cancels the older ones there: the push's, if still running, could trigger
  // its downstream pipeline after the new one's and so cancel it.
  await instance.until('the push pipeline to end', async () => {
    const [push] = await pipelines(instance, project.id);
    return push && ['success', 'failed', 'canceled', 'skipped'].includes(push.status) ? true : undefined;
  }, 120_000);
  const run = await instance.api('POST', `/projects/${project.id}/pipeline`, { ref: 'main' });
  assert.equal(run.status, 201, run.text);
  const pipelineId = run.body.id;

  // Everything but the manual job runs; the manual one waits and does not block.
  const settled = await instance.until(
    'the pipeline to settle',
    async () => {
      const p = (await instance.api('GET', `/projects/${project.id}/pipelines/${pipelineId}`)).body;
      return ['success', 'failed', 'canceled'].includes(p.status) ? p : undefined;
    },
    120_000,
    // What was left, with the logs of the jobs not finished.
    async () => {
      const left = [...(await jobsByName(instance, project.id, pipelineId))].filter(([, j]) => !['success', 'failed', 'canceled', 'manual'].includes(j.status));
      const logs = await Promise.all(left.map(async ([name, j]) => `${name} (${j.status}):\n${await traceOf(instance, project.id, j.id)}`));
      return logs.join('\n');
    },
  );
  let jobs = await jobsByName(instance, project.id, pipelineId);
  const statuses = Object.fromEntries([...jobs].map(([name, j]) => [name, j.status]));
  assert.deepEqual(statuses, {
    build: 'success',
    generate: 'success',
    unit: 'success',
    flaky: 'failed',
    'matrix: [linux]': 'success',
    'matrix: [mac]': 'success',
    deploy: 'manual',
    later: 'success',
  }, JSON.stringify(statuses));
  assert.equal(settled.status, 'success');

  const build = jobs.get('build');
  const buildLog = await traceOf(instance, project.id, build.id);
  assert.match(buildLog, /Getting source from Git repository/);
  assert.match(buildLog, /the secret is \[MASKED\]/);
  assert.doesNotMatch(buildLog, /hunter2-very-secret/);
  const types = build.artifacts.map((a: any) => a.file_type);
  for (const type of ['archive', 'metadata', 'dotenv']) assert.ok(types.includes(type), `build has a ${type} artifact: ${types}`);
  const archived = await instance.api('GET', `/projects/${project.id}/jobs/${build.id}/artifacts/out/result.txt`);
  assert.equal(archived.status, 200);
  assert.equal(archived.text, 'built hello\n');

  const unit = jobs.get('unit');
  const unitLog = await traceOf(instance, project.id, unit.id);
  assert.match(unitLog, /\nbuilt hello\n/, 'the artifact of build reached unit');
  assert.match(unitLog, /\nvendored\n/, 'the cache of build reached unit');
  assert.match(unitLog, /\nversion 1\.2\.3\n/, 'the dotenv report of build reached unit');
  assert.equal(unit.coverage, 87.5);

  const flakyLog = await traceOf(instance, project.id, jobs.get('flaky').id);
  assert.match(flakyLog, /about to fail/);
  assert.match(flakyLog, /ERROR: Job failed: exit code 7/);
  assert.match(await traceOf(instance, project.id, jobs.get('matrix: [mac]').id), /\ntarget mac\n/);

  const report = await instance.api('GET', `/projects/${project.id}/pipelines/${pipelineId}/test_report`);
  assert.equal(report.status, 200);
  assert.equal(report.body.total_count, 2);
  assert.equal(report.body.failed_count, 1);
  assert.equal(report.body.success_count, 1);

  const bridges = await instance.api('GET', `/projects/${project.id}/pipelines/${pipelineId}/bridges`);
  const bridge = (bridges.body as any[]).find((b) => b.name === 'child');
  assert.equal(bridge.status, 'success');
  const childPipeline = bridge.downstream_pipeline;
  assert.equal(childPipeline.status, 'success');
  const childJobs = await jobsByName(instance, project.id, childPipeline.id);
  assert.match(await traceOf(instance, project.id, childJobs.get('child-job').id), /in the child pipeline parent_pipeline/);

  // A child pipeline made of a file the generate job wrote, with the bridge's variables.
  const dynamic = (bridges.body as any[]).find((b) => b.name === 'dynamic');
  assert.equal(dynamic.status, 'success');
  const generated = await jobsByName(instance, project.id, dynamic.downstream_pipeline.id);
  assert.match(await traceOf(instance, project.id, generated.get('generated-job').id), /\nmade by the generate job\n/);

  // A pipeline of the other project, source pipeline, its job run.
  const multi = (bridges.body as any[]).find((b) => b.name === 'other');
  assert.equal(multi.status, 'success');
  assert.equal(multi.downstream_pipeline.project_id, other.id);
  const downstreamJobs = await jobsByName(instance, other.id, multi.downstream_pipeline.id);
  assert.match(await traceOf(instance, other.id, downstreamJobs.get('downstream-job').id), /\ndownstream of pipeline\n/);

  // The manual job, played through the API, runs and the pipeline ends again.
  const played = await instance.api('POST', `/projects/${project.id}/jobs/${jobs.get('deploy').id}/play`);
  assert.equal(played.status, 200, played.text);
  await instance.until('the manual job', async () => {
    jobs = await jobsByName(instance, project.id, pipelineId);
    return jobs.get('deploy').status === 'success' ? true : undefined;
  });
  assert.match(await traceOf(instance, project.id, jobs.get('deploy').id), /deploying true/);
  const final = await instance.until('the pipeline to end again', async () => {
    const p = (await instance.api('GET', `/projects/${project.id}/pipelines/${pipelineId}`)).body;
    return p.status === 'success' ? p : undefined;
  });
  assert.equal(final.coverage, '87.50');
  // The first pipeline, made by the push, ran as well.
  assert.ok((await pipelines(instance, project.id)).length >= 2);
});
