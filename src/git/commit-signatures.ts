// The OpenPGP signature a commit carries in its gpgsig header, and the text it signs (the commit
// object without that header), read through the repository's long-lived object reader and kept by
// commit id in the object cache: a commit never changes, so neither do they.
import { requireObjectId, validRevision } from './args.ts';
import { objectCache } from './object-cache.ts';
import { objectKey, peelToCommit } from './objects.ts';
import { type Repository, openRepository, readers } from './reader-pool.ts';

export interface CommitSignature {
  /** The armored signature, as the header holds it (continuation lines unindented). */
  signature: string;
  /** The bytes signed: the raw commit with the signature header left out. */
  signedData: Buffer;
  /** The committer's email, as the commit names it. */
  committerEmail: string;
}

const SIGNATURE_HEADERS = ['gpgsig', 'gpgsig-sha256'];

/** Splits a raw commit into its signature and what it signs; null when it carries no OpenPGP signature. */
export function splitSignedCommit(raw: Buffer): CommitSignature | null {
  const text = raw.toString('latin1');
  const end = text.indexOf('\n\n');
  const headerText = end === -1 ? text : text.slice(0, end);
  const lines = headerText.split('\n');
  const kept: string[] = [];
  const signature: string[] = [];
  let committerEmail = '';
  let inSignature = false;
  for (const line of lines) {
    if (line.startsWith(' ')) {
      if (inSignature) signature.push(line.slice(1));
      else kept.push(line);
      continue;
    }
    const key = line.slice(0, line.indexOf(' '));
    inSignature = SIGNATURE_HEADERS.includes(key) && signature.length === 0;
    if (inSignature) {
      signature.push(line.slice(key.length + 1));
      continue;
    }
    if (key === 'committer') committerEmail = /<([^>]*)>/.exec(line)?.[1] ?? '';
    kept.push(line);
  }
  // Only OpenPGP signatures: SSH and X.509 ones are other kinds of signature.
  if (signature.length === 0 || !signature[0].startsWith('-----BEGIN PGP SIGNATURE-----')) return null;
  const signed = kept.join('\n') + (end === -1 ? '' : text.slice(end));
  return {
    signature: Buffer.from(signature.join('\n'), 'latin1').toString('utf8'),
    signedData: Buffer.from(signed, 'latin1'),
    committerEmail: Buffer.from(committerEmail, 'latin1').toString('utf8'),
  };
}

async function readSignature(repo: Repository, commitId: string): Promise<CommitSignature | null | undefined> {
  const object = await readers.contents(repo, requireObjectId(commitId));
  if (object?.type !== 'commit') return undefined;
  return splitSignedCommit(object.content);
}

export interface SignedCommit {
  /** The commit's id. */
  id: string;
  /** Null when the commit is not signed with OpenPGP. */
  signature: CommitSignature | null;
}

/** The commit a revision names, with its OpenPGP signature; null when the revision names no commit. */
export async function readCommitSignature(gitDir: string, revision: string): Promise<SignedCommit | null> {
  if (!validRevision(revision)) return null;
  const repo = openRepository(gitDir);
  const id = await peelToCommit(repo, revision);
  if (id === null) return null;
  const signature = await objectCache.remember(objectKey(repo, 'commit-signature', id), () => readSignature(repo, id), (value) =>
    value === undefined ? null : value === null ? 100 : value.signedData.length + value.signature.length * 2 + 200,
  );
  return signature === undefined ? null : { id, signature };
}
