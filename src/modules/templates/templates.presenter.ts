// Pure: vendored and repository templates → the template entities, and a license's placeholders
// filled in as the platform fills them.
import type { License, Template, TemplatesListItem } from './templates.schemas.ts';
import type { VendoredLicense } from './vendored-templates.ts';

/** What fills a license's placeholders; an absent value leaves its placeholder as it is. */
export interface LicensePlaceholders {
  year: string;
  project?: string;
  fullname?: string;
}

// The platform's placeholder patterns: any of <…>, {…} or […] around the words (the GPL's
// "<one line to give the program's name and a brief idea of what it does.>" included).
const YEAR = /[<{[](year|yyyy)[>}\]]/gi;
const PROJECT = /[<{[](project|description|one\sline\s.+\swhat\sit\sdoes\.)[>}\]]/gi;
const FULLNAME = /[<{[](fullname|name\sof\s(author|copyright\sowner))[>}\]]/gi;

/**
 * The placeholders a request fills: its `project` and `fullname` (empty ones count as absent), the
 * holder defaulting to the caller's name, and the current year.
 */
export function licensePlaceholders(query: { project?: string; fullname?: string }, callerName: string | undefined, at: Date): LicensePlaceholders {
  return { year: String(at.getUTCFullYear()), project: query.project || undefined, fullname: query.fullname || callerName || undefined };
}

/** The license text with its placeholders filled, the year first, then the project, then the holder. */
export function fillLicense(content: string, values: LicensePlaceholders): string {
  // A function as replacement takes the value literally (no `$&` patterns).
  let text = content.replace(YEAR, () => values.year);
  if (values.project) text = text.replace(PROJECT, () => values.project as string);
  if (values.fullname) text = text.replace(FULLNAME, () => values.fullname as string);
  return text;
}

/** A license; its text as shipped (lists) or filled in (a single license). */
export function presentLicense(license: VendoredLicense, placeholders?: LicensePlaceholders): License {
  return {
    key: license.key,
    name: license.name,
    nickname: license.nickname,
    featured: license.featured,
    html_url: `http://choosealicense.com/licenses/${license.key}/`,
    source_url: null,
    description: license.description,
    conditions: license.conditions,
    permissions: license.permissions,
    limitations: license.limitations,
    content: placeholders ? fillLicense(license.content, placeholders) : license.content,
    popular: license.featured,
  };
}

/** A line of a list: templates are keyed by their name. */
export function presentTemplateName(name: string): TemplatesListItem {
  return { key: name, name };
}

export function presentTemplatesListItem(item: { key: string; name: string }): TemplatesListItem {
  return { key: item.key, name: item.name };
}

export function presentTemplate(template: { name: string; content: string }): Template {
  return { name: template.name, content: template.content };
}
