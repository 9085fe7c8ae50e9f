// The invitation's mail: sent by the job the invitation enqueued, through the SMTP server of
// QUARRY_SMTP_URL (one started here), retried when the server refuses it, skipped when the
// invitation went first; and written to the log when no server is configured.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { digest } from '../../core/auth/secrets.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { createGroup, createProject } from '../../../test/factories.ts';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectStatus } from '../../../test/matchers.ts';
import { type TestMailServer, startMailServer } from '../../../test/smtp.ts';

const LINK = /http:\/\/quarry\.test\/-\/invites\/([A-Za-z0-9_-]{20})\n/;

async function world(t: TestApp): Promise<{ inviter: TestUser; group: NamespaceRow; project: ProjectRow }> {
  const inviter = await t.user({ name: 'Ida Inviter' });
  const group = await createGroup(t, { name: 'Crew', members: [[inviter.user.id, ACCESS.OWNER]] });
  const project = await createProject(t, { namespace: group, name: 'Engine' });
  return { inviter, group, project };
}

const tokenDigest = async (t: TestApp, email: string) =>
  (await t.deps.db.selectFrom('members').select('invite_token').where('invite_email', '=', email).executeTakeFirstOrThrow()).invite_token;

describe('through an SMTP server', () => {
  let t: TestApp;
  let smtp: TestMailServer;
  let w: Awaited<ReturnType<typeof world>>;

  before(async () => {
    smtp = await startMailServer();
    t = await createTestApp({ QUARRY_SMTP_URL: smtp.url });
    w = await world(t);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test('the job mails the invitation with its accept link; the row keeps only the token digest', async () => {
    const email = 'newcomer@mail.example';
    expectStatus(await t.post(`/api/v4/projects/${w.project.id}/invitations`, { token: w.inviter.token, body: { email, access_level: ACCESS.DEVELOPER } }), 201);
    assert.equal(await tokenDigest(t, email), null);
    assert.equal(smtp.received.length, 0, 'nothing is sent before the job runs');
    const outcomes = await t.runJobs();
    assert.deepEqual(outcomes.map((o) => [o.kind, o.ok]), [['invitations.send', true]]);
    assert.equal(smtp.received.length, 1);
    const [mail] = smtp.received;
    assert.equal(mail.from, 'quarry@quarry.test');
    assert.deepEqual(mail.to, [email]);
    assert.equal(mail.subject, 'Invitation to join the Crew / Engine project');
    assert.match(mail.text, /Ida Inviter invited you to join the Crew \/ Engine project as Developer\./);
    const token = LINK.exec(mail.text)?.[1];
    assert.ok(token, mail.text);
    assert.equal(await tokenDigest(t, email), digest(token));
    expectStatus(await t.get(`/-/invites/${token}`), 302);
  });

  test("a group's invitation names the group", async () => {
    smtp.received.length = 0;
    expectStatus(await t.post(`/api/v4/groups/${w.group.id}/invitations`, { token: w.inviter.token, body: { email: 'crew@mail.example', access_level: ACCESS.OWNER } }), 201);
    await t.runJobs();
    assert.equal(smtp.received[0].subject, 'Invitation to join the Crew group');
    assert.match(smtp.received[0].text, /as Owner\./);
  });

  test('a refused mail is retried; only the link of the mail that went out opens the invitation', async () => {
    smtp.received.length = 0;
    const email = 'retry@mail.example';
    expectStatus(await t.post(`/api/v4/projects/${w.project.id}/invitations`, { token: w.inviter.token, body: { email, access_level: ACCESS.GUEST } }), 201);
    smtp.refuse = true;
    const [failed] = await t.runJobs();
    assert.equal(failed.ok, false);
    const job = await t.deps.db.selectFrom('background_jobs').selectAll().where('id', '=', failed.id).executeTakeFirstOrThrow();
    assert.equal(job.state, 'queued');
    assert.match(job.last_error ?? '', /mailbox unavailable/);
    const voided = await tokenDigest(t, email);
    smtp.refuse = false;
    await t.deps.db.updateTable('background_jobs').set({ run_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', failed.id).execute();
    assert.deepEqual((await t.runJobs()).map((o) => o.ok), [true]);
    const token = LINK.exec(smtp.received[0].text)?.[1] as string;
    assert.equal(await tokenDigest(t, email), digest(token));
    assert.notEqual(voided, digest(token));
  });

  test('an invitation withdrawn before its mail went out is not mailed', async () => {
    smtp.received.length = 0;
    const email = 'gone@mail.example';
    expectStatus(await t.post(`/api/v4/projects/${w.project.id}/invitations`, { token: w.inviter.token, body: { email, access_level: ACCESS.GUEST } }), 201);
    expectStatus(await t.del(`/api/v4/projects/${w.project.id}/invitations/${email}`, { token: w.inviter.token }), 204);
    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [['invitations.send', true]]);
    assert.equal(smtp.received.length, 0);
  });
});

describe('without a mail server', () => {
  let t: TestApp;
  let w: Awaited<ReturnType<typeof world>>;

  before(async () => {
    t = await createTestApp({ QUARRY_LOG_LEVEL: 'info' });
    w = await world(t);
  });
  after(() => t.close());

  test('the message is written to the log, link included', async () => {
    const email = 'logged@mail.example';
    expectStatus(await t.post(`/api/v4/groups/${w.group.id}/invitations`, { token: w.inviter.token, body: { email, access_level: ACCESS.REPORTER } }), 201);
    const lines: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      assert.deepEqual((await t.runJobs()).map((o) => o.ok), [true]);
    } finally {
      process.stdout.write = write;
    }
    const entries = lines.map((line) => JSON.parse(line)).filter((entry) => entry.mail);
    assert.equal(entries.length, 1);
    const [entry] = entries;
    assert.equal(entry.msg, 'mail not sent (no QUARRY_SMTP_URL): written here instead');
    assert.equal(entry.name, 'mail');
    assert.deepEqual({ from: entry.mail.from, to: entry.mail.to, subject: entry.mail.subject }, { from: 'quarry@quarry.test', to: email, subject: 'Invitation to join the Crew group' });
    const token = LINK.exec(entry.mail.text)?.[1] as string;
    assert.equal(await tokenDigest(t, email), digest(token));
  });
});
