// Wikis through the API (pages in every format and in directories, versions, renames, attachments,
// the platform's refusals), through git over HTTP with the real git CLI (the wiki is a repository
// of its own, cloned and pushed to like the project's), through webhooks, and moved and removed
// with their project or group.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type GitCli, gitCli, gitUrl } from '../../../test/git-cli.ts';
import { ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { createGroup } from '../../../test/factories.ts';
import { setInstanceSettings } from '../../../test/factories.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { groupWikiRelativePath, projectWikiRelativePath, repositoryExists } from '../../git/repository.ts';
import { WikiAttachmentEntity, WikiPageBasicEntity, WikiPageEntity } from './wikis.schemas.ts';

let t: TestApp;
let host: string;
let git: GitCli;
let dev: TestUser;
let group: NamespaceRow;
let projectId: number;
let projectPath: string;

async function newProject(name: string, body: Record<string, unknown> = {}): Promise<{ id: number; path_with_namespace: string }> {
  const res = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name, path: name, namespace_id: group.id, ...body } });
  expectStatus(res, 201);
  return res.json();
}

before(async () => {
  ({ t, host } = await listeningTestApp());
  git = gitCli();
  dev = await t.user({ username: 'scribe', name: 'Scribe' });
  group = await createGroup(t, { path: 'library', members: [[dev.user.id, ACCESS.MAINTAINER]] });
  const project = await newProject('handbook');
  projectId = project.id;
  projectPath = project.path_with_namespace;
});
after(async () => {
  git.close();
  await t.close();
});

const wikis = (suffix = '', id: number = projectId) => `/api/v4/projects/${id}/wikis${suffix}`;
const groupWikis = (suffix = '', g: { id: number } = group) => `/api/v4/groups/${g.id}/wikis${suffix}`;
const slugPath = (slug: string) => `/${encodeURIComponent(slug)}`;

async function createPage(base: string, body: Record<string, unknown>) {
  const res = await t.post(base, { token: dev.token, body });
  expectStatus(res, 201);
  expectEntity(res.json(), WikiPageEntity);
  return res.json();
}

/** A multipart body with a file part and text fields. */
function multipart(file: { name: string; content: Buffer } | null, fields: Record<string, string> = {}) {
  const boundary = `----wiki${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (file) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    chunks.push(file.content, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('project wiki pages', () => {
  test('a wiki without pages lists none and has no repository yet', async () => {
    const fresh = await newProject('empty-wiki');
    const res = await t.get(wikis('', fresh.id), { token: dev.token });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), []);
    const dir = path.join(t.deps.config.repositoryStorages.default, projectWikiRelativePath(fresh.id));
    assert.equal(repositoryExists(dir), false);
  });

  test('creates pages: Markdown by default, other formats, directories; the slug from the title', async () => {
    const home = await createPage(wikis(), { title: 'Home page', content: '# Welcome\n\nHello *world*' });
    assert.deepEqual(home, { format: 'markdown', slug: 'Home-page', title: 'Home page', content: '# Welcome\n\nHello *world*', encoding: 'UTF-8' });
    const guide = await createPage(wikis(), { title: ' guides / Getting   started ', content: '= Start', format: 'rdoc' });
    assert.deepEqual(guide, { format: 'rdoc', slug: 'guides/Getting-started', title: 'Getting started', content: '= Start', encoding: 'UTF-8' });
    const ascii = await createPage(wikis(), { title: 'Manual', content: '== Manual', format: 'asciidoc' });
    assert.deepEqual([ascii.format, ascii.slug], ['asciidoc', 'Manual']);
    const org = await createPage(wikis(), { title: 'Agenda', content: '* Todo', format: 'org' });
    assert.deepEqual([org.format, org.slug], ['org', 'Agenda']);
    // The repository was made by the first write, a bare one on the wiki's branch.
    const dir = path.join(t.deps.config.repositoryStorages.default, projectWikiRelativePath(projectId));
    assert.equal(repositoryExists(dir), true);
  });

  test('lists pages ordered by slug, without content unless asked', async () => {
    const basic = await t.get(wikis(), { token: dev.token });
    expectStatus(basic, 200);
    expectEntities(basic.json(), WikiPageBasicEntity);
    assert.deepEqual(
      basic.json().map((p: { slug: string; format: string }) => [p.slug, p.format]),
      [['Agenda', 'org'], ['Home-page', 'markdown'], ['Manual', 'asciidoc'], ['guides/Getting-started', 'rdoc']],
    );
    assert.equal(basic.headers['x-total'], undefined, 'the platform does not paginate wiki pages');
    const full = await t.get(wikis(), { token: dev.token, query: { with_content: 'true' } });
    expectEntities(full.json(), WikiPageEntity);
    assert.deepEqual(full.json()[1], { format: 'markdown', slug: 'Home-page', title: 'Home page', content: '# Welcome\n\nHello *world*', encoding: 'UTF-8' });
  });

  test('reads a page by its slug (a directory encoded), rendered on request, at a version', async () => {
    const res = await t.get(wikis(slugPath('guides/Getting-started')), { token: dev.token });
    expectStatus(res, 200);
    expectEntity(res.json(), WikiPageEntity);
    assert.equal(res.json().content, '= Start');
    // Blanks and case do not matter, as the platform's lookup.
    assert.equal((await t.get(wikis(slugPath('home page')), { token: dev.token })).json().slug, 'Home-page');
    const html = await t.get(wikis('/Home-page'), { token: dev.token, query: { render_html: 'true' } });
    expectEntity(html.json(), WikiPageEntity);
    assert.equal(html.json().content, '<h1>Welcome</h1>\n<p>Hello <em>world</em></p>');
  });

  test('updates content, keeps what is not given, renames within the directory, changes the format', async () => {
    await createPage(wikis(), { title: 'guides/Setup', content: 'v1' });
    const log = (await git.ok(['--git-dir', path.join(t.deps.config.repositoryStorages.default, projectWikiRelativePath(projectId)), 'log', '-1', '--format=%H %an <%ae> %s'])).trim();
    assert.match(log, /^[0-9a-f]{40} Scribe <scribe@example\.com> scribe created page: guides\/Setup$/);
    const v1 = log.slice(0, 40);

    const updated = await t.put(wikis(slugPath('guides/Setup')), { token: dev.token, body: { content: 'v2' } });
    expectStatus(updated, 200);
    assert.deepEqual(updated.json(), { format: 'markdown', slug: 'guides/Setup', title: 'Setup', content: 'v2', encoding: 'UTF-8' });
    const old = await t.get(wikis(slugPath('guides/Setup')), { token: dev.token, query: { version: v1 } });
    assert.equal(old.json().content, 'v1');

    const renamed = await t.put(wikis(slugPath('guides/Setup')), { token: dev.token, body: { title: 'Install steps', format: 'asciidoc' } });
    expectStatus(renamed, 200);
    assert.deepEqual(renamed.json(), { format: 'asciidoc', slug: 'guides/Install-steps', title: 'Install steps', content: 'v2', encoding: 'UTF-8' });
    expectError(await t.get(wikis(slugPath('guides/Setup')), { token: dev.token }), 404, { message: '404 Wiki Page Not Found' });

    // A title starting with a slash moves the page to the root.
    const moved = await t.put(wikis(slugPath('guides/Install-steps')), { token: dev.token, body: { title: '/Install' } });
    assert.deepEqual([moved.json().slug, moved.json().format], ['Install', 'markdown']);
    const files = (await git.ok(['--git-dir', path.join(t.deps.config.repositoryStorages.default, projectWikiRelativePath(projectId)), 'ls-tree', '-r', '--name-only', 'master'])).trim().split('\n');
    assert.deepEqual(files.sort(), ['Agenda.org', 'Home-page.md', 'Install.md', 'Manual.asciidoc', 'guides/Getting-started.rdoc']);
  });

  test('deletes a page', async () => {
    await createPage(wikis(), { title: 'Scratch', content: 'gone soon' });
    const res = await t.del(wikis('/Scratch'), { token: dev.token });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    expectError(await t.get(wikis('/Scratch'), { token: dev.token }), 404, { message: '404 Wiki Page Not Found' });
  });

  test("the platform's refusals", async () => {
    expectError(await t.post(wikis(), { token: dev.token, body: { content: 'x' } }), 400, { error: 'title is missing' });
    expectError(await t.post(wikis(), { token: dev.token, body: { title: 'x' } }), 400, { error: 'content is missing' });
    expectError(await t.post(wikis(), { token: dev.token, body: { title: 'x', content: 'y', format: 'textile' } }), 400, { error: 'format does not have a valid value' });
    expectError(await t.post(wikis(), { token: dev.token, body: { title: ' ', content: '' } }), 400, { message: { title: ["can't be blank"], content: ["can't be blank"] } });
    expectError(await t.post(wikis(), { token: dev.token, body: { title: 'x'.repeat(246), content: 'y' } }), 400, { message: { title: ['exceeds the limit of 245 bytes'] } });
    expectError(await t.post(wikis(), { token: dev.token, body: { title: '.git/config', content: 'y' } }), 400, { message: { title: ['is invalid'] } });
    expectError(await t.post(wikis(), { token: dev.token, body: { title: 'home PAGE', content: 'again' } }), 400, { message: { base: ['Duplicate page: A page with that title already exists'] } });
    expectError(await t.put(wikis('/Manual'), { token: dev.token, body: { title: 'Agenda' } }), 400, { message: { base: ['There is already a page with the same title in that path.'] } });
    expectError(await t.put(wikis('/Manual'), { token: dev.token, body: { format: 'html' } }), 400, { error: 'format does not have a valid value' });
    expectError(await t.get(wikis('/Nowhere'), { token: dev.token }), 404, { message: '404 Wiki Page Not Found' });
    expectError(await t.get(wikis('/Manual'), { token: dev.token, query: { version: 'f'.repeat(40) } }), 404, { message: '404 Wiki Page Not Found' });
    expectError(await t.put(wikis('/Nowhere'), { token: dev.token, body: { content: 'x' } }), 404, { message: '404 Wiki Page Not Found' });
    expectError(await t.del(wikis('/Nowhere'), { token: dev.token }), 404, { message: '404 Wiki Page Not Found' });
    expectError(await t.get(wikis('', 999999), { token: dev.token }), 404, { message: '404 Project Not Found' });
    expectError(await t.get(groupWikis('', { id: 999999 }), { token: dev.token }), 404, { message: '404 Group Not Found' });
    expectError(await t.post(wikis(), { body: { title: 'x', content: 'y' } }), 401, { message: '401 Unauthorized' });
    await setInstanceSettings(t, { wiki_page_max_content_bytes: 1024 });
    try {
      expectError(await t.post(wikis(), { token: dev.token, body: { title: 'Big', content: 'x'.repeat(1500) } }), 400, {
        message: { content: ['is too long (1.46 KB). The maximum size is 1 KB.'] },
      });
    } finally {
      await setInstanceSettings(t, { wiki_page_max_content_bytes: 52428800 });
    }
  });

  test('a disabled wiki is forbidden; an archived project reads but is not written', async () => {
    const closed = await newProject('closed-wiki');
    expectStatus(await t.put(`/api/v4/projects/${closed.id}`, { token: ROOT_TOKEN, body: { wiki_access_level: 'disabled' } }), 200);
    expectError(await t.get(wikis('', closed.id), { token: dev.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post(wikis('', closed.id), { token: dev.token, body: { title: 'a', content: 'b' } }), 403, { message: '403 Forbidden' });
    const archived = await newProject('old-wiki');
    await createPage(wikis('', archived.id), { title: 'Kept', content: 'here' });
    expectStatus(await t.post(`/api/v4/projects/${archived.id}/archive`, { token: ROOT_TOKEN }), 201);
    expectStatus(await t.get(wikis('/Kept', archived.id), { token: dev.token }), 200);
    expectError(await t.put(wikis('/Kept', archived.id), { token: dev.token, body: { content: 'changed' } }), 403, { message: '403 Forbidden' });
  });
});

describe('attachments', () => {
  test('an image is committed under uploads/ and linked as an image', async () => {
    const { body, headers } = multipart({ name: 'diagram.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
    const res = await t.post(wikis('/attachments'), { token: dev.token, headers, body });
    expectStatus(res, 201);
    expectEntity(res.json(), WikiAttachmentEntity);
    const { file_path: filePath } = res.json();
    assert.match(filePath, /^uploads\/[0-9a-f]{32}\/diagram\.png$/);
    assert.deepEqual(res.json(), { file_name: 'diagram.png', file_path: filePath, branch: 'master', link: { url: filePath, markdown: `![diagram](${filePath})` } });
    const dir = path.join(t.deps.config.repositoryStorages.default, projectWikiRelativePath(projectId));
    assert.equal(await git.ok(['--git-dir', dir, 'log', '-1', '--format=%s', 'master']), 'Upload attachment diagram.png\n');
    assert.deepEqual(Buffer.from(await git.ok(['--git-dir', dir, 'cat-file', 'blob', `master:${filePath}`]), 'latin1').length, 4);
  });

  test('another file, named with blanks, on another branch, linked as a file', async () => {
    const { body, headers } = multipart({ name: 'release notes.txt', content: Buffer.from('notes') }, { branch: 'drafts' });
    const res = await t.post(wikis('/attachments'), { token: dev.token, headers, body });
    expectStatus(res, 201);
    const { file_path: filePath } = res.json();
    assert.deepEqual(res.json(), { file_name: 'release_notes.txt', file_path: filePath, branch: 'drafts', link: { url: filePath, markdown: `[release_notes.txt](${filePath})` } });
  });

  test('refusals: no file, a text in place of a file, a bad branch', async () => {
    expectError(await t.post(wikis('/attachments'), { token: dev.token, ...multipart(null, { branch: 'master' }) }), 400, { error: 'file is missing' });
    expectError(await t.post(wikis('/attachments'), { token: dev.token, body: {} }), 400, { error: 'file is missing' });
    expectError(await t.post(wikis('/attachments'), { token: dev.token, body: { file: 'text' } }), 400, { error: 'file is invalid' });
    expectError(await t.post(wikis('/attachments'), { token: dev.token, ...multipart({ name: 'a.txt', content: Buffer.from('a') }, { branch: 'bad..branch' }) }), 400, { message: 'Branch name is invalid' });
    expectError(await t.post(wikis('/attachments'), { ...multipart({ name: 'a.txt', content: Buffer.from('a') }) }), 401, { message: '401 Unauthorized' });
  });
});

describe('git over HTTP', () => {
  const credentials = () => ({ login: 'scribe', password: dev.token });

  test('the wiki clones with its pages as files, takes pushes, and the API reads what was pushed', async () => {
    const dir = path.join(git.root, 'wiki-clone');
    await git.ok(['clone', gitUrl(host, `${projectPath}.wiki`, credentials()), dir]);
    assert.equal(fs.readFileSync(path.join(dir, 'Home-page.md'), 'utf8'), '# Welcome\n\nHello *world*');
    assert.equal(fs.readFileSync(path.join(dir, 'guides', 'Getting-started.rdoc'), 'utf8'), '= Start');
    await git.commit(dir, 'Pushed-page.md', 'from git', 'Add a page');
    await git.ok(['push', 'origin', 'HEAD:master'], dir);
    const res = await t.get(wikis('/Pushed-page'), { token: dev.token });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), { format: 'markdown', slug: 'Pushed-page', title: 'Pushed page', content: 'from git', encoding: 'UTF-8' });
  });

  test('a push to a wiki without a repository creates it; who may not is refused as the platform', async () => {
    const fresh = await newProject('pushed-wiki');
    const dir = path.join(git.root, 'fresh-wiki');
    fs.mkdirSync(dir);
    await git.ok(['init', '-q', '-b', 'master'], dir);
    await git.commit(dir, 'Start.md', 'first', 'First page');
    const anonymous = await git.run(['ls-remote', gitUrl(host, `${fresh.path_with_namespace}.wiki`)]);
    assert.notEqual(anonymous.code, 0, 'a private wiki is not read without credentials');
    const missing = await git.run(['ls-remote', gitUrl(host, `${fresh.path_with_namespace}.wiki`, credentials())]);
    assert.match(missing.stderr, /A repository for this wiki does not exist yet\./);
    await git.ok(['push', gitUrl(host, `${fresh.path_with_namespace}.wiki`, credentials()), 'HEAD:master'], dir);
    expectStatus(await t.get(wikis('/Start', fresh.id), { token: dev.token }), 200);
    const reader = await t.user({ username: 'reader' });
    await t.post(`/api/v4/projects/${fresh.id}/members`, { token: ROOT_TOKEN, body: { user_id: reader.user.id, access_level: ACCESS.GUEST } });
    const cloned = await git.run(['clone', gitUrl(host, `${fresh.path_with_namespace}.wiki`, { login: 'reader', password: reader.token }), path.join(git.root, 'guest-clone')]);
    assert.equal(cloned.code, 0, cloned.stderr);
    const pushed = await git.run(['push', gitUrl(host, `${fresh.path_with_namespace}.wiki`, { login: 'reader', password: reader.token }), 'HEAD:master'], dir);
    assert.match(pushed.stderr, /You are not allowed to write to this project's wiki\./);
    const stranger = await t.user({ username: 'stranger' });
    const hidden = await git.run(['ls-remote', gitUrl(host, `${fresh.path_with_namespace}.wiki`, { login: 'stranger', password: stranger.token })]);
    assert.match(hidden.stderr, /The wiki you were looking for could not be found\./);
  });

  test("a group's wiki clones too", async () => {
    await createPage(groupWikis(), { title: 'Group home', content: 'for all' });
    const dir = path.join(git.root, 'group-wiki');
    await git.ok(['clone', gitUrl(host, `${group.full_path}.wiki`, credentials()), dir]);
    assert.equal(fs.readFileSync(path.join(dir, 'Group-home.md'), 'utf8'), 'for all');
  });
});

describe('group wiki pages', () => {
  test('create, list, read, update, delete as for projects', async () => {
    const team = await createGroup(t, { path: 'team-notes', members: [[dev.user.id, ACCESS.MAINTAINER]] });
    expectEntities((await t.get(groupWikis('', team), { token: dev.token })).json(), WikiPageBasicEntity);
    const page = await createPage(groupWikis('', team), { title: 'notes/Weekly sync', content: 'Monday', format: 'org' });
    assert.deepEqual(page, { format: 'org', slug: 'notes/Weekly-sync', title: 'Weekly sync', content: 'Monday', encoding: 'UTF-8' });
    const list = await t.get(groupWikis('', team), { token: dev.token });
    assert.deepEqual(list.json(), [{ format: 'org', slug: 'notes/Weekly-sync', title: 'Weekly sync' }]);
    const updated = await t.put(groupWikis(slugPath('notes/Weekly-sync'), team), { token: dev.token, body: { content: 'Tuesday', format: 'org' } });
    expectEntity(updated.json(), WikiPageEntity);
    assert.equal(updated.json().content, 'Tuesday');
    const dir = path.join(t.deps.config.repositoryStorages.default, groupWikiRelativePath(team.id));
    assert.equal(repositoryExists(dir), true);
    assert.equal((await t.del(groupWikis(slugPath('notes/Weekly-sync'), team), { token: dev.token })).statusCode, 204);
    expectError(await t.get(groupWikis(slugPath('notes/Weekly-sync'), team), { token: dev.token }), 404, { message: '404 Wiki Page Not Found' });
    const attachment = await t.post(groupWikis('/attachments', team), { token: dev.token, ...multipart({ name: 'a.pdf', content: Buffer.from('%PDF') }) });
    expectStatus(attachment, 201);
    expectEntity(attachment.json(), WikiAttachmentEntity);

    // Removing the group removes its wiki's repository.
    expectStatus(await t.del(`/api/v4/groups/${team.id}`, { token: ROOT_TOKEN }), 202);
    await t.runJobs();
    assert.equal(repositoryExists(dir), false);
  });
});

describe('with the project and the group', () => {
  test('removing a project removes its wiki', async () => {
    const doomed = await newProject('doomed');
    await createPage(wikis('', doomed.id), { title: 'Bye', content: 'soon' });
    const dir = path.join(t.deps.config.repositoryStorages.default, projectWikiRelativePath(doomed.id));
    assert.equal(repositoryExists(dir), true);
    expectStatus(await t.del(`/api/v4/projects/${doomed.id}`, { token: ROOT_TOKEN }), 202);
    await t.runJobs();
    assert.equal(repositoryExists(dir), false);
  });
});

describe('webhooks', () => {
  test('wiki page events reach the hooks that ask for them, with the 14.x payload', async () => {
    const received: { headers: http.IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: true });
      const hooked = await newProject('hooked');
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/wiki`;
      expectStatus(await t.post(`/api/v4/projects/${hooked.id}/hooks`, { token: ROOT_TOKEN, body: { url, push_events: false, wiki_page_events: true } }), 201);
      await createPage(wikis('', hooked.id), { title: 'docs/Hooked page', content: 'told', format: 'markdown' });
      await t.put(wikis(slugPath('docs/Hooked-page'), hooked.id), { token: dev.token, body: { content: 'told again' } });
      await t.del(wikis(slugPath('docs/Hooked-page'), hooked.id), { token: dev.token });
      await t.runJobs();
      await t.runJobs();
      assert.deepEqual(received.map((r) => [r.headers['x-gitlab-event'], (r.body.object_attributes as Record<string, unknown>).action]), [
        ['Wiki Page Hook', 'create'],
        ['Wiki Page Hook', 'update'],
        ['Wiki Page Hook', 'delete'],
      ]);
      const [created, , deleted] = received.map((r) => r.body);
      const web = `${t.deps.config.externalUrl}/${hooked.path_with_namespace}`;
      const attrs = created.object_attributes as Record<string, unknown>;
      assert.equal(created.object_kind, 'wiki_page');
      assert.deepEqual(created.wiki, {
        web_url: `${web}/-/wikis/home`,
        git_ssh_url: `${t.deps.config.sshUrlPrefix}${hooked.path_with_namespace}.wiki.git`,
        git_http_url: `${web}.wiki.git`,
        path_with_namespace: `${hooked.path_with_namespace}.wiki`,
        default_branch: 'master',
      });
      assert.deepEqual(attrs, {
        slug: 'docs/Hooked-page',
        title: 'Hooked page',
        format: 'markdown',
        message: 'scribe created page: docs/Hooked page',
        version_id: attrs.version_id,
        content: 'told',
        url: `${web}/-/wikis/docs/Hooked-page`,
        action: 'create',
        diff_url: `${web}/-/wikis/docs/Hooked-page/diff?version_id=${attrs.version_id}`,
      });
      assert.match(attrs.version_id as string, /^[0-9a-f]{40}$/);
      assert.equal((deleted.object_attributes as Record<string, unknown>).content, 'told again');
      assert.equal((created.project as Record<string, unknown>).path_with_namespace, hooked.path_with_namespace);
      assert.equal((created.user as Record<string, unknown>).username, 'scribe');
    } finally {
      receiver.close();
    }
  });
});
