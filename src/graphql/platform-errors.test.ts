// A query's faults in the platform's words, on the alert and error tracking operations: the
// document's (unknown fields and arguments, missing and invalid arguments, variables used where
// they do not fit) and the variables' values (with the value and its problems in `extensions`).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../test/harness.ts';
import { createProject } from '../../test/factories.ts';
import type { ProjectRow } from '../db/schema.ts';

let t: TestApp;
let project: ProjectRow;

before(async () => {
  t = await createTestApp();
  project = await createProject(t, { path: 'gql-words' });
});
after(() => t.close());

async function messages(query: string, variables?: unknown): Promise<string[]> {
  const res = await t.post('/api/graphql', { token: ROOT_TOKEN, body: { query, variables } });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json() as { errors?: { message: string }[] };
  assert.ok(body.errors, res.body);
  return body.errors.map((e) => e.message);
}

const UPDATE_STATUS = 'mutation($input: UpdateAlertStatusInput!) { updateAlertStatus(input: $input) { errors } }';

describe("the document's faults", () => {
  test('unknown fields and arguments, a missing argument', async () => {
    assert.deepEqual(await messages('{ project(fullPath: "x") { sentryErrors { nope } } }'), ["Field 'nope' doesn't exist on type 'SentryErrorCollection'"]);
    assert.deepEqual(await messages('{ project(fullPath: "x") { sentryErrors { errors(nope: 1) { count } } } }'), ["Field 'errors' doesn't accept argument 'nope'"]);
    assert.deepEqual(await messages('{ project { id } }'), ["Field 'project' is missing required arguments: fullPath"]);
  });

  test('input objects: a missing field, an unknown one, a value of the wrong type', async () => {
    assert.deepEqual(await messages('mutation { updateAlertStatus(input: { projectPath: "x", iid: "1" }) { errors } }'), [
      "Argument 'status' on InputObject 'UpdateAlertStatusInput' is required. Expected type AlertManagementStatus!",
    ]);
    assert.deepEqual(await messages('mutation { updateAlertStatus(input: { projectPath: "x", iid: "1", status: RESOLVED, nope: 1 }) { errors } }'), [
      "InputObject 'UpdateAlertStatusInput' doesn't accept argument 'nope'",
    ]);
    assert.deepEqual(await messages('mutation { updateAlertStatus(input: { projectPath: "x", iid: "1", status: CLOSED }) { errors } }'), [
      "Argument 'status' on InputObject 'UpdateAlertStatusInput' has an invalid value (CLOSED). Expected type 'AlertManagementStatus!'.",
    ]);
    assert.deepEqual(await messages('{ project(fullPath: "x") { sentryErrors { detailedError(id: "12") { id } } } }'), [
      `Argument 'id' on Field 'detailedError' has an invalid value ("12"). Expected type 'GitlabErrorTrackingDetailedErrorID!'.`,
    ]);
  });

  test('selections, and variables that are undeclared, unused or of another type', async () => {
    assert.deepEqual(await messages('{ project(fullPath: "x") }'), ["Field must have selections (field 'project' returns Project but has no selections. Did you mean 'project { ... }'?)"]);
    assert.deepEqual(await messages('{ project(fullPath: "x") { id { a b } } }'), ["Selections can't be made on scalars (field 'id' returns ID but has selections [a, b])"]);
    assert.deepEqual(await messages('{ project(fullPath: $p) { id } }'), ['Variable $p is used by anonymous query but not declared']);
    assert.deepEqual(await messages('query Q($p: ID!, $u: Int) { project(fullPath: $p) { id } }', { p: 'x' }), ['Variable $u is declared by Q but not used']);
    assert.deepEqual(await messages('query($p: ID) { project(fullPath: $p) { id } }'), ['Nullability mismatch on variable $p and argument fullPath (ID / ID!)']);
    assert.deepEqual(await messages('query($p: [ID!]) { project(fullPath: $p) { id } }'), ['List dimension mismatch on variable $p and argument fullPath ([ID!] / ID!)']);
    assert.deepEqual(await messages('query($p: Int!) { project(fullPath: $p) { id } }', { p: 1 }), ['Type mismatch on variable $p and argument fullPath (Int! / ID!)']);
  });
});

describe("the variables' values", () => {
  test('an enum value it does not have, a missing and an unknown field: the value and its problems', async () => {
    const res = await t.post('/api/graphql', { token: ROOT_TOKEN, body: { query: UPDATE_STATUS, variables: { input: { projectPath: project.full_path, status: 'CLOSED', nope: 1 } } } });
    assert.deepEqual(res.json(), {
      errors: [
        {
          message:
            'Variable $input of type UpdateAlertStatusInput! was provided invalid value for iid (Expected value to not be null), status (Expected "CLOSED" to be one of: TRIGGERED, ACKNOWLEDGED, RESOLVED, IGNORED), nope (Field is not defined on UpdateAlertStatusInput)',
          locations: [{ line: 1, column: 10 }],
          extensions: {
            value: { projectPath: project.full_path, status: 'CLOSED', nope: 1 },
            problems: [
              { path: ['iid'], explanation: 'Expected value to not be null' },
              { path: ['status'], explanation: 'Expected "CLOSED" to be one of: TRIGGERED, ACKNOWLEDGED, RESOLVED, IGNORED' },
              { path: ['nope'], explanation: 'Field is not defined on UpdateAlertStatusInput' },
            ],
          },
        },
      ],
    });
  });

  test('a scalar of another type, a null where a value is needed, no value at all', async () => {
    assert.deepEqual(await messages(UPDATE_STATUS, { input: { projectPath: project.full_path, iid: 5, status: 'RESOLVED' } }), [
      'Variable $input of type UpdateAlertStatusInput! was provided invalid value for iid (Could not coerce value 5 to String)',
    ]);
    assert.deepEqual(await messages(UPDATE_STATUS, { input: { projectPath: null, iid: '1', status: 'RESOLVED' } }), [
      'Variable $input of type UpdateAlertStatusInput! was provided invalid value for projectPath (Expected value to not be null)',
    ]);
    assert.deepEqual(await messages(UPDATE_STATUS, {}), ['Variable $input of type UpdateAlertStatusInput! was provided invalid value']);
    assert.deepEqual(await messages('query($first: Int) { project(fullPath: "x") { sentryErrors { errors(first: $first) { count } } } }', { first: 'ten' }), [
      'Variable $first of type Int was provided invalid value',
    ]);
  });
});
