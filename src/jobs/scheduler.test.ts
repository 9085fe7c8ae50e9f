// The periodic-task scheduler: claims through the database, due times, failures, stopping; and
// the retention of activity events, driven by a test clock.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { type TestApp, createTestApp } from '../../test/harness.ts';
import type { Deps } from '../core/deps.ts';
import { recordEvent } from '../modules/events/events.service.ts';
import { PRUNE_EVENTS_BATCH, eventsCutoff, pruneOldEventsTask } from './prune-old-events.ts';
import { type PeriodicTask, claimRun, runDueTasks, startScheduler } from './scheduler.ts';
import { periodicTasks } from './tasks.ts';
import { atTime, systemContext } from '../core/context.ts';

let t: TestApp;
let clock = new Date('2024-06-15T12:00:00.000Z');

before(async () => {
  t = await createTestApp({}, { now: () => clock });
});
after(() => t.close());

function counting(name: string, everySeconds = 60): PeriodicTask & { runs: number } {
  const task = {
    name,
    everySeconds,
    runs: 0,
    async run() {
      task.runs += 1;
    },
  };
  return task;
}

describe('runDueTasks', () => {
  test('runs a new task at once, then again only once its interval has passed', async () => {
    const task = counting('tick-a', 60);
    assert.deepEqual(await runDueTasks(t.deps, [task]), ['tick-a']);
    assert.deepEqual(await runDueTasks(t.deps, [task]), []);
    clock = new Date(clock.getTime() + 59_000);
    assert.deepEqual(await runDueTasks(t.deps, [task]), []);
    clock = new Date(clock.getTime() + 1_000);
    assert.deepEqual(await runDueTasks(t.deps, [task]), ['tick-a']);
    assert.equal(task.runs, 2);
  });

  test('two nodes sharing the database: only one wins each due run', async () => {
    const task = counting('tick-b');
    const other: Deps = { ...t.deps };
    const claims = await Promise.all([claimRun(t.deps, task, clock), claimRun(other, task, clock), claimRun(t.deps, task, clock)]);
    assert.equal(claims.filter(Boolean).length, 1);
  });

  test('a failing task is logged and does not stop the others', async () => {
    const errors: unknown[] = [];
    const failing: PeriodicTask = {
      name: 'tick-fail',
      everySeconds: 60,
      async run() {
        throw new Error('boom');
      },
    };
    const next = counting('tick-c');
    const ran = await runDueTasks(t.deps, [failing, next], { info() {}, error: (obj) => errors.push(obj) });
    assert.deepEqual(ran, ['tick-fail', 'tick-c']);
    assert.equal(next.runs, 1);
    assert.equal(errors.length, 1);
  });
});

describe('startScheduler', () => {
  test('runs due tasks on start; stop waits for the task in progress', async () => {
    let release!: () => void;
    let finished = false;
    const slow: PeriodicTask = {
      name: 'tick-slow',
      everySeconds: 3600,
      async run() {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        finished = true;
      },
    };
    const stop = startScheduler(t.deps, { tasks: [slow], tickSeconds: 3600 });
    while (!release) await new Promise((r) => setImmediate(r));
    const stopped = stop();
    await new Promise((r) => setImmediate(r));
    assert.equal(finished, false);
    release();
    await stopped;
    assert.equal(finished, true);
  });

  test('the server registers event retention', () => {
    assert.ok(periodicTasks.includes(pruneOldEventsTask));
  });
});

describe('prune_old_events', () => {
  let author: number;
  before(async () => {
    author = (await t.user()).user.id;
  });
  beforeEach(async () => {
    await t.deps.db.deleteFrom('events').execute();
  });

  async function eventAt(at: Date): Promise<void> {
    await recordEvent(atTime(systemContext(t.deps), at), { projectId: null, authorId: author, action: 'created' });
  }

  test('the cutoff is 3 calendar years and a day back', () => {
    assert.equal(eventsCutoff(new Date('2024-06-15T12:00:00.000Z')).toISOString(), '2021-06-14T12:00:00.000Z');
  });

  test('deletes events older than the cutoff and keeps the rest', async () => {
    const cutoff = eventsCutoff(clock);
    await eventAt(new Date(cutoff.getTime() - 1));
    await eventAt(new Date(clock.getTime() - 37 * 30 * 86_400_000));
    await eventAt(cutoff);
    await eventAt(new Date(Date.UTC(clock.getUTCFullYear() - 3, clock.getUTCMonth(), clock.getUTCDate())));
    await eventAt(new Date(clock.getTime() - 86_400_000));
    await pruneOldEventsTask.run(t.deps);
    const left = await t.deps.db.selectFrom('events').select('created_at').orderBy('id').execute();
    assert.deepEqual(
      left.map((r) => r.created_at),
      [cutoff.toISOString(), new Date(Date.UTC(clock.getUTCFullYear() - 3, clock.getUTCMonth(), clock.getUTCDate())).toISOString(), new Date(clock.getTime() - 86_400_000).toISOString()],
    );
  });

  test(`deletes at most ${PRUNE_EVENTS_BATCH} events per run`, async () => {
    const old = new Date(eventsCutoff(clock).getTime() - 86_400_000).toISOString();
    const rows = Array.from({ length: PRUNE_EVENTS_BATCH + 5 }, () => ({ author_id: author, project_id: null, action: 'created', created_at: old, updated_at: old }));
    for (let i = 0; i < rows.length; i += 1000) await t.deps.db.insertInto('events').values(rows.slice(i, i + 1000)).execute();
    await pruneOldEventsTask.run(t.deps);
    assert.equal(await t.count('events'), 5);
    await pruneOldEventsTask.run(t.deps);
    assert.equal(await t.count('events'), 0);
  });
});
