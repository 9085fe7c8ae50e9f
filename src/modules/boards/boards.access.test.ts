// Who may call the board routes, on private, internal and public projects and groups: signed-in
// readers of the parent's issues read boards and lists; Reporters and up write them; a caller who
// does not see the parent gets 404, an anonymous caller 401.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { BoardEntity, BoardListEntity } from './boards.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
let sequence = 0;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

const SUBJECTS = [
  { name: 'project', base: (c: MatrixCall) => `/api/v4/projects/${c.project.id}`, errors: refusals('Project') },
  { name: 'group', base: (c: MatrixCall) => `/api/v4/groups/${c.group.id}`, errors: refusals('Group') },
] as const;

const readers = expectation({ auth: 'required', success: 200 });
const writers = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.REPORTER });

/** A new board of the subject with one label list, made by root. */
async function fresh(base: string): Promise<{ board: number; list: number; label: number }> {
  const board = await t.post(`${base}/boards`, { token: ROOT_TOKEN, body: { name: `board ${++sequence}` } });
  assert.equal(board.statusCode, 201, board.body);
  const label = await t.post(`${base}/labels`, { token: ROOT_TOKEN, body: { name: `label-${++sequence}`, color: '#123456' } });
  assert.equal(label.statusCode, 201, label.body);
  const list = await t.post(`${base}/boards/${board.json().id}/lists`, { token: ROOT_TOKEN, body: { label_id: label.json().id } });
  assert.equal(list.statusCode, 201, list.body);
  return { board: board.json().id, list: list.json().id, label: label.json().id };
}

for (const subject of SUBJECTS) {
  test(`reading ${subject.name} boards and lists`, async () => {
    const made = new Map<number, { board: number; list: number }>();
    const of = async (c: MatrixCall) => {
      const key = subject.name === 'project' ? c.project.id : c.group.id;
      if (!made.has(key)) made.set(key, await fresh(subject.base(c)));
      return made.get(key)!;
    };
    await runMatrix(world, { expect: readers, errors: subject.errors, call: (c) => t.get(`${subject.base(c)}/boards`, { token: c.caller.token }), verify: (res) => expectEntities(res.json(), BoardEntity) });
    await runMatrix(world, { expect: readers, errors: subject.errors, call: async (c) => t.get(`${subject.base(c)}/boards/${(await of(c)).board}`, { token: c.caller.token }), verify: (res) => expectEntity(res.json(), BoardEntity) });
    await runMatrix(world, { expect: readers, errors: subject.errors, call: async (c) => t.get(`${subject.base(c)}/boards/${(await of(c)).board}/lists`, { token: c.caller.token }), verify: (res) => expectEntities(res.json(), BoardListEntity) });
    await runMatrix(world, {
      expect: readers,
      errors: subject.errors,
      call: async (c) => t.get(`${subject.base(c)}/boards/${(await of(c)).board}/lists/${(await of(c)).list}`, { token: c.caller.token }),
      verify: (res) => expectEntity(res.json(), BoardListEntity),
    });
  });

  test(`writing ${subject.name} boards`, async () => {
    await runMatrix(world, { expect: writers(201), errors: subject.errors, call: (c) => t.post(`${subject.base(c)}/boards`, { token: c.caller.token, body: { name: `by ${c.role}` } }), verify: (res) => expectEntity(res.json(), BoardEntity) });
    await runMatrix(world, {
      expect: writers(200),
      errors: subject.errors,
      call: async (c) => t.put(`${subject.base(c)}/boards/${(await fresh(subject.base(c))).board}`, { token: c.caller.token, body: { name: `renamed by ${c.role}` } }),
      verify: (res, c) => assert.equal(res.json().name, `renamed by ${c.role}`),
    });
    await runMatrix(world, { expect: writers(204), errors: subject.errors, call: async (c) => t.del(`${subject.base(c)}/boards/${(await fresh(subject.base(c))).board}`, { token: c.caller.token }) });
  });

  test(`writing ${subject.name} board lists`, async () => {
    await runMatrix(world, {
      expect: writers(201),
      errors: subject.errors,
      call: async (c) => {
        const { board } = await fresh(subject.base(c));
        const label = await t.post(`${subject.base(c)}/labels`, { token: ROOT_TOKEN, body: { name: `label-${++sequence}`, color: '#654321' } });
        return t.post(`${subject.base(c)}/boards/${board}/lists`, { token: c.caller.token, body: { label_id: label.json().id } });
      },
      verify: (res) => expectEntity(res.json(), BoardListEntity),
    });
    await runMatrix(world, {
      expect: writers(200),
      errors: subject.errors,
      call: async (c) => {
        const { board, list } = await fresh(subject.base(c));
        return t.put(`${subject.base(c)}/boards/${board}/lists/${list}`, { token: c.caller.token, body: { position: 0 } });
      },
      verify: (res) => expectEntity(res.json(), BoardListEntity),
    });
    await runMatrix(world, {
      expect: writers(204),
      errors: subject.errors,
      call: async (c) => {
        const { board, list } = await fresh(subject.base(c));
        return t.del(`${subject.base(c)}/boards/${board}/lists/${list}`, { token: c.caller.token });
      },
    });
  });
}
