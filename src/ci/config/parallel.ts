// `parallel: N` and `parallel: matrix` expanded into jobs named as the platform's Normalizer names
// them: "rspec 1/3" and "test: [ruby, 2.7]" (values joined by ", " in the order written).
import type { Parallel } from './types.ts';

export interface ParallelInstance {
  name: string;
  /** 1-based. */
  index: number;
  total: number;
  /** The matrix row's variables, in order. */
  variables: Array<[string, string]>;
}

export function expandParallel(name: string, parallel: Parallel | null): ParallelInstance[] | null {
  if (parallel === null) return null;
  if (typeof parallel === 'number') {
    return Array.from({ length: parallel }, (_, i) => ({ name: `${name} ${i + 1}/${parallel}`, index: i + 1, total: parallel, variables: [] }));
  }
  const rows: Array<Array<[string, string]>> = [];
  for (const row of parallel.matrix) {
    // The product of the row's value lists, the first key varying slowest.
    let combos: Array<Array<[string, string]>> = [[]];
    for (const [key, values] of Object.entries(row)) {
      combos = combos.flatMap((combo) => values.map((value) => [...combo, [key, value] as [string, string]]));
    }
    rows.push(...combos);
  }
  return rows.map((variables, i) => ({
    name: `${name}: [${variables.map(([, value]) => value).join(', ')}]`,
    index: i + 1,
    total: rows.length,
    variables,
  }));
}
