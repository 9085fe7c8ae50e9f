// The API reference page in a real browser: headless Chromium (Debian's `chromium`, which .ci/run
// installs) driven by playwright-core. The page loads without console errors and with no request
// leaving the server, lists every operation of the document, and a request made from it with a
// token succeeds. Without Chromium the test is skipped, not passed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { listeningTestApp } from '../../../test/listening.ts';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(
  (file): file is string => !!file && fs.existsSync(file),
);
const skip = CHROMIUM ? false : 'no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)';

let t: TestApp;
let host: string;
let browser: Browser;

before(async () => {
  if (!CHROMIUM) return;
  ({ t, host } = await listeningTestApp());
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
});
after(async () => {
  await browser?.close();
  await t?.close();
});

test('the reference page lists the operations and sends a request with a token from the page', { skip, timeout: 120_000 }, async () => {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  page.on('request', (request) => {
    if (!request.url().startsWith(host)) problems.push(`left the server: ${request.url()}`);
  });

  await page.goto(`${host}/-/api-docs`);
  const operations = page.locator('.opblock');
  await operations.first().waitFor({ timeout: 60_000 });
  const doc = (await (await fetch(`${host}/-/openapi.json`)).json()) as { paths: Record<string, object> };
  const count = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  // Every operation is in the page's list. From 150 rows on, Swagger UI renders only those in
  // view (a virtual list), so the list is read from its model, and operations are reached by link.
  const listed = await page.evaluate(() => {
    const ui = (globalThis as unknown as { ui: { specSelectors: { taggedOperations(): { toJS(): Record<string, { operations: unknown[] }> } } } }).ui;
    return Object.values(ui.specSelectors.taggedOperations().toJS()).reduce((n, tag) => n + tag.operations.length, 0);
  });
  assert.equal(listed, count);
  // Scrolls the virtual list until an operation is rendered.
  const reveal = async (id: string) => {
    const target = page.locator(`#${id}`);
    await page.mouse.move(400, 400);
    for (let i = 0; i < 400 && (await target.count()) === 0; i++) {
      await page.mouse.wheel(0, 800);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await target.scrollIntoViewIfNeeded();
    return target;
  };
  await reveal('operations-projects-getProjects');
  assert.equal(await page.locator('#operations-projects-getProjects .opblock-summary-path').getAttribute('data-path'), '/api/v4/projects');

  // Authorize with the PRIVATE-TOKEN header, then call GET /api/v4/user from the page.
  await page.locator('button.btn.authorize').first().click();
  const scheme = page.locator('.modal-ux .auth-container', { hasText: 'PRIVATE-TOKEN' });
  await scheme.locator('input').fill(ROOT_TOKEN);
  await scheme.locator('button.authorize').click();
  await page.locator('.modal-ux button.close-modal').click();

  const operation = await reveal('operations-user-getUser');
  await operation.locator('.opblock-summary').first().click();
  await operation.locator('button.try-out__btn').click();
  const answer = page.waitForResponse((res) => res.url() === `${host}/api/v4/user`);
  await operation.locator('button.execute').click();
  const response = await answer;
  assert.equal(response.status(), 200);
  assert.equal(response.request().headers()['private-token'], ROOT_TOKEN);
  await operation.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor();
  await operation.locator('.live-responses-table pre', { hasText: '"username": "root"' }).first().waitFor();

  assert.deepEqual(problems, []);
});
