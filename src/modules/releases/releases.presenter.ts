// Pure release → Release entity, link → Link entity (the platform's entities and ReleasePresenter,
// 14.x). Callers who may not download the code see neither the tag nor the commit, sources,
// evidences or paths, and read the name as "Release-<id>".
import type { ReleaseLinkRow, ReleaseRow } from '../../db/schema.ts';
import { presentCommit } from '../../domain/commit-entity.ts';
import { renderMarkdown } from '../../domain/markdown.ts';
import { escapePath } from '../../domain/urls.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import { presentMilestone } from '../milestones/milestones.presenter.ts';
import type { EvidenceSummary, MilestoneWithStats, ReleaseParts } from './releases.finder.ts';
import type { LinkJson, ReleaseJson } from './releases.schemas.ts';

/** Gitlab::Workhorse::ARCHIVE_FORMATS, in the platform's order. */
const ARCHIVE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;

export interface ReleaseView {
  baseUrl: string;
  projectWebUrl: string;
  /** The project's `path`, which names its archives. */
  projectPath: string;
  downloadCode: boolean;
  readMilestones: boolean;
  includeHtml: boolean;
  /** Whether the caller may update the release of this tag (its edit_url). */
  mayUpdate(tag: string): boolean;
  now: Date;
}

/** The release's page: its tag is one path segment (release%2F1.0). */
const releaseUrl = (projectWebUrl: string, tag: string) => `${projectWebUrl}/-/releases/${encodeURIComponent(tag)}`;
/** A web URL's path, for the relative paths of the entity. */
const pathOf = (url: string) => new URL(url).pathname.replace(/\/$/, '');
const seconds = (iso: string | Date) => Math.floor(new Date(iso).getTime() / 1000);

export function presentLink(link: ReleaseLinkRow, release: Pick<ReleaseRow, 'tag'>, projectWebUrl: string): LinkJson {
  const filepath = link.filepath;
  return {
    id: link.id,
    name: link.name,
    url: link.url,
    direct_asset_url: filepath === null ? link.url : `${releaseUrl(projectWebUrl, release.tag)}/downloads/${escapePath(filepath.replace(/^\//, ''))}`,
    external: !link.url.startsWith(projectWebUrl),
    link_type: link.link_type,
  };
}

function presentMilestoneWithStats(m: MilestoneWithStats, projectWebUrl: string, today: string) {
  return { ...presentMilestone(m, projectWebUrl, today), project_id: Number(m.project_id), issue_stats: { total: m.totalIssues, closed: m.closedIssues } };
}

function presentEvidence(e: EvidenceSummary, release: ReleaseRow, projectWebUrl: string) {
  return { sha: e.summary_sha, filepath: `${releaseUrl(projectWebUrl, release.tag)}/evidences/${e.id}.json`, collected_at: e.created_at };
}

function sources(release: ReleaseRow, view: ReleaseView) {
  const prefix = `${view.projectPath}-${release.tag.replace(/\//g, '-')}`;
  return ARCHIVE_FORMATS.map((format) => ({ format, url: `${view.projectWebUrl}/-/archive/${escapePath(`${release.tag}/${prefix}`)}.${format}` }));
}

export function presentRelease(release: ReleaseRow, parts: ReleaseParts, view: ReleaseView): ReleaseJson {
  const code = view.downloadCode;
  const author = release.author_id === null ? undefined : parts.authors.get(release.author_id);
  const commit = release.sha === null ? undefined : parts.commits.get(release.sha);
  const milestones = parts.milestones.get(release.id) ?? [];
  const links = (parts.links.get(release.id) ?? []).map((l) => presentLink(l, release, view.projectWebUrl));
  const self = releaseUrl(view.projectWebUrl, release.tag);
  const today = view.now.toISOString().slice(0, 10);
  return {
    name: code ? (release.name ?? release.tag) : `Release-${release.id}`,
    ...(code ? { tag_name: release.tag } : {}),
    description: release.description,
    ...(view.includeHtml ? { description_html: renderMarkdown(release.description) } : {}),
    created_at: release.created_at,
    released_at: release.released_at,
    ...(author ? { author: userBasicFields(author, view.baseUrl) } : {}),
    ...(code ? { commit: commit ? presentCommit(commit, view.projectWebUrl) : null } : {}),
    upcoming_release: seconds(release.released_at) > seconds(view.now),
    ...(milestones.length > 0 && view.readMilestones ? { milestones: milestones.map((m) => presentMilestoneWithStats(m, view.projectWebUrl, today)) } : {}),
    ...(code && commit ? { commit_path: `${pathOf(view.projectWebUrl)}/-/commit/${commit.id}` } : {}),
    ...(code ? { tag_path: `${pathOf(view.projectWebUrl)}/-/tags/${escapePath(release.tag)}` } : {}),
    assets: {
      count: links.length + (code ? ARCHIVE_FORMATS.length : 0),
      ...(code ? { sources: sources(release, view) } : {}),
      links,
    },
    ...(code ? { evidences: (parts.evidences.get(release.id) ?? []).map((e) => presentEvidence(e, release, view.projectWebUrl)) } : {}),
    _links: { self, ...(view.mayUpdate(release.tag) ? { edit_url: `${self}/edit` } : {}) },
  };
}
