// Copying a repository to another storage for a storage move, and checking the copy: the refs and
// every object's checksum equal on both sides, and the original unchanged meanwhile (else it is
// copied again, a few times at most).
import { type RepositoryChecksums, repositoryChecksums } from './checksums.ts';
import { copyRepositoryTo, deleteRepository, repositoryExists } from './repository.ts';

/** Copies made before a move gives up on a repository that keeps changing underneath. */
const COPY_ATTEMPTS = 3;

const same = (a: RepositoryChecksums, b: RepositoryChecksums) => a.refs === b.refs && a.objects === b.objects;

/**
 * Copies the repository at `source` to `destination` (in the storage `destinationStorageDir`) and
 * checks the copy; nothing when there is no repository at `source`. What an attempt cut short
 * left at the destination is replaced: it belongs to this move.
 */
export async function replicateRepository(source: string, destination: string, destinationStorageDir: string): Promise<void> {
  for (let attempt = 1; attempt <= COPY_ATTEMPTS; attempt++) {
    await deleteRepository(destination);
    if (!repositoryExists(source)) return;
    const before = await repositoryChecksums(source);
    await copyRepositoryTo(source, destination, destinationStorageDir);
    const [copied, after] = await Promise.all([repositoryChecksums(destination), repositoryChecksums(source)]);
    if (same(before, after) && same(copied, after)) return;
  }
  await deleteRepository(destination);
  throw new Error(`the repository kept changing while it was copied (${COPY_ATTEMPTS} attempts)`);
}
