// Adding, changing and removing a project's pages domains (14.x PagesDomain through the API), and
// verifying them (VerifyPagesDomainService). The private key is sealed with the instance's key and
// never shown; the certificate is kept as given. A new domain gets its verification code and is
// verified in the background at once (the platform waits for its next verification round):
// verified while its code is published in a TXT record of the domain or of
// `_gitlab-pages-verification-code.<domain>`, and then served for a week past each success, so
// that a record that goes missing leaves it served until then.
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { PagesDomainRow, ProjectRow } from '../../db/schema.ts';
import { parseCertificate } from '../../domain/certificates.ts';
import { TAKEN } from '../../domain/validation.ts';
import { PAGES_VERIFY_DOMAIN } from '../../jobs/pages-work.ts';
import { enqueue } from '../../jobs/queue.ts';
import { domainTaken } from './pages-domains.finder.ts';
import type { CreateDomainBody, UpdateDomainBody } from './pages-domains.schemas.ts';
import { domainErrors, isPresent } from './pages-domains.validation.ts';

/** The TXT record's name prefix and value prefix (PagesDomain::VERIFICATION_KEY). */
export const VERIFICATION_KEY = 'gitlab-pages-verification-code';
const VERIFICATION_PERIOD_MS = 7 * 24 * 3600 * 1000;
const RESOLVER_TIMEOUT_MS = 15_000;

/** The validity columns of a certificate; nulls without one. */
function validity(certificate: string | null): { certificate_valid_not_before: string | null; certificate_valid_not_after: string | null } {
  const x509 = certificate ? parseCertificate(certificate) : null;
  return { certificate_valid_not_before: x509?.validFromDate.toISOString() ?? null, certificate_valid_not_after: x509?.validToDate.toISOString() ?? null };
}

/** A concurrent writer of the same name: the answer of the check before it. */
async function unlessTaken<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw invalidFields({ domain: [TAKEN] });
    throw error;
  }
}

const verifyLater = (ctx: ServiceContext, id: number) => enqueue(ctx.db, PAGES_VERIFY_DOMAIN, { domainId: id }, { dedupeKey: String(id) });

/** POST /projects/:id/pages/domains. */
export async function createDomain(ctx: ServiceContext, project: ProjectRow, input: CreateDomainBody): Promise<PagesDomainRow> {
  const certificate = isPresent(input.certificate ?? null) ? input.certificate! : null;
  const key = isPresent(input.key ?? null) ? input.key! : null;
  const now = ctx.now();
  const errors = domainErrors({
    domain: input.domain,
    certificate,
    key,
    certificateChanged: certificate !== null,
    taken: await domainTaken(ctx.db, input.domain, null),
    pagesHost: ctx.config.pagesDomain,
    now,
  });
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  const at = now.toISOString();
  return withTransaction(ctx, async (tx) => {
    const row = await unlessTaken(() =>
      tx.db
        .insertInto('pages_domains')
        .values({
          project_id: project.id,
          domain: input.domain,
          certificate,
          key_encrypted: key === null ? null : secretBox(tx.config.dataDir).seal(key),
          ...validity(certificate),
          auto_ssl_enabled: input.auto_ssl_enabled ?? false,
          verification_code: randomBytes(16).toString('hex'),
          created_at: at,
          updated_at: at,
        })
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
    await verifyLater(tx, row.id);
    return row;
  });
}

/** A text parameter as the platform stores it: a blank one clears the field. */
const cleared = (value: string) => (isPresent(value) ? value : null);

/** PUT /projects/:id/pages/domains/:domain: what is given; a certificate without a key keeps the key. */
export async function updateDomain(ctx: ServiceContext, row: PagesDomainRow, changes: UpdateDomainBody): Promise<PagesDomainRow> {
  const box = secretBox(ctx.config.dataDir);
  const certificate = changes.certificate === undefined ? row.certificate : cleared(changes.certificate);
  const storedKey = row.key_encrypted === null ? null : box.open(row.key_encrypted);
  const key = changes.key === undefined ? storedKey : cleared(changes.key);
  const autoSsl = changes.auto_ssl_enabled ?? row.auto_ssl_enabled;
  const certificateChanged = certificate !== row.certificate;
  const keyChanged = key !== storedKey;
  const now = ctx.now();
  const errors = domainErrors({ domain: row.domain, certificate, key, certificateChanged, taken: false, pagesHost: ctx.config.pagesDomain, now });
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  // Nothing to write keeps the domain's updated_at, as the platform's save does.
  if (!certificateChanged && !keyChanged && autoSsl === row.auto_ssl_enabled) return row;
  return ctx.db
    .updateTable('pages_domains')
    .set({
      ...(certificateChanged ? { certificate, ...validity(certificate) } : {}),
      ...(keyChanged ? { key_encrypted: key === null ? null : box.seal(key) } : {}),
      ...(certificateChanged || keyChanged ? { certificate_source: 'user_provided' } : {}),
      auto_ssl_enabled: autoSsl,
      updated_at: now.toISOString(),
    })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteDomain(ctx: ServiceContext, row: PagesDomainRow): Promise<void> {
  await ctx.db.deleteFrom('pages_domains').where('id', '=', row.id).execute();
}

/** The words of the TXT records at `name`, split as the platform splits them; none when the lookup fails. */
async function txtWords(resolver: Resolver, name: string): Promise<string[]> {
  try {
    return (await resolver.resolveTxt(name)).flat().flatMap((chunk) => chunk.split(/\s+/));
  } catch {
    return [];
  }
}

/** Whether the domain publishes its code, in a TXT record of its own or of its verification name. */
async function dnsRecordPresent(ctx: ServiceContext, row: PagesDomainRow): Promise<boolean> {
  const resolver = new Resolver({ timeout: RESOLVER_TIMEOUT_MS, tries: 1 });
  if (ctx.config.pagesDnsServers.length > 0) resolver.setServers([...ctx.config.pagesDnsServers]);
  const expected = new Set([`${VERIFICATION_KEY}=${row.verification_code}`, row.verification_code]);
  for (const name of [row.domain, `_${VERIFICATION_KEY}.${row.domain}`]) {
    if ((await txtWords(resolver, name)).some((word) => expected.has(word))) return true;
  }
  return false;
}

/**
 * Verifies a domain: verified (and served a week on, never less than it already was) while the
 * record is there or verification is off; else unverified, and no longer served once its time ran out.
 */
export async function verifyDomain(ctx: ServiceContext, domainId: number): Promise<void> {
  const row = await ctx.db.selectFrom('pages_domains').selectAll().where('id', '=', domainId).executeTakeFirst();
  if (!row) return;
  const now = ctx.now();
  const verified = !ctx.config.pagesDomainVerification || (await dnsRecordPresent(ctx, row));
  let next: Pick<PagesDomainRow, 'verified_at' | 'enabled_until'>;
  if (verified) {
    const week = new Date(now.getTime() + VERIFICATION_PERIOD_MS).toISOString();
    next = { verified_at: now.toISOString(), enabled_until: row.enabled_until !== null && row.enabled_until > week ? row.enabled_until : week };
  } else if (row.enabled_until !== null && row.enabled_until < now.toISOString()) {
    next = { verified_at: null, enabled_until: null };
  } else {
    next = { verified_at: null, enabled_until: row.enabled_until };
  }
  await ctx.db.updateTable('pages_domains').set(next).where('id', '=', row.id).execute();
}
