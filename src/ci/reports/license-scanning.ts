// License scanning report artifacts (gl-license-scanning-report.json) read as the platform's
// parser reads them: version 2 lists licenses (`id`, `name`, `url`) and dependencies naming their
// licenses by id; version 1 names each dependency's license (or licenses) inline. Either way the
// result is the licenses found, each with the dependencies under it. A report that cannot be read
// is an error (in the platform's parser's words), never an exception.
export interface ReportLicense {
  /** The SPDX identifier, when the report gives one. */
  spdxIdentifier: string | null;
  name: string;
  url: string | null;
  dependencies: { name: string }[];
}

export interface ParsedLicenseReport {
  licenses: ReportLicense[];
  errors: string[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

class Licenses {
  private readonly byKey = new Map<string, ReportLicense>();

  add(spdxIdentifier: string | null, name: string, url: string | null): ReportLicense {
    const key = (spdxIdentifier ?? name).toLowerCase();
    let license = this.byKey.get(key);
    if (!license) {
      license = { spdxIdentifier, name, url, dependencies: [] };
      this.byKey.set(key, license);
    }
    return license;
  }

  get(key: string): ReportLicense | undefined {
    return this.byKey.get(key.toLowerCase());
  }

  list(): ReportLicense[] {
    return [...this.byKey.values()].sort((a, b) => a.name.localeCompare(b.name) || a.name.length - b.name.length);
  }
}

function parseVersion2(report: Record<string, unknown>): ReportLicense[] {
  const licenses = new Licenses();
  for (const item of Array.isArray(report.licenses) ? report.licenses : []) {
    if (!isObject(item)) continue;
    const id = text(item.id);
    const name = text(item.name) ?? id;
    if (name !== null) licenses.add(id, name, text(item.url));
  }
  for (const dependency of Array.isArray(report.dependencies) ? report.dependencies : []) {
    if (!isObject(dependency)) continue;
    const name = text(dependency.name);
    if (name === null) continue;
    for (const id of Array.isArray(dependency.licenses) ? dependency.licenses : []) {
      if (typeof id !== 'string') continue;
      (licenses.get(id) ?? licenses.add(id, id, null)).dependencies.push({ name });
    }
  }
  return licenses.list();
}

function parseVersion1(report: Record<string, unknown>): ReportLicense[] {
  const licenses = new Licenses();
  for (const item of Array.isArray(report.licenses) ? report.licenses : []) {
    if (isObject(item) && text(item.name)) licenses.add(null, text(item.name) as string, text(item.url));
  }
  for (const entry of Array.isArray(report.dependencies) ? report.dependencies : []) {
    if (!isObject(entry)) continue;
    const name = isObject(entry.dependency) ? text(entry.dependency.name) : null;
    if (name === null) continue;
    const inline = Array.isArray(entry.licenses) ? entry.licenses : isObject(entry.license) ? [entry.license] : [];
    for (const license of inline) {
      if (!isObject(license) || !text(license.name)) continue;
      licenses.add(null, text(license.name) as string, text(license.url)).dependencies.push({ name });
    }
  }
  return licenses.list();
}

export function parseLicenseReport(content: Buffer | string): ParsedLicenseReport {
  let report: unknown;
  try {
    report = JSON.parse(typeof content === 'string' ? content : content.toString('utf8'));
  } catch {
    return { licenses: [], errors: ['JSON parsing failed'] };
  }
  // The platform's parser's words for a report it could not make sense of.
  if (!isObject(report)) return { licenses: [], errors: ['License scanning report parsing failed'] };
  const version = typeof report.version === 'string' ? report.version : '1.0';
  return { licenses: version.startsWith('2') ? parseVersion2(report) : parseVersion1(report), errors: [] };
}
