// What the tags resource knows of releases: a tag's release as the tag entity shows it, read for a
// whole page of tags in one query, and the release that goes when its tag is deleted through the
// API (the platform's Tags::DestroyService destroys it too).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/** The Tag entity's `release` (the platform's Entities::TagRelease). */
export interface TagRelease {
  tag_name: string;
  description: string | null;
}

/** The releases of these tags of a project, by tag name. */
export async function releasesOfTags(db: Kysely<DB>, projectId: number, tags: readonly string[]): Promise<Map<string, TagRelease>> {
  if (tags.length === 0) return new Map();
  const rows = await db.selectFrom('releases').select(['tag', 'description']).where('project_id', '=', projectId).where('tag', 'in', [...new Set(tags)]).execute();
  return new Map(rows.map((r) => [r.tag, { tag_name: r.tag, description: r.description }]));
}

/** Deletes the release of a tag, with its links, milestones and evidences. */
export async function deleteReleaseOfTag(db: Kysely<DB>, projectId: number, tag: string): Promise<void> {
  await db.deleteFrom('releases').where('project_id', '=', projectId).where('tag', '=', tag).execute();
}
