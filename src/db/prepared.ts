// Statements that the hot lists run on every request, built and compiled by Kysely once. Kysely
// builds a query as a tree of frozen nodes and compiles the tree to SQL on every run: for the
// dozen statements of a page of issues or to-dos that was about a fifth of the request's CPU time,
// more than SQLite took to run them. A prepared query is built once per shape (below) and dialect,
// with a placeholder wherever an argument's value goes; each run puts the values in the compiled
// statement's parameters and hands it to Kysely's executor, as any other query (same connection,
// transaction, plugins and logging).
//
// The builder sees placeholders, not values: it must pass its arguments to Kysely as values only
// (`where(column, '=', arg)`, `where(column, 'in', list)`, `${arg}` in sql``) and never branch on
// them; a list's length is fine (it is part of the shape). An argument that reaches no parameter
// is refused when the shape is compiled. Booleans and absent (undefined) arguments are part of the
// shape too: the builder sees them as they are and may branch on them (an optional filter, the
// kind of reader a visibility test is written for).
import { type Compilable, type CompiledQuery, type DialectAdapter, type Kysely, type RootOperationNode, createQueryId } from 'kysely';
import type { DB } from './schema.ts';

/** Where an argument goes: argument `arg`, or item `item` of list argument `arg`. */
class Slot {
  readonly arg: number;
  readonly item: number;
  constructor(arg: number, item: number) {
    this.arg = arg;
    this.item = item;
  }
}

type Argument = string | number | boolean | null | undefined | readonly (string | number)[];

/** Arguments the builder sees as they are: they choose the shape rather than fill it. */
const isShapeArgument = (arg: Argument): arg is boolean | undefined => arg === undefined || typeof arg === 'boolean';

interface Shape {
  /** The built query, which the executor's plugins and the metrics' statement kinds read. */
  query: RootOperationNode;
  sql: string;
  /** A parameter's constant value, or the slot its value comes from. */
  parameters: readonly unknown[];
}

/** Shapes kept per dialect (list lengths up to a page's 100, so few in practice). */
const MAX_SHAPES = 256;

export type PreparedQuery<A extends readonly Argument[], O> = (db: Kysely<DB>, ...args: A) => Promise<O[]>;

/** A query built by `build` once per shape and dialect; calling it runs the query with these arguments. */
export function prepared<A extends readonly Argument[], O>(build: (db: Kysely<DB>, ...args: A) => Compilable<O>): PreparedQuery<A, O> {
  const shapes = new WeakMap<DialectAdapter, Map<string, Shape>>();

  function compile(db: Kysely<DB>, args: A): Shape {
    const slots: Slot[] = [];
    const placeholders = args.map((arg, i) => {
      if (isShapeArgument(arg)) return arg;
      if (!Array.isArray(arg)) return slots[slots.push(new Slot(i, -1)) - 1];
      return arg.map((_, j) => slots[slots.push(new Slot(i, j)) - 1]);
    }) as unknown as A;
    let compiled;
    try {
      compiled = build(db, ...placeholders).compile();
    } catch (error) {
      throw new Error('prepared query: the builder failed on placeholders (is an argument used other than as a bound value?)', { cause: error });
    }
    const { query, sql, parameters } = compiled;
    const used = new Set(parameters.filter((p) => p instanceof Slot));
    if (slots.some((slot) => !used.has(slot))) throw new Error(`prepared query: an argument is not a bound value in ${sql}`);
    return { query, sql, parameters };
  }

  return async (db: Kysely<DB>, ...args: A): Promise<O[]> => {
    const { adapter } = db.getExecutor();
    let byShape = shapes.get(adapter);
    if (!byShape) shapes.set(adapter, (byShape = new Map()));
    let key = '';
    for (const arg of args) key += Array.isArray(arg) ? `${arg.length},` : arg === undefined ? 'u,' : arg === true ? 't,' : arg === false ? 'f,' : '.,';
    let shape = byShape.get(key);
    if (!shape) {
      shape = compile(db, args);
      if (byShape.size >= MAX_SHAPES) byShape.delete(byShape.keys().next().value as string);
      byShape.set(key, shape);
    }
    const parameters = shape.parameters.map((p) => (p instanceof Slot ? (p.item < 0 ? args[p.arg] : (args[p.arg] as readonly unknown[])[p.item]) : p));
    const run: CompiledQuery<O> = { query: shape.query, queryId: createQueryId(), sql: shape.sql, parameters };
    return (await db.executeQuery(run)).rows;
  };
}
