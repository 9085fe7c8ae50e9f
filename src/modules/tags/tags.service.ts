// Creating and deleting tags through the API (Tags::CreateService, DestroyService and the tag push
// checks, 14.x). A failed creation answers 405 with its reason, as spec part 1 §4.4 says (the
// platform answers 400); a refused deletion is a 400. The ref is written only if it does not
// exist, or deleted only from where it was found, and the change is then recorded as a push.
import type { LoadedProject } from '../../core/access/loaders.ts';
import { type ServiceContext, requireActor } from '../../core/context.ts';
import { apiError } from '../../core/errors.ts';
import { ZERO_OID, validRevision, validTagName } from '../../git/args.ts';
import { deleteRef, resolveCommit } from '../../git/refs.ts';
import type { DetailedRef } from '../../git/ref-details.ts';
import { GitError } from '../../git/run.ts';
import { createTag as writeTag } from '../../git/tags.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import { pusherOf, tagChangeRefusal } from '../../domain/ref-protection.ts';
import { deleteReleaseOfTag } from '../../domain/releases.ts';
import { changeRefs } from '../pushes/push.service.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import type { CreateTagBody } from './tags.schemas.ts';

// Spec part 1 §4.4: "On creation failure status 405 with an explanatory message" (the tags
// route's; the releases API answers the platform's 400 for the same failures).
const TAGS_API_FAILURE = 405;
const isConflict = (error: unknown) => error instanceof GitError && error.kind === 'conflict';
/** Ruby's String#strip: ASCII whitespace only. */
const strip = (text: string) => text.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, '');

/**
 * POST /projects/:id/repository/tags: lightweight, or annotated when the stripped message is not
 * blank. A failure answers `failureStatus` with its reason.
 */
export async function createTag(ctx: ServiceContext, project: LoadedProject, dir: string, body: CreateTagBody, failureStatus = TAGS_API_FAILURE): Promise<void> {
  const creationFailed = (message: string) => apiError(failureStatus, message);
  const actor = requireActor(ctx);
  const name = body.tag_name;
  if (!validTagName(name)) throw creationFailed('Tag name invalid');
  if (body.ref.trim() === '') throw creationFailed('Target is empty');
  const commit = validRevision(body.ref) ? await resolveCommit(dir, body.ref) : null;
  if (commit === null) throw creationFailed(`Target ${body.ref} is invalid`);

  const protections = await loadRefProtections(ctx.db, project.row.id);
  const refusal = tagChangeRefusal(protections, { tag: name, kind: 'create' }, pusherOf(project, actor), { viaWeb: true });
  if (refusal !== null) throw creationFailed(refusal);

  const message = body.message === undefined ? '' : strip(body.message);
  const user = actor.user;
  const ref = `refs/tags/${name}`;
  // Under a push lease: refused, as any failed creation, while a storage move holds the repository.
  const readOnly = () => creationFailed(REPOSITORY_READ_ONLY_MESSAGE);
  await changeRefs(ctx, project.row, user.id, [{ ref, before: ZERO_OID }], async () => {
    try {
      const target = await writeTag(dir, {
        name,
        commit,
        message: message === '' ? undefined : message,
        tagger: { name: user.name, email: user.commit_email || user.email },
        date: ctx.now(),
      });
      return [{ ref, before: ZERO_OID, after: target }];
    } catch (error) {
      if (isConflict(error)) throw creationFailed(`Tag ${name} already exists`);
      throw error;
    }
  }, { readOnly });
}

/** DELETE /projects/:id/repository/tags/:tag_name, once the tag is found; its release goes with it. */
export async function deleteTag(ctx: ServiceContext, project: LoadedProject, dir: string, tag: DetailedRef): Promise<void> {
  const actor = requireActor(ctx);
  const protections = await loadRefProtections(ctx.db, project.row.id);
  const refusal = tagChangeRefusal(protections, { tag: tag.name, kind: 'delete' }, pusherOf(project, actor), { viaWeb: true });
  if (refusal !== null) throw apiError(400, refusal);
  await changeRefs(ctx, project.row, actor.user.id, [{ ref: tag.ref, before: tag.target }], async () => {
    try {
      await deleteRef(dir, tag.ref, tag.target);
    } catch (error) {
      if (isConflict(error)) throw apiError(400, 'Failed to remove tag');
      throw error;
    }
    return [{ ref: tag.ref, before: tag.target, after: ZERO_OID }];
  });
  await deleteReleaseOfTag(ctx.db, project.row.id, tag.name);
}
