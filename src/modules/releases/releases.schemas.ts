// Releases and their asset links (the platform's releases and release links APIs, 14.x): the
// Release entity (lib/api/entities/release.rb), whose repository fields only callers who may
// download the code see, the Link, Evidence and MilestoneWithStats entities, and the parameters.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { CommitEntity } from '../../domain/commit-entity.ts';
import { milestoneFields } from '../milestones/milestones.schemas.ts';
import { userBasicFields } from '../users/users.schemas.ts';

export const LINK_TYPES = ['other', 'runbook', 'package', 'image'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export const LinkEntity = Entity({
  id: Type.Integer(),
  name: Type.String(),
  url: Type.String(),
  /** The release's permanent download URL of the asset when it has a filepath, else its url. */
  direct_asset_url: Type.String(),
  /** Whether the url leads outside the project. */
  external: Type.Boolean(),
  link_type: Type.String(),
});
export type LinkJson = Static<typeof LinkEntity>;

export const SourceEntity = Entity({ format: Type.String(), url: Type.String() });

export const EvidenceEntity = Entity({ sha: Type.String(), filepath: Type.String(), collected_at: Timestamp });

export const MilestoneWithStatsEntity = Entity({
  ...milestoneFields,
  project_id: Type.Integer(),
  issue_stats: Entity({ total: Type.Integer(), closed: Type.Integer() }),
});

export const ReleaseEntity = Entity({
  name: Type.String(),
  /** The fields marked "code" are shown only to callers who may download the code. */
  tag_name: Type.Optional(Type.String()),
  description: Nullable(Type.String()),
  /** Only with include_html_description=true. */
  description_html: Type.Optional(Type.String()),
  created_at: Timestamp,
  released_at: Timestamp,
  /** Absent once the author's account is gone. */
  author: Type.Optional(Entity(userBasicFields)),
  /** Code; null when the repository no longer has the commit. */
  commit: Type.Optional(Nullable(CommitEntity)),
  upcoming_release: Type.Boolean(),
  /** Absent without milestones, or for callers who may not read them. */
  milestones: Type.Optional(Type.Array(MilestoneWithStatsEntity)),
  /** Code. */
  commit_path: Type.Optional(Type.String()),
  /** Code. */
  tag_path: Type.Optional(Type.String()),
  assets: Entity({
    /** The links, and the sources for callers who see them. */
    count: Type.Integer(),
    /** Code. */
    sources: Type.Optional(Type.Array(SourceEntity)),
    links: Type.Array(LinkEntity),
  }),
  /** Code. */
  evidences: Type.Optional(Type.Array(EvidenceEntity)),
  _links: Entity({
    self: Type.String(),
    /** For callers who may update the release. */
    edit_url: Type.Optional(Type.String()),
  }),
});
export type ReleaseJson = Static<typeof ReleaseEntity>;

export const ProjectParams = Params({ id: IdOrPath });
/** `tag_name` is URL-encoded in the path (release%2F1.0). */
export const ReleaseParams = Params({ id: IdOrPath, tag_name: Type.String() });
/** The platform declares link_id a string: anything but a link's id is a 404. */
export const LinkParams = Params({ id: IdOrPath, tag_name: Type.String(), link_id: Type.String() });

export const RELEASE_ORDERS = ['released_at', 'created_at'] as const;
export const SORTS = ['asc', 'desc'] as const;

const includeHtml = { include_html_description: Type.Optional(Bool()) };

export const ListReleasesQuery = Params({
  ...PageParams,
  order_by: Type.Optional(OneOf(RELEASE_ORDERS, { default: 'released_at' })),
  sort: Type.Optional(OneOf(SORTS, { default: 'desc' })),
  ...includeHtml,
});
export const ShowReleaseQuery = Params(includeHtml);
export const ListLinksQuery = Params(PageParams);

/** A time in ISO 8601 or close to it; without a zone it is UTC. */
const ReleasedAt = Type.String({ format: 'date-time' });
/** Milestone titles: `milestones[]=a`, a JSON array or a comma-separated list. */
const MilestoneTitles = CommaList(Type.String());

export const AssetLinkParams = Params({
  name: Type.String(),
  url: Type.String(),
  filepath: Type.Optional(Type.String()),
  /** Not checked against the list here: the platform refuses an unknown type while saving (400). */
  link_type: Type.Optional(Type.String()),
});
export type AssetLinkParams = Static<typeof AssetLinkParams>;

export const CreateReleaseBody = Params({
  tag_name: Type.String(),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  /** What a tag that does not exist yet is made from: a branch, a tag or a commit id. */
  ref: Type.Optional(Type.String()),
  assets: Type.Optional(Params({ links: Type.Optional(Type.Array(AssetLinkParams)) })),
  milestones: Type.Optional(MilestoneTitles),
  released_at: Type.Optional(ReleasedAt),
});
export type CreateReleaseBody = Static<typeof CreateReleaseBody>;

export const UpdateReleaseBody = Params({
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  released_at: Type.Optional(ReleasedAt),
  /** An empty list takes every milestone off. */
  milestones: Type.Optional(MilestoneTitles),
});
export type UpdateReleaseBody = Static<typeof UpdateReleaseBody>;

export const CreateLinkBody = Params({
  name: Type.String(),
  url: Type.String(),
  filepath: Type.Optional(Type.String()),
  // 14.x declares no list and fails on an unknown type with a 500; later releases answer 400 so.
  link_type: Type.Optional(OneOf(LINK_TYPES)),
});
export type CreateLinkBody = Static<typeof CreateLinkBody>;

export const UpdateLinkBody = Params(
  {
    name: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
    filepath: Type.Optional(Type.String()),
    link_type: Type.Optional(OneOf(LINK_TYPES)),
  },
  { 'x-at-least-one-of': [['name', 'url']] },
);
export type UpdateLinkBody = Static<typeof UpdateLinkBody>;
