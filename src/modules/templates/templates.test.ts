// The templates Quarry ships: licenses with the platform's fields and placeholder filling,
// gitignores, CI files and Dockerfiles, their lists (paginated) and their 404s, for anyone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { readTemplate } from '../../ci/config/index.ts';
import { fillLicense } from './templates.presenter.ts';
import { LicenseEntity, TemplateEntity, TemplatesListEntity } from './templates.schemas.ts';

let t: TestApp;
let alice: TestUser;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice-tpl', name: 'Alice Liddell' });
});
after(() => t.close());

const YEAR = String(new Date().getUTCFullYear());

/** The licenses choosealicense.com does not hide, by name, as the platform lists them. */
const LICENSE_KEYS = [
  'apache-2.0',
  'bsd-2-clause',
  'bsd-3-clause',
  'bsl-1.0',
  'cc0-1.0',
  'epl-2.0',
  'agpl-3.0',
  'gpl-2.0',
  'gpl-3.0',
  'lgpl-2.1',
  'mit',
  'mpl-2.0',
  'unlicense',
];
const POPULAR = ['apache-2.0', 'gpl-3.0', 'mit'];

describe('GET /templates/licenses', () => {
  test('every license the platform offers, sorted by name, with its whole entity and its text unfilled', async () => {
    const res = await t.get('/api/v4/templates/licenses', { query: { per_page: '100' } });
    expectStatus(res, 200);
    const body = res.json();
    expectEntities(body, LicenseEntity);
    assert.deepEqual(body.map((l: { key: string }) => l.key), LICENSE_KEYS);
    assert.equal(res.headers['x-total'], String(LICENSE_KEYS.length));
    const mit = body.find((l: { key: string }) => l.key === 'mit');
    assert.match(mit.content, /Copyright \(c\) \[year\] \[fullname\]/);
    for (const license of body) {
      assert.equal(license.popular, POPULAR.includes(license.key), license.key);
      assert.equal(license.featured, license.popular);
      assert.equal(license.html_url, `http://choosealicense.com/licenses/${license.key}/`);
      assert.equal(license.source_url, null);
      assert.ok(license.description.length > 20 && license.content.length > 100, license.key);
    }
  });

  test('popular=true keeps the popular ones, popular=false the others', async () => {
    const popular = await t.get('/api/v4/templates/licenses', { query: { popular: 'true' } });
    expectStatus(popular, 200);
    expectEntities(popular.json(), LicenseEntity);
    assert.deepEqual(popular.json().map((l: { key: string }) => l.key), POPULAR);
    const others = await t.get('/api/v4/templates/licenses', { query: { popular: 'false', per_page: '100' } });
    assert.deepEqual(others.json().map((l: { key: string }) => l.key), LICENSE_KEYS.filter((k) => !POPULAR.includes(k)));
    expectError(await t.get('/api/v4/templates/licenses', { query: { popular: 'maybe' } }), 400, { error: 'popular is invalid' });
  });

  test('pages', async () => {
    const res = await t.get('/api/v4/templates/licenses', { query: { per_page: '5', page: '3' } });
    expectStatus(res, 200);
    assert.deepEqual(res.json().map((l: { key: string }) => l.key), LICENSE_KEYS.slice(10));
    assert.deepEqual(
      ['x-page', 'x-per-page', 'x-total', 'x-total-pages', 'x-prev-page', 'x-next-page'].map((h) => res.headers[h]),
      ['3', '5', '13', '3', '2', ''],
    );
    assert.match(String(res.headers.link), /page=2&per_page=5>; rel="prev".*rel="first".*page=3&per_page=5>; rel="last"/);
    expectError(await t.get('/api/v4/templates/licenses', { query: { per_page: 'many' } }), 400, { error: 'per_page is invalid' });
  });
});

describe('GET /templates/licenses/:key', () => {
  test("MIT: the platform's fields, the year and the caller's name filled in", async () => {
    const res = await t.get('/api/v4/templates/licenses/mit', { token: alice.token });
    expectStatus(res, 200);
    const body = res.json();
    expectEntity(body, LicenseEntity);
    const { content, description, ...rest } = body;
    assert.deepEqual(rest, {
      key: 'mit',
      name: 'MIT License',
      nickname: null,
      featured: true,
      html_url: 'http://choosealicense.com/licenses/mit/',
      source_url: null,
      conditions: ['include-copyright'],
      permissions: ['commercial-use', 'modifications', 'distribution', 'private-use'],
      limitations: ['liability', 'warranty'],
      popular: true,
    });
    assert.match(description, /^A short and simple permissive license with conditions/);
    assert.ok(content.startsWith(`MIT License\n\nCopyright (c) ${YEAR} Alice Liddell\n\nPermission is hereby granted`), content.slice(0, 100));
  });

  test('fullname wins over the caller; anonymous callers leave the holder as it is', async () => {
    const named = await t.get('/api/v4/templates/licenses/mit', { token: alice.token, query: { fullname: 'Dinah Cat' } });
    assert.match(named.json().content, new RegExp(`Copyright \\(c\\) ${YEAR} Dinah Cat\\n`));
    const anonymous = await t.get('/api/v4/templates/licenses/mit');
    expectStatus(anonymous, 200);
    assert.match(anonymous.json().content, new RegExp(`Copyright \\(c\\) ${YEAR} \\[fullname\\]\\n`));
    const empty = await t.get('/api/v4/templates/licenses/mit', { token: alice.token, query: { fullname: '' } });
    assert.match(empty.json().content, /Alice Liddell/);
  });

  test("GPL v3: the project's line, the author and the year in its angle brackets", async () => {
    const res = await t.get('/api/v4/templates/licenses/gpl-3.0', { token: ROOT_TOKEN, query: { project: 'Looking Glass', fullname: 'Alice' } });
    expectStatus(res, 200);
    expectEntity(res.json(), LicenseEntity);
    const { content, nickname } = res.json();
    assert.equal(nickname, 'GNU GPLv3');
    assert.ok(content.includes(`    Looking Glass\n    Copyright (C) ${YEAR}  Alice\n`), content.slice(content.indexOf('How to Apply'), content.indexOf('How to Apply') + 800));
    assert.ok(!/<one line to give|<name of author>|<year>/.test(content));
    // Without a project the line stays.
    const unnamed = await t.get('/api/v4/templates/licenses/gpl-3.0');
    assert.match(unnamed.json().content, /<one line to give the program's name and a brief idea of what it does\.>/);
  });

  test('missing licenses, in the platform words', async () => {
    expectError(await t.get('/api/v4/templates/licenses/nope'), 404, { message: '404 License Not Found' });
    // Keys are matched as written.
    expectError(await t.get('/api/v4/templates/licenses/MIT'), 404, { message: '404 License Not Found' });
    // A hidden license of choosealicense.com is no template.
    expectError(await t.get('/api/v4/templates/licenses/wtfpl'), 404, { message: '404 License Not Found' });
    // Keys are word characters, dots and dashes: anything else does not route.
    expectError(await t.get('/api/v4/templates/licenses/C%2B%2B'), 404, { error: '404 Not Found' });
    expectError(await t.get('/api/v4/templates/licenses/%E2%9C%93'), 404, { error: '404 Not Found' });
  });
});

test('placeholder patterns: every bracket, any case, in order, values taken literally', () => {
  const text = '[year] {YYYY} <Year> [project] {description} [fullname] <name of copyright owner> {Name of Author} [yearly]';
  assert.equal(fillLicense(text, { year: '2024', project: 'P', fullname: 'F' }), '2024 2024 2024 P P F F F [yearly]');
  assert.equal(fillLicense(text, { year: '2024' }), '2024 2024 2024 [project] {description} [fullname] <name of copyright owner> {Name of Author} [yearly]');
  // The project is filled before the holder, so a project naming the placeholder gets the holder.
  assert.equal(fillLicense('[project]', { year: '1', project: '$& [fullname]', fullname: '$1' }), '$& $1');
});

describe('gitignores, GitLab CI YAML files and Dockerfiles', () => {
  test('gitignores: the languages, then the global ones, each sorted', async () => {
    const all: { key: string; name: string }[] = [];
    for (let page = 1; ; page++) {
      const res = await t.get('/api/v4/templates/gitignores', { query: { per_page: '100', page: String(page) } });
      expectStatus(res, 200);
      expectEntities(res.json(), TemplatesListEntity);
      all.push(...res.json());
      if (res.headers['x-next-page'] === '') break;
    }
    assert.ok(all.length > 150, String(all.length));
    assert.ok(all.every((item) => item.key === item.name));
    const names = all.map((item) => item.name);
    // Two sorted runs: the languages, then the global ones.
    const breaks = names.flatMap((name, i) => (i > 0 && name < names[i - 1] ? [i] : []));
    assert.equal(breaks.length, 1, String(breaks));
    const [languages, global] = [names.slice(0, breaks[0]), names.slice(breaks[0])];
    assert.deepEqual(languages.slice(0, 3), ['Actionscript', 'Ada', 'Agda']);
    assert.ok(languages.includes('Ruby') && languages.includes('Node') && !languages.includes('Vim'));
    assert.ok(global.includes('Vim') && global.includes('macOS') && !global.includes('Ruby'));

    const ruby = await t.get('/api/v4/templates/gitignores/Ruby');
    expectStatus(ruby, 200);
    expectEntity(ruby.json(), TemplateEntity);
    assert.equal(ruby.json().name, 'Ruby');
    assert.match(ruby.json().content, /^\*\.gem$/m);
    // A global one by its name.
    const vim = await t.get('/api/v4/templates/gitignores/Vim');
    expectStatus(vim, 200);
    assert.match(vim.json().content, /^Session\.vim$/m);
    expectError(await t.get('/api/v4/templates/gitignores/Nope'), 404, { message: '404 gitignore Not Found' });
    // Names are word characters, dots and dashes as written in the path: others do not route
    // (a project's templates take encoded names).
    for (const name of ['C%2B%2B', 'Global%2FVim', '..%2F..%2Fpackage', 'C++']) {
      expectError(await t.get(`/api/v4/templates/gitignores/${name}`), 404, { error: '404 Not Found' });
    }
  });

  test('GitLab CI YAML files: the ones include: template reads, under the platform disclaimer', async () => {
    const res = await t.get('/api/v4/templates/gitlab_ci_ymls', { query: { per_page: '100' } });
    expectStatus(res, 200);
    expectEntities(res.json(), TemplatesListEntity);
    const names = res.json().map((item: { name: string }) => item.name);
    for (const name of ['Bash', 'Docker', 'Go', 'Maven', 'Nodejs', 'Python', 'Ruby', 'Rust']) assert.ok(names.includes(name), name);
    assert.deepEqual(names, [...names].sort());
    for (const name of names) {
      const one = await t.get(`/api/v4/templates/gitlab_ci_ymls/${name}`);
      expectStatus(one, 200);
      expectEntity(one.json(), TemplateEntity);
      assert.deepEqual(one.json(), {
        name,
        content: `# This file is a template, and might need editing before it works on your project.\n${readTemplate(`${name}.gitlab-ci.yml`)}`,
      });
    }
    expectError(await t.get('/api/v4/templates/gitlab_ci_ymls/Nope'), 404, { message: '404 gitlab_ci_yml Not Found' });
    expectError(await t.get('/api/v4/templates/gitlab_ci_ymls/..'), 404, { error: '404 Not Found' });
    for (const name of ['Workflows%2FBranch-Pipelines', '..%2Fconfig%2Fcompile', '%2Fetc%2Fpasswd']) {
      expectError(await t.get(`/api/v4/templates/gitlab_ci_ymls/${name}`), 404, { error: '404 Not Found' });
    }
  });

  test('Dockerfiles', async () => {
    const res = await t.get('/api/v4/templates/dockerfiles', { query: { per_page: '2', page: '2' } });
    expectStatus(res, 200);
    expectEntities(res.json(), TemplatesListEntity);
    assert.deepEqual(res.json(), [
      { key: 'Binary-scratch', name: 'Binary-scratch' },
      { key: 'Golang', name: 'Golang' },
    ]);
    assert.equal(res.headers['x-total'], '18');
    const node = await t.get('/api/v4/templates/dockerfiles/Node');
    expectStatus(node, 200);
    expectEntity(node.json(), TemplateEntity);
    assert.ok(node.json().content.startsWith('# This file is a template, and might need editing before it works on your project.\n#'));
    assert.match(node.json().content, /^FROM node:/m);
    expectError(await t.get('/api/v4/templates/dockerfiles/Nope'), 404, { message: '404 dockerfile Not Found' });
  });
});

test('anyone may read them; a blocked account may not', async () => {
  const blocked = await t.user({ username: 'blocked-tpl' });
  await t.deps.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', blocked.user.id).execute();
  for (const path of ['/templates/licenses', '/templates/licenses/mit', '/templates/gitignores', '/templates/gitignores/Ruby', '/templates/gitlab_ci_ymls/Bash', '/templates/dockerfiles/Node']) {
    for (const token of [undefined, alice.token, ROOT_TOKEN]) expectStatus(await t.get(`/api/v4${path}`, { token }), 200);
    expectError(await t.get(`/api/v4${path}`, { token: blocked.token }), 403, { message: '403 Forbidden - Your account has been blocked.' });
  }
});
