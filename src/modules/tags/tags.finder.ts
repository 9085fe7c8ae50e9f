// Reads of tags, from git: all of them with their commits in one process, kept while the
// repository's tags stay the same, and ordered as the platform orders them (Repository#tags_sorted_by, 14.x).
import { readRefsCached } from '../../git/ref-cache.ts';
import { type DetailedRef, listDetailedRefs } from '../../git/ref-details.ts';
import type { SORTS, TAG_ORDERS } from './tags.schemas.ts';
import { versionSort } from './version-order.ts';

export interface Tags {
  /** By name, in byte order. */
  list: readonly DetailedRef[];
  byName: ReadonlyMap<string, DetailedRef>;
}

const NO_TAGS: Tags = { list: [], byName: new Map() };

/** Ties in byte order of names, so that the order is total. */
const byName = (a: DetailedRef, b: DetailedRef) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));

/** The tagged commit's committed time; a tag of no commit counts as now, that is, after every commit. */
const updatedAt = (tag: DetailedRef) => tag.details?.committer.timestamp ?? Number.POSITIVE_INFINITY;

/** Every tag of the repository; a project without one (dir null) has none. Shared: not to be changed. */
export function readTags(dir: string | null): Promise<Tags> {
  if (dir === null) return Promise.resolve(NO_TAGS);
  return readRefsCached(dir, 'tag', 'tags', async () => {
    const list = await listDetailedRefs(dir, 'tag');
    return { list, byName: new Map(list.map((t) => [t.name, t])) };
  });
}

/** Every tag: by version-aware name, or by the committed date of the tagged commit. */
export async function listTags(dir: string | null, order: (typeof TAG_ORDERS)[number], sort: (typeof SORTS)[number]): Promise<readonly DetailedRef[]> {
  if (dir === null) return [];
  const ascending = await readRefsCached(dir, 'tag', `tags by ${order}`, async () => {
    const { list } = await readTags(dir);
    return order === 'name' ? versionSort(list, (t) => t.name) : [...list].sort((a, b) => updatedAt(a) - updatedAt(b) || byName(a, b));
  });
  return sort === 'asc' ? ascending : [...ascending].reverse();
}
