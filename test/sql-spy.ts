// What SQL a request runs: for tests that prove a query is (or is not) issued.
import type { TestApp } from './harness.ts';

/** The SQL of every statement the app's database runs while `call` runs, in order. */
export async function statementsDuring(t: TestApp, call: () => Promise<unknown>): Promise<string[]> {
  const executor = t.deps.db.getExecutor() as unknown as { executeQuery: (q: { sql: string }) => Promise<unknown> };
  const original = executor.executeQuery;
  const seen: string[] = [];
  executor.executeQuery = function (q) {
    seen.push(q.sql);
    return original.call(this, q);
  };
  try {
    await call();
  } finally {
    executor.executeQuery = original;
  }
  return seen;
}
