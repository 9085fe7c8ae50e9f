// `variables:` mappings: values are strings or integers; at the top level also `{value, description}`.
import type { VariableDefinition } from '../types.ts';
import { isHash } from '../yaml-loader.ts';
import { entryFail, isAlphanumeric } from './errors.ts';

export function variableDefinitions(location: string, value: unknown, withDescription: boolean): VariableDefinition[] {
  if (value === null || value === undefined) return [];
  const message = withDescription
    ? 'config should be a hash of key value pairs, value can be a hash'
    : 'config should be a hash of key value pairs';
  if (!isHash(value)) entryFail(location, message);
  const out: VariableDefinition[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (isAlphanumeric(item)) {
      out.push({ key, value: String(item) });
    } else if (isHash(item) && isAlphanumeric(item.value ?? '') && Object.keys(item).every((k) => k === 'value' || (withDescription && k === 'description'))) {
      const definition: VariableDefinition = { key, value: String(item.value ?? '') };
      if (typeof item.description === 'string') definition.description = item.description;
      out.push(definition);
    } else {
      entryFail(location, message);
    }
  }
  return out;
}

/** A plain `key → string` mapping (rules and matrix variables). */
export function variableMap(location: string, value: unknown): Record<string, string> {
  if (!isHash(value)) entryFail(location, 'config should be a hash of key value pairs');
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!isAlphanumeric(item)) entryFail(location, 'config should be a hash of key value pairs');
    out[key] = String(item);
  }
  return out;
}
