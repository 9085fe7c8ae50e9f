// XML → the nested hash the platform's JUnit parser walks (ActiveSupport's `Hash.from_xml` on
// Nokogiri): repeated elements become arrays, text-only elements strings, empty ones null,
// attributes keys of the element (they win over child elements of the same name), `-` in names `_`.
// Hostile input is bounded: document size, nesting depth, and no entity declarations at all.
import type * as FastXmlParser from 'fast-xml-parser';
import { lazyModule } from '../../core/lazy-module.ts';

const fastXmlParser = lazyModule<typeof FastXmlParser>('fast-xml-parser');

export type XmlValue = string | null | XmlValue[] | { [key: string]: XmlValue };
type XmlHash = { [key: string]: XmlValue };

export interface XmlLimits {
  /** Largest document accepted, in bytes (default 30 MiB). */
  maxBytes?: number;
  /** Deepest element nesting accepted (default 64). */
  maxDepth?: number;
}
export const DEFAULT_XML_LIMITS: Required<XmlLimits> = { maxBytes: 30 * 1024 * 1024, maxDepth: 64 };

/** The document is not well-formed XML (the platform's Nokogiri::XML::SyntaxError). */
export class XmlSyntaxError extends Error {}
/** The document is XML but its data cannot be used (the platform's other parse errors). */
export class XmlDataError extends Error {}

const CONTENT = '__content__';
const DISALLOWED_TYPES = ['symbol', 'yaml'];
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z_][\w.-]*);/g, (_, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      if (code > 0x10ffff || code === 0) throw new XmlSyntaxError(`xmlParseCharRef: invalid xmlChar value ${code}`);
      return String.fromCodePoint(code);
    }
    const value = PREDEFINED[ref];
    if (value === undefined) throw new XmlSyntaxError(`Entity '${ref}' not defined`);
    return value;
  });
}

const isBlank = (value: XmlValue | undefined): boolean =>
  value === null || value === undefined ||
  (typeof value === 'string' ? /^\s*$/.test(value) : Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0);

export const isPresent = (value: XmlValue | undefined): boolean => !isBlank(value);

type OrderedNode = Record<string, unknown>;

/** One element as Nokogiri's `to_hash` builds it, before typecasting. */
function elementHash(children: OrderedNode[], attributes: Record<string, string> | undefined): XmlHash {
  const hash: XmlHash = {};
  let content: string | undefined;
  for (const child of children) {
    if ('#text' in child) {
      content = (content ?? '') + decodeEntities(String(child['#text']));
      continue;
    }
    if ('#cdata' in child) {
      for (const piece of child['#cdata'] as OrderedNode[]) content = (content ?? '') + String(piece['#text'] ?? '');
      continue;
    }
    const tag = Object.keys(child).find((key) => key !== ':@');
    if (tag === undefined || tag.startsWith('?') || tag.startsWith('!')) continue;
    const name = tag.replaceAll('-', '_');
    const value = elementHash(child[tag] as OrderedNode[], child[':@'] as Record<string, string> | undefined);
    const existing = hash[name];
    if (existing === undefined) hash[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else hash[name] = [existing, value];
  }
  if (content !== undefined) hash[CONTENT] = content;
  // Blank text between child elements is dropped; text of an element without children is kept.
  if (Object.keys(hash).length > 1 && isBlank(hash[CONTENT])) delete hash[CONTENT];
  for (const [name, value] of Object.entries(attributes ?? {})) hash[name.replaceAll('-', '_')] = decodeEntities(value);
  return hash;
}

/** ActiveSupport's `typecast_xml_value` for the cases a report meets. */
function typecast(value: XmlValue): XmlValue {
  if (value === null || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(typecast);
  const type = value.type;
  if (typeof type === 'string' && DISALLOWED_TYPES.includes(type)) throw new XmlDataError(`Disallowed type attribute: "${type}"`);
  const content = value[CONTENT];
  if (type === 'array') {
    const entries = Object.entries(value).find(([, entry]) => typeof entry !== 'string')?.[1];
    if (entries === undefined || entries === null || content === '') return [];
    return Array.isArray(entries) ? entries.map(typecast) : [typecast(entries)];
  }
  if (typeof content === 'string' && (Object.keys(value).length === 1 || isPresent(content))) return content;
  if (type === 'string' && value.nil !== 'true') return '';
  if (isBlank(value) || value.nil === 'true') return null;
  if (typeof type === 'string' && Object.keys(value).length === 1) return null;
  const out: XmlHash = {};
  for (const [key, entry] of Object.entries(value)) out[key] = typecast(entry);
  return out;
}

function syntaxMessage(err: { msg: string; line: number; col?: number }): string {
  return `${err.line}:${err.col ?? 1}: FATAL: ${err.msg}`;
}

/** Parses an XML document into the platform's hash; throws XmlSyntaxError or XmlDataError. */
export function xmlToHash(input: string | Uint8Array, limits: XmlLimits = {}): XmlHash {
  const { maxBytes, maxDepth } = { ...DEFAULT_XML_LIMITS, ...limits };
  const size = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  if (size > maxBytes) throw new XmlDataError(`the report is larger than ${maxBytes} bytes`);
  const text = (typeof input === 'string' ? input : new TextDecoder('utf-8').decode(input)).replace(/^\uFEFF/, '');
  if (text.length === 0) return {};
  // Entity declarations are how "billion laughs" and external entities get in: none is accepted.
  if (/<!ENTITY/i.test(text)) throw new XmlSyntaxError('1:1: FATAL: entity declarations are not allowed');
  const validation = fastXmlParser().XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (validation !== true) throw new XmlSyntaxError(syntaxMessage(validation.err));
  let document: OrderedNode[];
  try {
    document = new (fastXmlParser().XMLParser)({
      preserveOrder: true,
      ignoreAttributes: false,
      attributeNamePrefix: '',
      parseTagValue: false,
      parseAttributeValue: false,
      trimValues: false,
      processEntities: false,
      cdataPropName: '#cdata',
      ignoreDeclaration: true,
      ignorePiTags: true,
      maxNestedTags: maxDepth,
    }).parse(text) as OrderedNode[];
  } catch (error) {
    throw new XmlSyntaxError(`1:1: FATAL: ${(error as Error).message}`);
  }
  const roots = document.filter((node) => Object.keys(node).some((key) => key !== ':@' && !key.startsWith('?') && !key.startsWith('!') && !key.startsWith('#')));
  if (roots.length === 0) throw new XmlSyntaxError('1:1: FATAL: Start tag expected, \'<\' not found');
  if (roots.length > 1) throw new XmlSyntaxError('1:1: FATAL: Extra content at the end of the document');
  return typecast(elementHash(roots, undefined)) as XmlHash ?? {};
}
