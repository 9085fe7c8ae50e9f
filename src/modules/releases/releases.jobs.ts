// Release evidence (the platform's Releases::CreateEvidenceService, run by a worker after a release
// is made): a JSON summary of the release, its project and its milestones with their issues, kept
// with its SHA-256. Collected once per job: the row and the job's completion share a transaction.
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import type { DB, ReleaseRow } from '../../db/schema.ts';
import { type RunningJob, defineJobKind } from '../../jobs/queue.ts';

const Payload = Type.Object({ releaseId: Type.Integer() }, { additionalProperties: false });

export const createEvidenceJob = defineJobKind({
  name: 'releases.create_evidence',
  payload: Payload,
  run: (ctx, payload, job) => collectEvidence(ctx, payload.releaseId, job),
});

/** Evidences::EvidenceEntity and the entities below it, keys in their order. */
async function summaryOf(db: Kysely<DB>, release: ReleaseRow) {
  const project = await db.selectFrom('projects').select(['id', 'name', 'description', 'created_at']).where('id', '=', release.project_id).executeTakeFirstOrThrow();
  const milestones = await db
    .selectFrom('milestones')
    .innerJoin('milestone_releases', 'milestone_releases.milestone_id', 'milestones.id')
    .selectAll('milestones')
    .where('milestone_releases.release_id', '=', release.id)
    .orderBy('milestones.id')
    .execute();
  const issues = milestones.length === 0
    ? []
    : await db
      .selectFrom('issues')
      .leftJoin('users', 'users.id', 'issues.author_id')
      .select(['issues.id', 'issues.title', 'issues.description', 'issues.state', 'issues.iid', 'issues.confidential', 'issues.created_at', 'issues.due_date', 'issues.milestone_id'])
      .select(['users.id as author_id', 'users.name as author_name', 'users.email as author_email'])
      .where('issues.milestone_id', 'in', milestones.map((m) => m.id))
      .orderBy('issues.id')
      .execute();
  return {
    release: {
      id: release.id,
      tag_name: release.tag,
      name: release.name ?? release.tag,
      description: release.description,
      created_at: release.created_at,
      project: { id: project.id, name: project.name, description: project.description, created_at: project.created_at },
      milestones: milestones.map((m) => ({
        id: m.id,
        title: m.title,
        description: m.description,
        state: m.state,
        iid: m.iid,
        created_at: m.created_at,
        due_date: m.due_date,
        issues: issues
          .filter((i) => i.milestone_id === m.id)
          .map((i) => ({
            id: i.id,
            title: i.title,
            description: i.description,
            author: i.author_id === null ? null : { id: i.author_id, name: i.author_name, email: i.author_email },
            state: i.state,
            iid: i.iid,
            confidential: i.confidential,
            created_at: i.created_at,
            due_date: i.due_date,
          })),
      })),
    },
  };
}

async function collectEvidence(ctx: ServiceContext, releaseId: number, job: RunningJob): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const release = await tx.db.selectFrom('releases').selectAll().where('id', '=', releaseId).executeTakeFirst();
    if (release) {
      const summary = JSON.stringify(await summaryOf(tx.db, release));
      const at = tx.now().toISOString();
      await tx.db
        .insertInto('release_evidences')
        .values({ release_id: release.id, summary, summary_sha: createHash('sha256').update(summary).digest('hex'), created_at: at, updated_at: at })
        .execute();
    }
    await job.complete(tx.db);
  });
}
