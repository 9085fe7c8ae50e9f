// Pages' background work: publishing a `pages` job's site, verifying a custom domain, and every
// 15 minutes (the platform's PagesDomainVerificationCronWorker) queueing the verification of the
// domains that need it: never verified, or whose week is about to run out (within 3 days).
import { systemContext } from '../../core/context.ts';
import { PAGES_DEPLOY, PAGES_VERIFY_DOMAIN } from '../../jobs/pages-work.ts';
import { defineJobKind, enqueueMany } from '../../jobs/queue.ts';
import type { PeriodicTask } from '../../jobs/scheduler.ts';
import { deploySite } from './pages-deployments.service.ts';
import { verifyDomain } from './pages-domains.service.ts';

const THRESHOLD_MS = 3 * 24 * 3600 * 1000;
const BATCH = 500;

export const deployPagesJob = defineJobKind({ ...PAGES_DEPLOY, run: (ctx, { buildId }) => deploySite(ctx, buildId) });

export const verifyPagesDomainJob = defineJobKind({ ...PAGES_VERIFY_DOMAIN, run: (ctx, { domainId }) => verifyDomain(ctx, domainId) });

export const verifyPagesDomainsTask: PeriodicTask = {
  name: 'verify_pages_domains',
  everySeconds: 15 * 60,
  async run(deps) {
    const ctx = systemContext(deps);
    if (!ctx.config.pagesEnabled) return;
    const threshold = new Date(ctx.now().getTime() + THRESHOLD_MS).toISOString();
    let after = 0;
    for (;;) {
      const due = await ctx.db
        .selectFrom('pages_domains')
        .select('id')
        .where('id', '>', after)
        .where((eb) => eb.or([eb('verified_at', 'is', null), eb('enabled_until', 'is', null), eb('enabled_until', '<', threshold)]))
        .orderBy('id')
        .limit(BATCH)
        .execute();
      await enqueueMany(ctx.db, PAGES_VERIFY_DOMAIN, due.map(({ id }) => ({ payload: { domainId: id }, dedupeKey: String(id) })));
      if (due.length < BATCH) return;
      after = due[due.length - 1].id;
    }
  },
};
