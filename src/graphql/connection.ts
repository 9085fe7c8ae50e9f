// Relay connections as the platform serves its lists: `nodes`, `edges { cursor node }`,
// `pageInfo { hasNextPage hasPreviousPage startCursor endCursor }` and `count`, paged with
// `first`/`after` (or `last`/`before`) on opaque cursors. The page is cut in the database by keyset:
// the cursor holds the values of the ordering columns of the row it names, and the next page is the
// rows after them, so a page costs one query however deep it is (count is a second one, run only
// when asked for).
import {
  type GraphQLFieldConfigArgumentMap,
  GraphQLBoolean,
  GraphQLError,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLList,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLString,
} from 'graphql';
import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';

/** The platform's largest page (and the size of a page when none is asked for). */
export const MAX_PAGE_SIZE = 100;

export const PageInfoType = new GraphQLObjectType({
  name: 'PageInfo',
  description: 'Information about pagination in a connection.',
  fields: {
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    startCursor: { type: GraphQLString },
    endCursor: { type: GraphQLString },
  },
});

/** The arguments of every connection field. */
export const connectionArgs: GraphQLFieldConfigArgumentMap = {
  after: { type: GraphQLString, description: 'Returns the elements in the list that come after the specified cursor.' },
  before: { type: GraphQLString, description: 'Returns the elements in the list that come before the specified cursor.' },
  first: { type: GraphQLInt, description: 'Returns the first _n_ elements from the list.' },
  last: { type: GraphQLInt, description: 'Returns the last _n_ elements from the list.' },
};

export interface ConnectionArgs {
  after?: string | null;
  before?: string | null;
  first?: number | null;
  last?: number | null;
}

/** What a connection field resolves to; `count` runs its query only when selected. */
export interface Connection<T> {
  nodes: T[];
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  count: () => Promise<number>;
}

const connectionTypes = new Map<string, GraphQLObjectType>();

/**
 * The `<Name>Connection` type (and its `<Name>Edge`) of a node type; one per name, so two fields
 * listing the same nodes share it.
 */
export function connectionType(nodeType: GraphQLObjectType, name = nodeType.name): GraphQLObjectType {
  const known = connectionTypes.get(name);
  if (known) return known;
  const node: GraphQLOutputType = nodeType;
  const edge = new GraphQLObjectType({
    name: `${name}Edge`,
    description: 'An edge in a connection.',
    fields: { cursor: { type: new GraphQLNonNull(GraphQLString) }, node: { type: node } },
  });
  const type = new GraphQLObjectType({
    name: `${name}Connection`,
    description: `The connection type for ${nodeType.name}.`,
    fields: {
      count: { type: new GraphQLNonNull(GraphQLInt), description: 'Total count of collection.' },
      edges: { type: new GraphQLList(edge) },
      nodes: { type: new GraphQLList(node) },
      pageInfo: { type: new GraphQLNonNull(PageInfoType) },
    },
  });
  connectionTypes.set(name, type);
  return type;
}

/** One ordering column: its name in the query, its direction, and its value in a row (never null). */
export interface KeyColumn<Row> {
  column: string;
  direction: 'asc' | 'desc';
  value: (row: Row) => string | number;
}

export interface KeysetQuery<Row> {
  // The rows of the list, filters applied, without order or limit. (Typed loosely: the helper adds
  // only ordering, keyset conditions and a limit, on columns the caller names.)
  query: SelectQueryBuilder<any, any, Row>;
  /** The ordering, the last column unique (the id). */
  keys: readonly KeyColumn<Row>[];
  /** The count of every row of the list (filters applied). */
  count: () => Promise<number>;
}

function encodeCursor(values: (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

function decodeCursor(cursor: string, width: number): (string | number)[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    values = null;
  }
  if (!Array.isArray(values) || values.length !== width || !values.every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw new GraphQLError('Please provide a valid cursor');
  }
  return values;
}

function pageSize(requested: number | null | undefined, name: string): number {
  if (requested === null || requested === undefined) return MAX_PAGE_SIZE;
  if (requested < 0) throw new GraphQLError(`Argument '${name}' on Field has an invalid value (${requested}). Expected type 'Int'.`);
  return Math.min(requested, MAX_PAGE_SIZE);
}

/** Rows strictly after (or before) the cursor's values in the given order. */
function beyond(keys: readonly { column: string; direction: 'asc' | 'desc' }[], values: (string | number)[], forward: boolean) {
  return (eb: ExpressionBuilder<any, any>) => {
    const alternatives = keys.map((key, i) => {
      const ascending = (key.direction === 'asc') === forward;
      const equalBefore = keys.slice(0, i).map((k, j) => eb(eb.ref(k.column), '=', values[j]));
      return eb.and([...equalBefore, eb(eb.ref(key.column), ascending ? '>' : '<', values[i])]);
    });
    return eb.or(alternatives);
  };
}

/**
 * One page of a list as a connection. `first`/`after` page forward; `last`/`before` backward from
 * the end (or from `before`). The rows come back in the list's order either way.
 */
export async function keysetConnection<Row>(list: KeysetQuery<Row>, args: ConnectionArgs): Promise<Connection<Row>> {
  const backward = (args.last !== null && args.last !== undefined) || ((args.first === null || args.first === undefined) && !!args.before && !args.after);
  const limit = backward ? pageSize(args.last, 'last') : pageSize(args.first, 'first');
  let query = list.query;
  if (args.after) query = query.where(beyond(list.keys, decodeCursor(args.after, list.keys.length), true));
  if (args.before) query = query.where(beyond(list.keys, decodeCursor(args.before, list.keys.length), false));
  for (const key of list.keys) {
    const ascending = (key.direction === 'asc') !== backward;
    query = query.orderBy(key.column, ascending ? 'asc' : 'desc');
  }
  const rows: Row[] = limit === 0 ? [] : ((await query.limit(limit + 1).execute()) as Row[]);
  const more = rows.length > limit;
  if (more) rows.pop();
  if (backward) rows.reverse();
  const cursorOf = (row: Row) => encodeCursor(list.keys.map((key) => key.value(row)));
  const edges = rows.map((node) => ({ cursor: cursorOf(node), node }));
  return {
    nodes: rows,
    edges,
    pageInfo: {
      hasNextPage: backward ? !!args.before : more,
      hasPreviousPage: backward ? more : !!args.after,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    count: list.count,
  };
}
