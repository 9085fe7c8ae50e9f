// What every route declares, so that a reader (and test/conventions/contract.test.ts) knows what it
// answers without running it:
//   - how it authenticates: `config: { auth: 'required' | 'optional' | 'none' }` (auth/actor.ts);
//   - for a route that answers JSON, a response schema for each success status it answers (the
//     strict entity, NoContent for 204, AcceptedEntity for 202), which also serializes the answer;
//   - for a route whose successes are not JSON (git over HTTP, raw files, archives, the plain-text
//     health check, the HTML sign-in pages), `config: { json: false }` in place of those schemas.
// Error answers need no schema: core/error-handler.ts writes them as text, in the platform's shapes.

export interface RouteContract {
  /** false: the route's successes are not JSON, so it has no response schema. */
  json?: false;
  /** true: the route reads its multipart body as a stream itself (uploads larger than the body limit). */
  streamsMultipart?: true;
}
