// `include:` expansion as the platform's External::Processor and Mapper do it: locations are
// normalized, filtered by their rules, expanded with variables, checked for duplicates and the
// include limit, read, parsed, expanded in turn (nested), and deep-merged under the including file,
// which wins.
import { CiConfigError, configError, includeMessages } from './errors.ts';
import { deepMerge } from './deep-merge.ts';
import { expandString } from './expand-string.ts';
import { evaluateExpression } from './expressions.ts';
import { readTemplate } from './templates.ts';
import { isHash, loadYaml, YamlLoadError } from './yaml-loader.ts';
import type { ConfigLimits, IncludeRef } from './types.ts';

interface IncludeContext {
  resolve(ref: IncludeRef): Promise<string>;
  limits: ConfigLimits;
  variables: Record<string, string>;
  /** Every location included so far, with the project it was read from (shared by nested levels). */
  seen: Set<string>;
  /** Set while expanding a file read from another project: its local includes read from there. */
  project: { project: string; ref: string | null } | null;
}

interface Location {
  written: Record<string, unknown>;
}

interface ReadFile {
  ref: IncludeRef;
  /** How messages name the file. */
  location: string;
  hash: Record<string, unknown>;
  context: IncludeContext;
}

const YAML_EXTENSION = /\.ya?ml$/;

export async function expandIncludes(
  config: Record<string, unknown>,
  options: Pick<IncludeContext, 'resolve' | 'limits' | 'variables'>,
): Promise<Record<string, unknown>> {
  return processLevel(config, { ...options, seen: new Set(), project: null });
}

async function processLevel(config: Record<string, unknown>, context: IncludeContext): Promise<Record<string, unknown>> {
  if (!Object.hasOwn(config, 'include')) return config;
  const { include, ...rest } = config;
  const locations = normalizeLocations(include, context);
  for (const location of locations) verifyNotSeen(location, context);
  const refs = locations.map((location) => toRef(location));
  const texts = await Promise.all(refs.map((ref) => readRef(ref, context).catch((error: unknown) => error)));
  const files: ReadFile[] = [];
  refs.forEach((ref, index) => {
    const text = texts[index];
    if (text instanceof Error) throw text;
    files.push(parseFile(ref, text as string, context));
  });
  let merged: Record<string, unknown> = {};
  for (const file of files) merged = deepMerge(merged, await processLevel(file.hash, file.context));
  return deepMerge(merged, rest);
}

function normalizeLocations(include: unknown, context: IncludeContext): Location[] {
  const items = (Array.isArray(include) ? include : [include]).filter((item) => item !== null && item !== undefined);
  const out: Location[] = [];
  for (const item of items) {
    let written: Record<string, unknown>;
    if (typeof item === 'string') written = isRemoteUrl(item) ? { remote: item } : { local: item };
    else if (isHash(item)) written = item;
    else configError('Each include must be a hash or a string');
    if (!passesRules(written, context)) continue;
    // `project:` with a list of files is one location per file.
    if (Array.isArray(written.file) && written.project !== undefined) {
      for (const file of written.file) out.push({ written: expandLocation({ ...written, file }, context) });
    } else {
      out.push({ written: expandLocation(written, context) });
    }
  }
  return out;
}

function isRemoteUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** include:rules (14.x: `if` only): the first rule that matches keeps the include. */
function passesRules(location: Record<string, unknown>, context: IncludeContext): boolean {
  const rules = location.rules;
  if (rules === undefined || rules === null) return true;
  if (!Array.isArray(rules)) configError('include rules should be an array of hashes');
  return rules.some((rule) => {
    if (!isHash(rule)) configError('include rule should be a hash');
    if (rule.if === undefined) return true;
    return typeof rule.if === 'string' && evaluateExpression(rule.if, context.variables);
  });
}

function expandLocation(location: Record<string, unknown>, context: IncludeContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(location)) {
    out[key] = typeof value === 'string' ? expandString(value, (name) => context.variables[name]) : value;
  }
  return out;
}

function verifyNotSeen(location: Location, context: IncludeContext): void {
  if (context.seen.size >= context.limits.maxIncludes) {
    configError(`Maximum of ${context.limits.maxIncludes} nested includes are allowed!`);
  }
  const key = JSON.stringify([location.written, context.project]);
  if (context.seen.has(key)) configError(`Include \`${JSON.stringify(location.written)}\` was already included!`);
  context.seen.add(key);
}

function toRef(location: Location): IncludeRef {
  const w = location.written;
  const kinds = [
    typeof w.remote === 'string' && w.remote !== '',
    typeof w.template === 'string' && w.template !== '',
    typeof w.local === 'string' && w.local !== '',
    w.file !== undefined && w.file !== null && w.project !== undefined && w.project !== null,
    w.artifact !== undefined && w.job !== undefined,
  ];
  if (kinds.filter(Boolean).length !== 1) {
    configError(`Include \`${JSON.stringify(w)}\` needs to match exactly one accessor!`);
  }
  if (kinds[0]) return { type: 'remote', url: w.remote as string };
  if (kinds[1]) return { type: 'template', name: w.template as string };
  if (kinds[2]) {
    const written = w.local as string;
    return { type: 'local', path: written.replace(/^\/+/, ''), location: written };
  }
  if (kinds[4]) return { type: 'artifact', path: String(w.artifact), job: String(w.job) };
  return {
    type: 'project',
    project: String(w.project),
    file: String(w.file).replace(/^\/+/, ''),
    ref: w.ref === undefined || w.ref === null ? null : String(w.ref),
  };
}

function locationOf(ref: IncludeRef): string {
  switch (ref.type) {
    case 'local':
      return ref.location;
    case 'project':
      return ref.file;
    case 'remote':
      return ref.url;
    case 'template':
      return ref.name;
    case 'artifact':
      return ref.path;
  }
}

async function readRef(ref: IncludeRef, context: IncludeContext): Promise<string> {
  const location = locationOf(ref);
  if (ref.type === 'template') {
    if (!ref.name.endsWith('.gitlab-ci.yml')) configError(`Template file \`${ref.name}\` is not a valid location!`);
    const text = readTemplate(ref.name);
    if (text === null || text.trim() === '') configError(includeMessages.emptyOrMissing(location));
    return text;
  }
  if (!YAML_EXTENSION.test(location)) configError(includeMessages.notYaml(location));
  // A local include inside a file of another project reads from that project.
  const target: IncludeRef =
    ref.type === 'local' && context.project ? { ...ref, ...context.project, type: 'local' } : ref;
  let text: string;
  try {
    text = await context.resolve(target);
  } catch (error) {
    if (error instanceof CiConfigError) throw error;
    throw new CiConfigError(includeMessages.emptyOrMissing(location));
  }
  if (typeof text !== 'string' || text.trim() === '') {
    if (ref.type === 'local') configError(includeMessages.localEmpty(location));
    if (ref.type === 'project') configError(includeMessages.projectFileEmpty(ref.project, ref.file));
    configError(includeMessages.emptyOrMissing(location));
  }
  return text;
}

function parseFile(ref: IncludeRef, text: string, context: IncludeContext): ReadFile {
  const location = locationOf(ref);
  let hash: unknown;
  try {
    hash = loadYaml(text, context.limits);
  } catch (error) {
    if (error instanceof YamlLoadError) configError(includeMessages.invalidYaml(location));
    throw error;
  }
  if (!isHash(hash) || Object.keys(hash).length === 0) configError(includeMessages.invalidYaml(location));
  const nested: IncludeContext =
    ref.type === 'project' ? { ...context, project: { project: ref.project, ref: ref.ref } } : context;
  return { ref, location, hash, context: nested };
}
