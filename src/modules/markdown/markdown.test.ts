// POST /markdown: anyone renders; a project context must be readable by the caller; raw HTML is
// escaped and unsafe links dropped.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { MarkdownEntity } from './markdown.routes.ts';

let t: TestApp;
let member: TestUser;
let stranger: TestUser;
let secret: ProjectRow;

before(async () => {
  t = await createTestApp();
  member = await t.user();
  stranger = await t.user();
  secret = await createProject(t, { visibility: 'private', members: [[member.user.id, ACCESS.GUEST]] });
});
after(() => t.close());

const render = (body: Record<string, unknown>, token?: string) => t.post('/api/v4/markdown', { token, body });

test('renders Markdown for anyone, with or without gfm: 201 and the HTML', async () => {
  const res = await render({ text: '# Title\n\nSome *text* and ~~old~~ | a |\n\n| x | y |\n|---|---|\n| 1 | 2 |' });
  expectStatus(res, 201);
  expectEntity(res.json(), MarkdownEntity);
  const { html } = res.json();
  assert.match(html, /<h1>Title<\/h1>/);
  assert.match(html, /<em>text<\/em>/);
  assert.match(html, /<s>old<\/s>/);
  assert.match(html, /<table>/);
  assert.deepEqual((await render({ text: 'foo', gfm: true }, member.token)).json(), { html: '<p>foo</p>' });
  assert.deepEqual((await render({ text: '' })).json(), { html: '' });
});

test('raw HTML is escaped and script links dropped', async () => {
  const { html } = (await render({ text: '<script>alert(1)</script> [x](javascript:alert(1))' })).json();
  assert.ok(!html.includes('<script>'), html);
  assert.ok(!html.includes('href="javascript:'), html);
});

test('a project context: readable by the caller, else 404', async () => {
  expectStatus(await render({ text: 'x', project: secret.full_path }, member.token), 201);
  expectStatus(await render({ text: 'x', project: secret.full_path }, ROOT_TOKEN), 201);
  for (const token of [stranger.token, undefined]) {
    expectError(await render({ text: 'x', project: secret.full_path }, token), 404, { message: '404 Project Not Found' });
  }
  expectError(await render({ text: 'x', project: 'no/such' }, member.token), 404, { message: '404 Project Not Found' });
});

test('parameter errors', async () => {
  expectError(await render({}), 400, { error: 'text is missing' });
  expectError(await render({ text: 'x', gfm: 'maybe' }), 400, { error: 'gfm is invalid' });
});
