// What SQL a request runs: for tests that prove a query is (or is not) issued.
import type { TestApp } from './harness.ts';

type Executor = { executeQuery: (q: { sql: string }) => Promise<unknown> };

/**
 * The SQL of every statement the app's database runs while `call` runs, in order; with
 * `transactions`, those of the transactions opened meanwhile too (each runs on an executor of its
 * own, of the same class).
 */
export async function statementsDuring(t: TestApp, call: () => Promise<unknown>, options: { transactions?: boolean } = {}): Promise<string[]> {
  let target = t.deps.db.getExecutor() as unknown as Executor;
  if (options.transactions) while (!Object.hasOwn(target, 'executeQuery')) target = Object.getPrototypeOf(target);
  const original = target.executeQuery;
  const seen: string[] = [];
  target.executeQuery = function (q) {
    seen.push(q.sql);
    return original.call(this, q);
  };
  try {
    await call();
  } finally {
    target.executeQuery = original;
  }
  return seen;
}

/**
 * How many statements `call` costs: the fewest of a few runs, since a periodic check (the settings'
 * generation, read again every few seconds) may land in any one run on a slow machine. A query per
 * row still shows: it is in every run.
 */
export async function fewestStatementsDuring(t: TestApp, call: () => Promise<unknown>, runs = 3): Promise<number> {
  let fewest = Infinity;
  for (let i = 0; i < runs; i++) fewest = Math.min(fewest, (await statementsDuring(t, call)).length);
  return fewest;
}
