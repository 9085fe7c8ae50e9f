// Following an issue (14.x lib/api/subscriptions.rb for issues): a signed-in reader of the issue
// subscribes or unsubscribes; 201 with the issue when that changed, 304 without a body when the
// caller already was (or was not) following it — participants follow without having chosen to.
// An issue the caller may not read is the finder's "404 Not found".
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError } from '../../core/errors.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { NoContent } from '../../core/schema.ts';
import { canReadIssue, findIssueByIid, loadIssueRelations } from './issues.finder.ts';
import { presentIssue } from './issues.presenter.ts';
import { IssueEntity } from './issues.schemas.ts';
import { setIssueSubscription } from './issues.service.ts';

/** The platform reads the iid as text: one that is no number finds nothing. */
const SubscribableParams = Params({ id: IdOrPath, subscribable_id: Type.String() });

export const issueSubscriptionRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  for (const [action, subscribed] of [['subscribe', true], ['unsubscribe', false]] as const) {
    api.post(
      `/projects/:id/issues/:subscribable_id/${action}`,
      { schema: { params: SubscribableParams, response: { 201: IssueEntity, 304: NoContent } }, config: { auth: 'required' }, preHandler: loadProject('read_project') },
      async (req, reply) => {
        const iid = /^\d+$/.test(req.params.subscribable_id) ? Number(req.params.subscribable_id) : NaN;
        const issue = Number.isSafeInteger(iid) ? await findIssueByIid(db, loadedProject(req).row.id, iid) : undefined;
        if (!issue || !(await canReadIssue(db, req.actor, issue))) throw apiError(404, '404 Not found');
        const userId = req.actor!.user.id;
        if ((await loadIssueRelations(db, [issue], req.actor, userId)).subscribed.has(issue.id) === subscribed) return reply.code(304).send();
        await setIssueSubscription(serviceContext(req), issue, userId, subscribed);
        const view = { baseUrl: config.externalUrl, fromProjectId: issue.project_id, withLabelsDetails: false, withSubscribed: true };
        reply.code(201);
        return presentIssue(issue, await loadIssueRelations(db, [issue], req.actor, userId), view, api.deps.now().toISOString().slice(0, 10));
      },
    );
  }
};
