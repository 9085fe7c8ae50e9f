// image and services: a name, or a mapping with the name and the runner's options.
import type { Image, Service } from '../types.ts';
import { isHash } from '../yaml-loader.ts';
import { checkKeys, entryFail, isArrayOfStrings, isString } from './errors.ts';

const IMAGE_KEYS = ['name', 'entrypoint', 'ports', 'pull_policy'];
const SERVICE_KEYS = ['name', 'entrypoint', 'command', 'alias', 'ports', 'variables', 'pull_policy'];

export function image(location: string, value: unknown): Image {
  if (isString(value)) return { name: value };
  if (!isHash(value)) entryFail(location, 'config should be a hash or a string');
  checkKeys(location, value, IMAGE_KEYS);
  if (!isString(value.name) || value.name === '') entryFail(location, "name can't be blank");
  const out: Image = { name: value.name };
  if (value.entrypoint !== undefined) {
    if (!isArrayOfStrings(value.entrypoint)) entryFail(location, 'entrypoint should be an array of strings');
    out.entrypoint = value.entrypoint;
  }
  if (value.ports !== undefined) out.ports = value.ports as unknown[];
  return out;
}

export function services(location: string, value: unknown): Service[] {
  if (!Array.isArray(value)) entryFail(location, 'config should be a array');
  return value.map((item, index) => service(`${location}:service`, item, index));
}

function service(location: string, value: unknown, _index: number): Service {
  if (isString(value)) return { name: value };
  if (!isHash(value)) entryFail(location, 'config should be a hash or a string');
  checkKeys(location, value, SERVICE_KEYS);
  if (!isString(value.name) || value.name === '') entryFail(location, "name can't be blank");
  const out: Service = { name: value.name };
  if (value.entrypoint !== undefined) {
    if (!isArrayOfStrings(value.entrypoint)) entryFail(location, 'entrypoint should be an array of strings');
    out.entrypoint = value.entrypoint;
  }
  if (value.command !== undefined) {
    if (!isArrayOfStrings(value.command)) entryFail(location, 'command should be an array of strings');
    out.command = value.command;
  }
  if (value.alias !== undefined) {
    if (!isString(value.alias)) entryFail(location, 'alias should be a string');
    out.alias = value.alias;
  }
  if (value.ports !== undefined) out.ports = value.ports as unknown[];
  return out;
}
