// The verdict on a GPG-signed commit (the platform's Gitlab::Gpg::Commit, 14.x), judged when first
// asked and kept: the key that made the signature is looked up by the fingerprint (or key id) the
// signature names, among primary keys and subkeys; then, in this order, no such key → unknown_key,
// a key with no address its owner has proved → unverified_key, a bad signature → unverified, the
// committer's address among the key's proved ones → verified, among the owner's others →
// same_user_different_email, else other_user.
import type { Kysely } from 'kysely';
import type { BaseContext, ServiceContext } from '../../core/context.ts';
import type { DB, GpgSignatureRow, UserRow } from '../../db/schema.ts';
import { type GpgUserInfo, parseGpgKey, readDetachedSignature } from '../../domain/openpgp.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { type CommitSignature, readCommitSignature } from '../../git/commit-signatures.ts';
import type { RunningJob } from '../../jobs/queue.ts';
import { findKeyOwner, findSigningKey, findStoredSignature, furtherAddresses, keyIdentifiers, unsettledSignatures } from './gpg-keys.finder.ts';
import type { VerificationStatus } from './gpg-keys.schemas.ts';

type Verdict = Pick<GpgSignatureRow, 'gpg_key_id' | 'gpg_key_subkey_id' | 'gpg_key_primary_keyid' | 'gpg_key_user_name' | 'gpg_key_user_email' | 'verification_status'>;

/** The owner's addresses in lower case: those proved (confirmed, and the private commit address) and all. */
async function ownerAddresses(db: Kysely<DB>, owner: UserRow, externalUrl: string) {
  const hostname = (await applicationSettings(db)).commit_email_hostname ?? `users.noreply.${new URL(externalUrl).hostname}`;
  const privateCommitEmail = `${owner.id}-${owner.username}@${hostname}`.toLowerCase();
  const further = await furtherAddresses(db, owner.id);
  const primary = owner.email.toLowerCase();
  return {
    verified: new Set([...(owner.confirmed_at !== null ? [primary] : []), privateCommitEmail, ...further.confirmed]),
    all: new Set([primary, privateCommitEmail, ...further.all]),
  };
}

async function judge(ctx: BaseContext, signed: CommitSignature): Promise<Verdict | null> {
  const signature = await readDetachedSignature(signed.signature, signed.signedData);
  if (!signature) return null;
  const unknown: Verdict = {
    gpg_key_id: null,
    gpg_key_subkey_id: null,
    gpg_key_primary_keyid: signature.issuer,
    gpg_key_user_name: null,
    gpg_key_user_email: null,
    verification_status: 'unknown_key',
  };
  const signing = await findSigningKey(ctx.db, signature.issuer);
  const owner = signing && (await findKeyOwner(ctx.db, signing.key));
  const parsed = signing && (await parseGpgKey(signing.key.key));
  if (!signing || !owner || !parsed) return unknown;

  const addresses = await ownerAddresses(ctx.db, owner, ctx.config.externalUrl);
  const provedInfos: GpgUserInfo[] = parsed.userInfos.filter((info) => addresses.verified.has(info.email));
  const info = provedInfos[0] ?? parsed.userInfos[0];
  const committer = signed.committerEmail.toLowerCase();
  let status: VerificationStatus;
  if (provedInfos.length === 0) status = 'unverified_key';
  else if (!(await signature.verifiedBy(signing.key.key))) status = 'unverified';
  else if (provedInfos.some((i) => i.email === committer)) status = 'verified';
  else if (addresses.all.has(committer)) status = 'same_user_different_email';
  else status = 'other_user';
  return {
    gpg_key_id: signing.subkey ? null : signing.key.id,
    gpg_key_subkey_id: signing.subkey?.id ?? null,
    // The platform names the key that signed: the subkey's id when a subkey did.
    gpg_key_primary_keyid: signing.subkey?.keyid ?? signing.key.primary_keyid,
    gpg_key_user_name: info?.name ?? null,
    gpg_key_user_email: info?.email ?? null,
    verification_status: status,
  };
}

/**
 * GET …/commits/:sha/signature: the verdict on this commit of the project, judged now if it never
 * was; null when the commit carries no readable OpenPGP signature.
 */
export async function commitSignatureVerdict(ctx: ServiceContext, projectId: number, commitId: string, signed: CommitSignature): Promise<GpgSignatureRow | null> {
  const stored = await findStoredSignature(ctx.db, projectId, commitId);
  if (stored) return stored;
  const verdict = await judge(ctx, signed);
  if (!verdict) return null;
  const at = ctx.now().toISOString();
  // Two first readers at once: one row wins, and both answer it.
  await ctx.db
    .insertInto('gpg_signatures')
    .values({ project_id: projectId, commit_sha: commitId, ...verdict, created_at: at, updated_at: at })
    .onConflict((oc) => oc.columns(['project_id', 'commit_sha']).doNothing())
    .execute();
  return (await findStoredSignature(ctx.db, projectId, commitId)) ?? null;
}

/** The job's work: the unverified signatures naming this key are judged again against the repositories. */
export async function recheckKeySignatures(ctx: ServiceContext, gpgKeyId: number, job: RunningJob): Promise<void> {
  const key = await ctx.db.selectFrom('gpg_keys').selectAll().where('id', '=', gpgKeyId).executeTakeFirst();
  if (key) {
    const rows = await unsettledSignatures(ctx.db, await keyIdentifiers(ctx.db, key));
    const projectIds = [...new Set(rows.map((r) => r.project_id))];
    const projects = projectIds.length === 0 ? [] : await ctx.db.selectFrom('projects').select(['id', 'repository_storage']).where('id', 'in', projectIds).execute();
    const byId = new Map(projects.map((p) => [p.id, p]));
    for (const row of rows) {
      const project = byId.get(row.project_id);
      const dir = project ? repositoryDir(ctx.config, project) : null;
      const commit = dir === null ? null : await readCommitSignature(dir, row.commit_sha);
      const verdict = commit?.signature ? await judge(ctx, commit.signature) : null;
      if (verdict) await ctx.db.updateTable('gpg_signatures').set({ ...verdict, updated_at: ctx.now().toISOString() }).where('id', '=', row.id).execute();
    }
  }
  await job.complete(ctx.db);
}
