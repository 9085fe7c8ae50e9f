// Security report artifacts (sast, dependency_scanning; the 14.x report schemas, notes
// gitlab-ci.md §6) turned into findings the way the platform's parsers do: severity and
// confidence lowercased (anything else `unknown`), identifiers fingerprinted by SHA-1 of
// `<type>:<value>`, the first identifier primary, the location fingerprinted by SHA-1 of
// `<file>:<start line>:<end line>` (SAST) or `<file>:<package>` (dependency scanning), the
// project fingerprint the SHA-1 of `cve`, and the UUID from finding-uuid.ts. A report that is no
// JSON object with a `vulnerabilities` array is an error, never an exception; an item without
// identifiers or location is left out, as the platform does not store an invalid finding.
// Dependency scanning reports also give the dependency list (their `dependency_files`).
import { createHash } from 'node:crypto';
import { findingUuid } from './finding-uuid.ts';

export const SECURITY_REPORT_TYPES = ['sast', 'dependency_scanning'] as const;
export type SecurityReportType = (typeof SECURITY_REPORT_TYPES)[number];

export const SEVERITIES = ['info', 'unknown', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];
/** The platform's severity enum values, which order vulnerabilities. */
export const SEVERITY_LEVEL: Record<Severity, number> = { info: 1, unknown: 2, low: 4, medium: 5, high: 6, critical: 7 };
export const CONFIDENCES = ['ignore', 'unknown', 'experimental', 'low', 'medium', 'high', 'confirmed'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

export interface ReportScanner {
  externalId: string;
  name: string;
  vendor: string;
}

export interface ReportIdentifier {
  externalType: string;
  externalId: string;
  name: string;
  url: string | null;
  fingerprint: string;
}

export interface ReportFinding {
  uuid: string;
  reportType: SecurityReportType;
  name: string;
  description: string | null;
  severity: Severity;
  confidence: Confidence;
  scanner: ReportScanner;
  identifiers: ReportIdentifier[];
  projectFingerprint: string;
  locationFingerprint: string;
  locationFile: string | null;
  packageName: string | null;
  metadataVersion: string;
  rawMetadata: string;
}

export interface ReportDependency {
  name: string;
  version: string | null;
  packageManager: string;
  filePath: string;
}

export interface ParsedSecurityReport {
  findings: ReportFinding[];
  dependencies: ReportDependency[];
  /** Why the report could not be read; empty when it was. */
  errors: string[];
}

const sha1 = (text: string) => createHash('sha1').update(text, 'utf8').digest('hex');
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null);
const present = (value: unknown): string | null => {
  const s = text(value);
  return s !== null && s.trim() !== '' ? s : null;
};
/** The text of a line number as Ruby interpolates it (nil → empty). */
const lineText = (value: unknown): string => (typeof value === 'number' || typeof value === 'string' ? String(value) : '');

function level<T extends readonly string[]>(values: T, given: unknown): T[number] {
  const lower = typeof given === 'string' ? given.toLowerCase() : '';
  return (values as readonly string[]).includes(lower) ? (lower as T[number]) : ('unknown' as T[number]);
}

function scannerOf(data: unknown): ReportScanner | null {
  if (!isObject(data)) return null;
  const externalId = present(data.id);
  const name = present(data.name);
  if (externalId === null || name === null) return null;
  const vendor = isObject(data.vendor) ? (text(data.vendor.name) ?? '') : 'GitLab';
  return { externalId, name, vendor };
}

function identifiersOf(data: unknown): ReportIdentifier[] {
  if (!Array.isArray(data)) return [];
  const identifiers: ReportIdentifier[] = [];
  for (const item of data) {
    if (!isObject(item)) continue;
    const externalType = present(item.type);
    const externalId = present(item.value);
    if (externalType === null || externalId === null) continue;
    identifiers.push({ externalType, externalId, name: text(item.name) ?? externalId, url: present(item.url), fingerprint: sha1(`${externalType}:${externalId}`) });
  }
  return identifiers;
}

interface Location {
  fingerprint: string;
  file: string | null;
  packageName: string | null;
}

function locationOf(type: SecurityReportType, data: unknown): Location | null {
  if (!isObject(data)) return null;
  const file = text(data.file);
  if (type === 'sast') {
    return { fingerprint: sha1(`${file ?? ''}:${lineText(data.start_line)}:${lineText(data.end_line)}`), file, packageName: null };
  }
  const dependency = isObject(data.dependency) ? data.dependency : {};
  const packageName = isObject(dependency.package) ? text(dependency.package.name) : null;
  return { fingerprint: sha1(`${file ?? ''}:${packageName ?? ''}`), file, packageName };
}

/** The platform's finding name: the message, else the name, else the CVE/CWE/first identifier's name in the file. */
function findingName(item: Record<string, unknown>, identifiers: ReportIdentifier[], location: Location): string {
  const message = present(item.message);
  if (message !== null) return message;
  const name = present(item.name);
  if (name !== null) return name;
  const identifier =
    identifiers.find((i) => i.externalType.toLowerCase() === 'cve') ?? identifiers.find((i) => i.externalType.toLowerCase() === 'cwe') ?? identifiers[0];
  return `${identifier.name} in ${location.file ?? ''}`;
}

function dependenciesOf(report: Record<string, unknown>): ReportDependency[] {
  if (!Array.isArray(report.dependency_files)) return [];
  const list: ReportDependency[] = [];
  for (const file of report.dependency_files) {
    if (!isObject(file) || !Array.isArray(file.dependencies)) continue;
    const filePath = text(file.path);
    const packageManager = text(file.package_manager);
    if (filePath === null || packageManager === null) continue;
    for (const dependency of file.dependencies) {
      if (!isObject(dependency)) continue;
      const name = isObject(dependency.package) ? text(dependency.package.name) : null;
      if (name === null) continue;
      list.push({ name, version: text(dependency.version), packageManager, filePath });
    }
  }
  return list;
}

/** Parses one report artifact of a project; never throws. */
export function parseSecurityReport(type: SecurityReportType, content: Buffer | string, projectId: number): ParsedSecurityReport {
  let report: unknown;
  try {
    report = JSON.parse(typeof content === 'string' ? content : content.toString('utf8'));
  } catch (error) {
    return { findings: [], dependencies: [], errors: [`JSON parsing failed: ${(error as Error).message}`] };
  }
  if (!isObject(report)) return { findings: [], dependencies: [], errors: ['Invalid report format: the report is not a JSON object'] };
  if (!Array.isArray(report.vulnerabilities)) return { findings: [], dependencies: [], errors: ['Invalid report format: vulnerabilities must be an array'] };
  const version = text(report.version) ?? '';
  const topScanner = isObject(report.scan) ? scannerOf(report.scan.scanner) : null;
  const findings: ReportFinding[] = [];
  for (const item of report.vulnerabilities) {
    if (!isObject(item)) continue;
    const scanner = topScanner ?? scannerOf(item.scanner);
    const identifiers = identifiersOf(item.identifiers);
    const location = locationOf(type, item.location);
    if (!scanner || identifiers.length === 0 || !location) continue;
    const primary = identifiers[0];
    findings.push({
      uuid: findingUuid({ reportType: type, primaryIdentifierFingerprint: primary.fingerprint, locationFingerprint: location.fingerprint, projectId }),
      reportType: type,
      name: findingName(item, identifiers, location),
      description: text(item.description),
      severity: level(SEVERITIES, item.severity),
      confidence: level(CONFIDENCES, item.confidence),
      scanner,
      identifiers,
      projectFingerprint: sha1(text(item.cve) ?? ''),
      locationFingerprint: location.fingerprint,
      locationFile: location.file,
      packageName: location.packageName,
      metadataVersion: version,
      rawMetadata: JSON.stringify(item),
    });
  }
  // One finding per UUID, the first kept (the platform deduplicates a report's findings).
  const seen = new Set<string>();
  const unique = findings.filter((f) => !seen.has(f.uuid) && seen.add(f.uuid));
  return { findings: unique, dependencies: type === 'dependency_scanning' ? dependenciesOf(report) : [], errors: [] };
}
