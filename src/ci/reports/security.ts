// Security report artifacts (sast, dependency_scanning; the 14.x report schemas, notes
// gitlab-ci.md §6) turned into findings the way the platform's parsers do: severity and
// confidence lowercased (anything else `unknown`), identifiers fingerprinted by SHA-1 of
// `<type>:<value>`, the first identifier primary, the location fingerprinted by SHA-1 of
// `<file>:<start line>:<end line>` (SAST) or `<file>:<package>` (dependency scanning), the
// project fingerprint the SHA-1 of `cve`, and the UUID from finding-uuid.ts. What is wrong with a
// report is said as the platform records it on the scan, `{type, message}`: a report that is no
// JSON object is a `ParsingError`; one without what the 14.x schemas require at the top (`version`,
// `vulnerabilities`, and `dependency_files` for dependency scanning) a `Schema` error; either way
// it gives nothing, never an exception. A version the schemas do not know, and an item left out
// for want of identifiers, location or scanner, are `Schema` warnings, the report still read; as
// on the platform, a job asking for validation (`VALIDATE_SCHEMA: "true"`) makes them errors.
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

/** A problem of a report as the platform records it on its scan (shown as `[type] message`). */
export interface ReportMessage {
  type: 'ParsingError' | 'Schema';
  message: string;
}

export interface ParsedSecurityReport {
  findings: ReportFinding[];
  dependencies: ReportDependency[];
  /** Why the report could not be read (then it gives nothing); empty when it was. */
  errors: ReportMessage[];
  /** What is wrong with a report that was read all the same. */
  warnings: ReportMessage[];
}

/** The schema versions release 14.x validates these reports against. */
export const SUPPORTED_SCHEMA_VERSIONS: readonly string[] = ['14.0.0', '14.0.1', '14.0.2', '14.0.3', '14.0.4', '14.0.5', '14.0.6', '14.1.0', '14.1.1', '14.1.2'];
const VERSION_PATTERN = /^[0-9]+\.[0-9]+\.[0-9]+$/;

export const parsingError = (message: string): ReportMessage => ({ type: 'ParsingError', message });
const schema = (message: string): ReportMessage => ({ type: 'Schema', message });
const failed = (...errors: ReportMessage[]): ParsedSecurityReport => ({ findings: [], dependencies: [], errors, warnings: [] });

/** The top-level problems that keep a report from being read, worded as the platform's schema validation words them. */
function topLevelErrors(type: SecurityReportType, report: Record<string, unknown>): ReportMessage[] {
  const required = type === 'dependency_scanning' ? ['dependency_files', 'version', 'vulnerabilities'] : ['version', 'vulnerabilities'];
  const missing = required.filter((key) => !(key in report));
  const errors = missing.length > 0 ? [schema(`root is missing required keys: ${missing.join(', ')}`)] : [];
  if ('version' in report && typeof report.version !== 'string') errors.push(schema("property '/version' is not of type: string"));
  else if (typeof report.version === 'string' && !VERSION_PATTERN.test(report.version)) errors.push(schema(`property '/version' does not match pattern: ${VERSION_PATTERN.source}`));
  for (const key of ['vulnerabilities', 'dependency_files']) {
    if (key in report && required.includes(key) && !Array.isArray(report[key])) errors.push(schema(`property '/${key}' is not of type: array`));
  }
  return errors;
}

/** Why an item is left out: the required keys it lacks, as the schema validation says it. */
function itemProblem(index: number, item: unknown, hasScanner: boolean): ReportMessage {
  if (!isObject(item)) return schema(`property '/vulnerabilities/${index}' is not of type: object`);
  const missing = ['identifiers', 'location', 'scanner'].filter((key) => (key === 'scanner' ? !hasScanner : !(key in item)));
  if (missing.length > 0) return schema(`property '/vulnerabilities/${index}' is missing required keys: ${missing.join(', ')}`);
  return schema(`property '/vulnerabilities/${index}' is not a valid finding: it needs an identifier with a type and a value, a location and a scanner`);
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

/** Parses one report artifact of a project; never throws. `validate`: the job asked for schema validation (warnings are then errors). */
export function parseSecurityReport(type: SecurityReportType, content: Buffer | string, projectId: number, validate = false): ParsedSecurityReport {
  let report: unknown;
  try {
    report = JSON.parse(typeof content === 'string' ? content : content.toString('utf8'));
  } catch {
    return failed(parsingError('JSON parsing failed'));
  }
  if (!isObject(report)) return failed(parsingError('Invalid report format'));
  const errors = topLevelErrors(type, report);
  if (errors.length > 0) return failed(...errors);
  const version = report.version as string;
  const warnings: ReportMessage[] = [];
  if (!SUPPORTED_SCHEMA_VERSIONS.includes(version)) {
    warnings.push(schema(`Version ${version} for report type ${type} is unsupported, supported versions for this report type are: ${SUPPORTED_SCHEMA_VERSIONS.join(', ')}`));
  }
  const topScanner = isObject(report.scan) ? scannerOf(report.scan.scanner) : null;
  const findings: ReportFinding[] = [];
  (report.vulnerabilities as unknown[]).forEach((item, index) => {
    const scanner = isObject(item) ? (topScanner ?? scannerOf(item.scanner)) : null;
    const identifiers = isObject(item) ? identifiersOf(item.identifiers) : [];
    const location = isObject(item) ? locationOf(type, item.location) : null;
    if (!isObject(item) || !scanner || identifiers.length === 0 || !location) {
      warnings.push(itemProblem(index, item, scanner !== null));
      return;
    }
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
  });
  // A job that asked for validation has its report refused for what would otherwise be warnings.
  if (validate && warnings.length > 0) return failed(...warnings);
  // One finding per UUID, the first kept (the platform deduplicates a report's findings).
  const seen = new Set<string>();
  const unique = findings.filter((f) => !seen.has(f.uuid) && seen.add(f.uuid));
  return { findings: unique, dependencies: type === 'dependency_scanning' ? dependenciesOf(report) : [], errors: [], warnings };
}
