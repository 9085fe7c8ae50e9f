// Declarations of background work the pages module runs, so that the writers that call for it
// enqueue it without depending on that module: publishing the site of a `pages` job that
// succeeded (the CI jobs module enqueues it with the job's change of status), and verifying a
// custom domain's DNS record.
import { Type } from '@sinclair/typebox';
import type { JobDeclaration } from './queue.ts';

const DeployPayload = Type.Object({ buildId: Type.Integer() }, { additionalProperties: false });

const VerifyPayload = Type.Object({ domainId: Type.Integer() }, { additionalProperties: false });

export const PAGES_DEPLOY: JobDeclaration<typeof DeployPayload> = { name: 'pages.deploy', payload: DeployPayload, maxAttempts: 3 };
export const PAGES_VERIFY_DOMAIN: JobDeclaration<typeof VerifyPayload> = { name: 'pages.verify_domain', payload: VerifyPayload, maxAttempts: 3 };

/** The job name that publishes a project's site (the platform's `pages_generator?`). */
export const PAGES_JOB_NAME = 'pages';
