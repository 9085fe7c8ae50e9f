// The background job that judges again the signatures a new key or a newly proved address may verify.
import { defineJobKind } from '../../jobs/queue.ts';
import { recheckKeySignatures } from './commit-signatures.service.ts';
import { RECHECK_SIGNATURES } from './gpg-keys.service.ts';

export const recheckSignaturesJob = defineJobKind({ ...RECHECK_SIGNATURES, run: (ctx, payload, job) => recheckKeySignatures(ctx, payload.gpgKeyId, job) });
