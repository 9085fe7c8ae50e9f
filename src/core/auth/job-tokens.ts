// Job tokens are minted by CI; core only resolves them, through whatever resolver CI registers.
import type { Kysely } from 'kysely';
import type { DB, UserRow } from '../../db/schema.ts';

/** CI job tokens start with this; such a value in PRIVATE-TOKEN is never a personal token. */
export const JOB_TOKEN_PREFIX = 'glcbt-';

export type JobTokenResult = { user: UserRow; jobId: number } | null;
export type JobTokenResolver = (db: Kysely<DB>, token: string) => Promise<JobTokenResult>;

/** Until CI registers its resolver, no job token is valid. */
export const noJobTokens: JobTokenResolver = async () => null;
