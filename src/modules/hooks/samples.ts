// What a project hook's test sends for each trigger (TestHooks::ProjectService): the payload of
// the project's latest push to its default branch, or of its first issue, merge request, note,
// CI job, pipeline or release, built as a real event's is; the platform's words when there is none.
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB, ProjectRow } from '../../db/schema.ts';
import { ZERO_OID } from '../../git/args.ts';
import { logCommitIds } from '../../git/history.ts';
import { existingProjectRepository } from '../../git/repository.ts';
import type { HookEvent } from '../../jobs/web-hooks.ts';
import type { Built } from './hooks.jobs.ts';
import { buildEvent } from './hooks.jobs.ts';
import type { TestTrigger } from './hooks.schemas.ts';

export class NoSample extends Error {}

const first = (db: Kysely<DB>, table: 'issues' | 'merge_requests' | 'notes' | 'releases' | 'ci_builds', projectId: number) =>
  db.selectFrom(table).select('id').where('project_id', '=', projectId).orderBy('id').limit(1).executeTakeFirst();

/** The sample of a trigger; throws NoSample with the platform's words when the project has nothing to show. */
export async function sampleFor(db: Kysely<DB>, config: Config, project: ProjectRow, userId: number, trigger: TestTrigger): Promise<Built> {
  const event = await sampleEvent(db, config, project, userId, trigger);
  const built = await buildEvent(db, config, event);
  if (!built) throw new NoSample('Ensure the project has at least one commit.');
  // The test sends under the trigger asked, whatever the sample's own kind.
  const scope = trigger.replace(/_events$/, '').replace(/^issues$/, 'issue').replace(/^confidential_issues$/, 'confidential_issue').replace(/^merge_requests$/, 'merge_request').replace(/^releases$/, 'release');
  return { ...built, trigger: `${scope}_hooks`, branch: undefined };
}

async function sampleEvent(db: Kysely<DB>, config: Config, project: ProjectRow, userId: number, trigger: TestTrigger): Promise<HookEvent> {
  switch (trigger) {
    case 'push_events':
    case 'tag_push_events': {
      const gitDir = existingProjectRepository(config.repositoryStorages, project);
      if (gitDir === null || project.empty_repo || project.default_branch === null) throw new NoSample('Ensure the project has at least one commit.');
      const ids = await logCommitIds(gitDir, { revisions: [`refs/heads/${project.default_branch}`] }, { skip: 0, limit: 3 });
      if (ids.length === 0) throw new NoSample('Ensure the project has at least one commit.');
      const before = ids.length > 1 ? ids[ids.length - 1] : ZERO_OID;
      return { kind: 'push', projectId: project.id, userId, ref: `refs/heads/${project.default_branch}`, before, after: ids[0] };
    }
    case 'issues_events':
    case 'confidential_issues_events': {
      const issue = await first(db, 'issues', project.id);
      if (!issue) throw new NoSample('Ensure the project has issues.');
      return { kind: 'issue', issueId: issue.id, userId, action: 'open' };
    }
    case 'merge_requests_events': {
      const mr = await first(db, 'merge_requests', project.id);
      if (!mr) throw new NoSample('Ensure the project has merge requests.');
      return { kind: 'merge_request', mergeRequestId: mr.id, userId, action: 'open' };
    }
    case 'note_events':
    case 'confidential_note_events': {
      const note = await first(db, 'notes', project.id);
      if (!note) throw new NoSample('Ensure the project has notes.');
      return { kind: 'note', noteId: note.id, userId };
    }
    case 'job_events': {
      const build = await db.selectFrom('ci_builds').select('id').where('project_id', '=', project.id).where('type', '!=', 'generic').orderBy('id').limit(1).executeTakeFirst();
      if (!build) throw new NoSample('Ensure the project has CI jobs.');
      return { kind: 'job', buildId: build.id };
    }
    case 'pipeline_events': {
      const pipeline = await db.selectFrom('ci_pipelines').select('id').where('project_id', '=', project.id).orderBy('id', 'desc').limit(1).executeTakeFirst();
      if (!pipeline) throw new NoSample('Ensure the project has CI pipelines.');
      return { kind: 'pipeline', pipelineId: pipeline.id };
    }
    case 'releases_events': {
      const release = await first(db, 'releases', project.id);
      if (!release) throw new NoSample('Ensure the project has releases.');
      return { kind: 'release', releaseId: release.id, action: 'create' };
    }
  }
}
