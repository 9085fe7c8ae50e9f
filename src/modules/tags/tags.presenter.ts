// Pure tag → tag entity, from what the route loaded once for the whole list.
import type { DetailedRef } from '../../git/ref-details.ts';
import { presentCommit } from '../../domain/commit-entity.ts';
import { type RefProtections, isProtectedTag } from '../../domain/ref-protection.ts';
import type { TagRelease } from '../../domain/releases.ts';
import type { Tag } from './tags.schemas.ts';

export interface TagView {
  protections: RefProtections;
  projectWebUrl: string;
  /** The releases of the tags shown, by tag name. */
  releases: ReadonlyMap<string, TagRelease>;
}

export function presentTag(tag: DetailedRef, view: TagView): Tag {
  return {
    name: tag.name,
    message: tag.tag?.message ?? null,
    target: tag.target,
    commit: tag.details && presentCommit(tag.details, view.projectWebUrl, tag.details.trailers),
    release: view.releases.get(tag.name) ?? null,
    protected: isProtectedTag(view.protections, tag.name),
  };
}
