// The collector with a real SDK: @sentry/node, in a process of its own, sends to the DSN of a key
// of a server listening on a real port. Its exceptions arrive and are grouped, the session updates
// it sends along are accepted (the SDK logs no failed delivery), and the errors read back.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { createProject } from '../../../test/factories.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import type { ProjectRow } from '../../db/schema.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

let t: TestApp;
let project: ProjectRow;

before(async () => {
  ({ t } = await listeningTestApp());
  project = await createProject(t, { path: 'sdk-tracked' });
});
after(() => t.close());

// Two throws of one error from one place, and one of another between them (the SDK drops an
// event that repeats the one before), in a session; then flush. The SDK's
// own transport sends; a wrapper prints what each envelope held and the status it got back.
const SCRIPT = `
import * as Sentry from '@sentry/node';
const transport = (options) => {
  const inner = Sentry.makeNodeTransport(options);
  return { ...inner, send: async (envelope) => {
    const result = await inner.send(envelope);
    console.log('SENT', envelope[1].map((item) => item[0].type).join(','), result.statusCode);
    return result;
  } };
};
Sentry.init({ dsn: process.env.DSN, debug: true, environment: 'test', release: 'sdk-test@1.0.0', transport });
Sentry.startSession();
function loadUser(user) { return user.id; }
const report = (fn) => { try { fn(); } catch (error) { Sentry.captureException(error); } };
report(() => loadUser(undefined));
report(() => JSON.parse('{nope'));
report(() => loadUser(undefined));
Sentry.endSession();
await Sentry.flush(10000);
`;

function runSdk(dsn: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: ROOT, env: { ...process.env, DSN: dsn }, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(Object.assign(error, { stdout, stderr })) : resolve({ stdout, stderr }),
    );
  });
}

test('events from @sentry/node arrive at the DSN and are grouped', async () => {
  const base = `/api/v4/projects/${project.id}/error_tracking`;
  assert.equal((await t.put(`${base}/settings`, { token: ROOT_TOKEN, body: { active: true, integrated: true } })).statusCode, 200);
  const key = (await t.post(`${base}/client_keys`, { token: ROOT_TOKEN })).json();

  const { stdout, stderr } = await runSdk(key.tracker_dsn);
  const log = `${stdout}\n${stderr}`;
  if (process.env.SHOW_SDK_LOG) console.log(log);
  assert.doesNotMatch(log, /status code [45]\d\d|Error while sending|Transport disabled/i, log);
  const sent = [...log.matchAll(/^SENT (\S+) (\d+)$/gm)].map(([, items, status]) => ({ items, status }));
  assert.ok(sent.filter((s) => s.items.includes('event')).length >= 3, log);
  assert.ok(sent.some((s) => s.items.includes('session')), log);
  assert.ok(sent.every((s) => s.status === '200'), log);

  const errors = (await t.get(`${base}/errors`, { token: ROOT_TOKEN })).json();
  assert.equal(errors.length, 2, JSON.stringify(errors));
  const byName = Object.fromEntries(errors.map((e: { name: string }) => [e.name, e]));
  assert.equal(byName.TypeError.events_count, 2);
  assert.equal(byName.TypeError.platform, 'node');
  assert.match(byName.TypeError.description, /reading 'id'/);
  assert.match(byName.TypeError.actor, /loadUser/);
  assert.equal(byName.SyntaxError.events_count, 1);
  const detail = (await t.get(`${base}/errors/${byName.TypeError.id}`, { token: ROOT_TOKEN })).json();
  assert.equal(detail.latest_event.environment, 'test');
  assert.ok(detail.latest_event.stack_trace.some((f: { function: string | null }) => f.function === 'loadUser'));
});
