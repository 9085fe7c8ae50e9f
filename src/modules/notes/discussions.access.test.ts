// Who may call each discussion route of issues and merge requests, on private, internal and public
// projects: every call needs a signed-in caller who reads the project (blocked accounts 403,
// projects they may not see 404); then the noteable's rules. Issues: every reader of an issue
// reads and starts threads and replies; a confidential issue is for Reporters and up (and the
// administrator), others get its 404. Merge requests: a guest of a private project reads none
// (the record-not-found 404); readers start threads and reply; the merge request's author and
// Developers and up resolve threads. A note of someone else is changed and deleted by Maintainers
// and up and administrators only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ACCESS } from '../../core/access/levels.ts';
import {
  type Expectation,
  type MatrixCall,
  type MatrixWorld,
  ROLE_LEVEL,
  VISIBILITIES,
  buildMatrixWorld,
  expectation,
  refusals,
  runMatrix,
} from '../../../test/access-matrix.ts';
import { commitOn, giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { DiscussionEntity, NoteEntity } from './notes.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
/** Per project: an issue, a confidential issue and a merge request, each with a thread started by root. */
const subjects = new Map<number, { issue: number; confidential: number; mr: number; threads: Record<'issue' | 'confidential' | 'mr', string> }>();
let branches = 0;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t, 'disc');
  for (const project of Object.values(world.projects)) {
    await giveRepository(t, project);
    const issue = await newIssue(project.id, false);
    const confidential = await newIssue(project.id, true);
    const mr = await newMergeRequest(project.id);
    subjects.set(project.id, {
      issue,
      confidential,
      mr,
      threads: {
        issue: (await newThread(`/api/v4/projects/${project.id}/issues/${issue}`)).id,
        confidential: (await newThread(`/api/v4/projects/${project.id}/issues/${confidential}`)).id,
        mr: (await newThread(`/api/v4/projects/${project.id}/merge_requests/${mr}`)).id,
      },
    });
  }
});
after(() => t.close());

async function newIssue(projectId: number, confidential: boolean): Promise<number> {
  const res = await t.post(`/api/v4/projects/${projectId}/issues`, { token: ROOT_TOKEN, body: { title: 'An issue', confidential } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().iid;
}

async function newMergeRequest(projectId: number): Promise<number> {
  const project = Object.values(world.projects).find((p) => p.id === projectId)!;
  const source = `disc-${++branches}`;
  await commitOn(projectRepositoryPath(t.deps.config.repositoryStorages, project) as string, source, { from: 'main' });
  const res = await t.post(`/api/v4/projects/${projectId}/merge_requests`, { token: ROOT_TOKEN, body: { title: 'A change', source_branch: source, target_branch: 'main' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().iid;
}

/** A thread started by root on the noteable at `url`: its id and first note's id. */
async function newThread(url: string): Promise<{ id: string; noteId: number }> {
  const res = await t.post(`${url}/discussions`, { token: ROOT_TOKEN, body: { body: 'A thread' } });
  assert.equal(res.statusCode, 201, res.body);
  return { id: res.json().id, noteId: res.json().notes[0].id };
}

type Kind = 'issue' | 'confidential' | 'mr';

const noteable = (c: MatrixCall, kind: Kind) => {
  const s = subjects.get(c.project.id)!;
  return kind === 'mr' ? `/api/v4/projects/${c.project.id}/merge_requests/${s.mr}` : `/api/v4/projects/${c.project.id}/issues/${s[kind]}`;
};
const thread = (c: MatrixCall, kind: Kind) => `${noteable(c, kind)}/discussions/${subjects.get(c.project.id)!.threads[kind]}`;

/** The noteable's own rule over the project's: a confidential issue hides from those below Reporter, a private project's merge requests from its guests. */
function over(kind: Kind, base: Expectation): Expectation {
  return (role, visibility) => {
    const status = base(role, visibility);
    if (status === 401 || status === 404 || role === 'blocked' || role === 'admin') return status;
    if (kind === 'confidential' && ROLE_LEVEL[role] < ACCESS.REPORTER) return 404;
    if (kind === 'mr' && role === 'guest' && visibility === 'private') return 404;
    return status;
  };
}

/** The bodies of refusals, but the 404 of the noteable itself (which names the issue, or nothing) is checked apart, below. */
const errorsFor = (kind: Kind) => (kind === 'issue' ? refusals('Project') : { 401: refusals('Project')[401], 403: refusals('Project')[403] });

const KINDS: Kind[] = ['issue', 'confidential', 'mr'];
const readers = expectation({ auth: 'required', success: 200 });

for (const kind of KINDS) {
  describe(`discussions of ${kind === 'mr' ? 'a merge request' : kind === 'issue' ? 'an issue' : 'a confidential issue'}`, () => {
    test('GET discussions, one discussion, its notes and one note', async () => {
      const list = (c: MatrixCall) => t.get(`${noteable(c, kind)}/discussions`, { token: c.caller.token });
      await runMatrix(world, { expect: over(kind, readers), errors: errorsFor(kind), call: list, verify: (res) => expectEntities(res.json(), DiscussionEntity) });
      await runMatrix(world, {
        expect: over(kind, readers),
        errors: errorsFor(kind),
        call: (c) => t.get(thread(c, kind), { token: c.caller.token }),
        verify: (res) => expectEntity(res.json(), DiscussionEntity),
      });
      await runMatrix(world, {
        expect: over(kind, readers),
        errors: errorsFor(kind),
        call: (c) => t.get(`${thread(c, kind)}/notes`, { token: c.caller.token }),
        verify: (res) => expectEntities(res.json(), NoteEntity),
      });
    });

    test('POST discussions and a reply', async () => {
      const starters = over(kind, expectation({ auth: 'required', success: 201 }));
      await runMatrix(world, {
        expect: starters,
        errors: errorsFor(kind),
        call: (c) => t.post(`${noteable(c, kind)}/discussions`, { token: c.caller.token, body: { body: `from ${c.role}` } }),
        verify: (res) => expectEntity(res.json(), DiscussionEntity),
      });
      await runMatrix(world, {
        expect: starters,
        errors: errorsFor(kind),
        call: (c) => t.post(`${thread(c, kind)}/notes`, { token: c.caller.token, body: { body: `reply from ${c.role}` } }),
        verify: (res) => expectEntity(res.json(), NoteEntity),
      });
    });

    test("GET, PUT and DELETE a note of root's", async () => {
      const fresh = async (c: MatrixCall) => {
        const started = await newThread(noteable(c, kind));
        return `${noteable(c, kind)}/discussions/${started.id}/notes/${started.noteId}`;
      };
      await runMatrix(world, {
        expect: over(kind, readers),
        errors: errorsFor(kind),
        call: async (c) => t.get(await fresh(c), { token: c.caller.token }),
        verify: (res) => expectEntity(res.json(), NoteEntity),
      });
      const administrators = over(kind, expectation({ auth: 'required', success: 200, minLevel: ACCESS.MAINTAINER }));
      await runMatrix(world, {
        expect: administrators,
        errors: errorsFor(kind),
        call: async (c) => t.put(await fresh(c), { token: c.caller.token, body: { body: `edited by ${c.role}` } }),
        verify: (res) => expectEntity(res.json(), NoteEntity),
      });
      await runMatrix(world, {
        expect: over(kind, expectation({ auth: 'required', success: 204, minLevel: ACCESS.MAINTAINER })),
        errors: errorsFor(kind),
        call: async (c) => t.del(await fresh(c), { token: c.caller.token }),
      });
    });
  });
}

test("PUT a merge request's discussion (resolve): its author and Developers and up", async () => {
  await runMatrix(world, {
    expect: over('mr', expectation({ auth: 'required', success: 200, minLevel: ACCESS.DEVELOPER })),
    errors: errorsFor('mr'),
    call: async (c) => {
      const started = await newThread(noteable(c, 'mr'));
      return t.put(`${noteable(c, 'mr')}/discussions/${started.id}`, { token: c.caller.token, body: { resolved: true } });
    },
    verify: (res) => {
      expectEntity(res.json(), DiscussionEntity);
      assert.equal(res.json().notes[0].resolved, true);
    },
  });
});

test('the 404 of a noteable the caller may not read', async () => {
  const guest = world.callers.guest.token;
  const call = (c: Pick<MatrixCall, 'project'>, kind: Kind) => t.get(`${noteable(c as MatrixCall, kind)}/discussions`, { token: guest });
  const check = (res: LightMyRequestResponse, message: string) => assert.deepEqual([res.statusCode, res.json()], [404, { message }]);
  for (const visibility of VISIBILITIES) {
    check(await call({ project: world.projects[visibility] }, 'confidential'), '404 Issue Not Found');
  }
  check(await call({ project: world.projects.private }, 'mr'), '404 Not found');
  // A caller who does not see the project hears of the project, whatever the noteable.
  const hidden = await t.get(`${noteable({ project: world.projects.private } as MatrixCall, 'confidential')}/discussions`, { token: world.callers.non_member.token });
  assert.deepEqual([hidden.statusCode, hidden.json()], [404, { message: '404 Project Not Found' }]);
});
