// Expansion of `$VAR` / `${VAR}` / `%VAR%` between the variables of one list, as the platform's
// runner_variables does (Collection#sort_and_expand_all with keep_undefined): variables are taken in
// dependency order and each value is expanded with the values already expanded; references to
// unknown variables stay as written; when references form a cycle nothing is expanded.
import { expandString, referencedNames } from './expand-string.ts';

export interface VariableItem {
  key: string;
  value: string;
  /** Raw variables are never expanded. */
  raw?: boolean;
}

export function expandVariables<T extends VariableItem>(list: readonly T[]): T[] {
  const lastIndex = new Map<string, number>();
  list.forEach((item, index) => lastIndex.set(item.key, index));
  const order = dependencyOrder(list, lastIndex);
  if (order === null) return list.map((item) => ({ ...item }));

  // Final value per key, filled in dependency order. A variable that names itself sees the
  // definition before it (or stays as written), as the platform's sorted expansion does.
  const known = new Map<string, string>();
  const expandItem = (index: number): string => {
    const item = list[index];
    if (item.raw) return item.value;
    return expandString(item.value, (name) => {
      if (name === item.key) {
        for (let i = index - 1; i >= 0; i--) if (list[i].key === name) return list[i].value;
        return undefined;
      }
      return known.get(name);
    });
  };
  for (const key of order) known.set(key, expandItem(lastIndex.get(key) as number));
  return list.map((item, index) => ({
    ...item,
    value: lastIndex.get(item.key) === index ? (known.get(item.key) as string) : expandItem(index),
  }));
}

/** Keys with their dependencies first, or null on a cycle of two or more variables. */
function dependencyOrder(list: readonly VariableItem[], lastIndex: Map<string, number>): string[] | null {
  const edges = new Map<string, string[]>();
  for (const [key, index] of lastIndex) {
    const item = list[index];
    edges.set(key, item.raw ? [] : referencedNames(item.value).filter((name) => name !== key && lastIndex.has(name)));
  }
  const state = new Map<string, 1 | 2>();
  const order: string[] = [];
  for (const start of edges.keys()) {
    if (state.has(start)) continue;
    // Iterative depth-first search, so a long chain cannot exhaust the stack.
    const stack: Array<[string, number]> = [[start, 0]];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const next = edges.get(top[0])?.[top[1]++];
      if (next === undefined) {
        state.set(top[0], 2);
        order.push(top[0]);
        stack.pop();
      } else if (state.get(next) === 1) {
        return null;
      } else if (!state.has(next)) {
        state.set(next, 1);
        stack.push([next, 0]);
      }
    }
  }
  return order;
}
