// Pure label → entity (Entities::Label, ProjectLabel and GroupLabel, 14.x), from the row and what
// the route loaded once for the page.
import { singleLineHtml } from '../../domain/single-line-html.ts';
import type { LabelExtras, StoredLabel } from './labels.finder.ts';
import type { GroupLabel, ProjectLabel } from './labels.schemas.ts';

export interface LabelView {
  extras: LabelExtras;
  externalUrl: string;
}

/** Dark text on a light colour (its channels adding up to more than 500), white otherwise. */
export function textColor(color: string): string {
  const hex = color.slice(1);
  const channels = hex.length === 3 ? [...hex].map((c) => parseInt(c + c, 16)) : [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const sum = channels.reduce((a, b) => a + (Number.isNaN(b) ? 0 : b), 0);
  return sum > 500 ? '#333333' : '#FFFFFF';
}

/** The counts, when the list asked for them; otherwise the keys are left out. */
function counts(label: StoredLabel, extras: LabelExtras) {
  if (!extras.issueCounts || !extras.openMergeRequests) return {};
  const issues = extras.issueCounts.get(label.id);
  return {
    open_issues_count: issues?.opened ?? 0,
    closed_issues_count: issues?.closed ?? 0,
    open_merge_requests_count: extras.openMergeRequests.get(label.id) ?? 0,
  };
}

export function presentGroupLabel(label: StoredLabel, view: LabelView): GroupLabel {
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    description: label.description,
    description_html: label.description === null ? null : singleLineHtml(label.description, view.externalUrl),
    text_color: textColor(label.color),
    ...counts(label, view.extras),
    subscribed: view.extras.subscribed.has(label.id),
  };
}

export function presentProjectLabel(label: StoredLabel, view: LabelView): ProjectLabel {
  return { ...presentGroupLabel(label, view), priority: view.extras.priorities.get(label.id) ?? null, is_project_label: label.project_id !== null };
}
