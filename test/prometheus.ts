// Reads the Prometheus text format (version 0.0.4) strictly enough to catch a malformed answer:
// every sample belongs to a family declared by # HELP and # TYPE, names and labels are well formed,
// values are numbers.
import assert from 'node:assert/strict';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name → counter, gauge, histogram, summary or untyped. */
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the sample with exactly these labels; undefined when there is none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const match = LABEL.exec(text);
    assert.ok(match && match.index === at, `malformed labels: ${line}`);
    assert.ok(!(match[1] in labels), `label twice: ${line}`);
    labels[match[1]] = match[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  }
  return labels;
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const [family, type] of types) {
    if ((SUFFIXES[type] ?? []).some((suffix) => name === `${family}${suffix}`)) return family;
  }
  return undefined;
}

export function parsePrometheus(text: string): Exposition {
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (comment) {
      const [, what, name, rest] = comment;
      assert.match(name, NAME, line);
      if (what === 'HELP') helps.add(name);
      else {
        assert.ok(['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest), `unknown type: ${line}`);
        assert.ok(!types.has(name), `type declared twice: ${line}`);
        types.set(name, rest);
      }
      continue;
    }
    assert.ok(!line.startsWith('#'), `unexpected comment: ${line}`);
    const match = SAMPLE.exec(line);
    assert.ok(match, `malformed sample: ${line}`);
    const [, name, labelText, raw] = match;
    // Prometheus reads NaN and infinities in any case (prom-client writes `Nan`).
    const value = /^[+-]?inf$/i.test(raw) ? (raw.startsWith('-') ? -Infinity : Infinity) : Number(raw);
    assert.ok(/^nan$/i.test(raw) || !Number.isNaN(value), `not a number: ${line}`);
    const family = familyOf(name, types);
    assert.ok(family !== undefined, `sample of no declared family: ${line}`);
    assert.ok(helps.has(family), `family without HELP: ${family}`);
    const labels = labelText ? parseLabels(labelText, line) : {};
    if (name.endsWith('_bucket') && types.get(family) === 'histogram') assert.ok('le' in labels, `bucket without le: ${line}`);
    samples.push({ name, labels, value });
  }
  const same = (a: Record<string, string>, b: Record<string, string>) => Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);
  return {
    types,
    samples,
    value: (name, labels = {}) => samples.find((s) => s.name === name && same(s.labels, labels))?.value,
  };
}
