// The public URL check of cluster API addresses: every address a name resolves to is checked, a
// name that does not resolve passes, and the instance's setting lifts the address rules only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blockedPublicUrlMessage } from './url-blocker.ts';

const resolvingTo = (addresses: string[]) => async () => addresses;
const unresolved = async (): Promise<string[]> => {
  throw new Error('ENOTFOUND');
};

test('a name is judged by every address it resolves to', async () => {
  const check = (addresses: string[]) => blockedPublicUrlMessage('https://k8s.example.com:6443', { allowLocal: false, lookup: resolvingTo(addresses) });
  assert.equal(await check(['203.0.113.7']), null);
  assert.equal(await check(['203.0.113.7', '10.0.0.8']), 'is blocked: Requests to the local network are not allowed');
  assert.equal(await check(['::ffff:169.254.1.1']), 'is blocked: Requests to the link local network are not allowed');
});

test('a name that does not resolve passes; the setting lifts the address rules, not the others', async () => {
  assert.equal(await blockedPublicUrlMessage('https://nowhere.invalid', { allowLocal: false, lookup: unresolved }), null);
  const allowed = { allowLocal: true, lookup: unresolved };
  assert.equal(await blockedPublicUrlMessage('https://10.0.0.8', allowed), null);
  assert.equal(await blockedPublicUrlMessage('gopher://10.0.0.8', allowed), 'is blocked: Only allowed schemes are http, https');
  assert.equal(await blockedPublicUrlMessage('https://_k8s.example.com', allowed), 'is blocked: Hostname or IP address invalid');
  assert.equal(await blockedPublicUrlMessage('https://k8s.example.com\n', allowed), 'is blocked: URI is invalid');
});
