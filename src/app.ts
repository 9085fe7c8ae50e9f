// Builds the HTTP application: core conventions first, then every module, registered explicitly.
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import type { Actor } from './core/auth/actor.ts';
import { installContentParsers } from './core/content-types.ts';
import type { Deps } from './core/deps.ts';
import { installErrorHandling } from './core/error-handler.ts';
import { installLoadShedding } from './core/load-shedding.ts';
import { installQuietConnectionClosing } from './core/quiet-connections.ts';
import { headRequests } from './core/head-requests.ts';
import { installHttpMetrics } from './core/metrics.ts';
import { ROUTER_MATCHING, collectRouteMethods, registerOptionsRoute } from './core/options-routes.ts';
import { validatorCompiler } from './core/params.ts';
import { parseQueryString } from './core/query-string.ts';
import { clientErrors, frameworkErrors, genReqId, installRequestPipeline } from './core/request-pipeline.ts';
import { createThrottle } from './core/rate-limit.ts';
import { lazySerializerCompiler } from './core/serializers.ts';
import { apiV4 } from './api-v4.ts';
import { alertManagementGraphql } from './modules/alert-management/index.ts';
import { alertNotifyRoutes } from './modules/alert-management/alert-notify.routes.ts';
import { closeReaders } from './git/reader-pool.ts';
import type { GraphqlContribution } from './graphql/contribution.ts';
import { graphqlEndpoint } from './graphql/endpoint.ts';
import { buildGraphqlSchema } from './graphql/schema.ts';
import { openapiOptions } from './modules/api-docs/index.ts';
import { errorTrackingWebRoutes } from './modules/error-tracking/error-tracking-web.routes.ts';
import { errorTrackingGraphql } from './modules/error-tracking/index.ts';
import { securityGraphql } from './modules/security/index.ts';
import { apiDocsRoutes } from './modules/api-docs/api-docs.routes.ts';
import { gitHttpRoutes } from './modules/git-http/git-http.routes.ts';
import { pipelineLicenseRoutes } from './modules/managed-licenses/pipeline-licenses.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { uploadFileRoutes } from './modules/uploads/upload-files.routes.ts';
import { invitePageRoutes } from './modules/invitations/invite-page.routes.ts';
import { metricsRoutes } from './modules/metrics/metrics.routes.ts';
import { oauthRoutes } from './modules/oauth/oauth.routes.ts';
import { authorizeRoutes } from './modules/oauth/authorize.routes.ts';
import { userApplicationRoutes } from './modules/applications/user-applications.routes.ts';
import { installPagesSites } from './modules/pages/index.ts';
import { registrationRoutes } from './modules/registrations/registrations.routes.ts';
import { emailConfirmationRoutes } from './modules/emails/email-confirmation.routes.ts';
import { sessionRoutes } from './modules/sessions/sessions.routes.ts';
import type { TestModeOptions } from './modules/testing/testing.routes.ts';

/** What modules add to the GraphQL schema, one line each (src/graphql/contribution.ts). */
const GRAPHQL_CONTRIBUTIONS: GraphqlContribution[] = [alertManagementGraphql, errorTrackingGraphql, securityGraphql];

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** Sees every route as it is registered (convention tests read the declarations). */
  onRoute?: (route: RouteOptions) => void;
  /** Ephemeral mode: the /-/test routes (reset, seed), which exist nowhere else. */
  testMode?: TestModeOptions;
}

export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<FastifyInstance> {
  const head = headRequests();
  const app = Fastify({
    logger: options.logger ?? false,
    genReqId,
    bodyLimit: deps.config.bodyLimit,
    // A client that stops sending (an unfinished body, an idle connection) is let go.
    connectionTimeout: deps.config.idleTimeoutMs,
    requestTimeout: deps.config.requestTimeoutMs,
    exposeHeadRoutes: false,
    rewriteUrl: head.rewriteUrl,
    return503OnClosing: true,
    frameworkErrors,
    clientErrorHandler: clientErrors,
    routerOptions: { ...ROUTER_MATCHING, querystringParser: parseQueryString },
  });
  app.server.headersTimeout = deps.config.headersTimeoutMs;
  installQuietConnectionClosing(app);
  head.install(app);
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  // The repositories' object readers end with the server (once they have answered what they owe).
  app.addHook('onClose', () => closeReaders());
  app.decorate('deps', deps);
  const throttle = createThrottle({ config: deps.config, now: () => app.deps.now(), log: app.log, db: deps.db });
  app.decorate('throttle', throttle);
  app.addHook('onClose', () => throttle.close());
  app.decorateRequest('actor', null as unknown as Actor);
  app.decorateRequest('rawParams', null as unknown as Record<string, unknown>);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(lazySerializerCompiler);
  // First of the hooks: a request refused for load costs as little as possible.
  installLoadShedding(app, { maxInFlight: deps.config.maxInFlight, lateMs: deps.config.overloadLagMs });
  installErrorHandling(app);
  // Requests for pages sites are answered before any body is read or credential looked at.
  installPagesSites(app);
  await installContentParsers(app);
  await app.register(cookie);
  installRequestPipeline(app);
  installHttpMetrics(app);

  const routeMethods = collectRouteMethods(app);
  // Collects every route registered after it; the document is built on its first request.
  await app.register(swagger, openapiOptions);
  await app.register(healthRoutes);
  await app.register(metricsRoutes);
  await app.register(apiDocsRoutes);
  await app.register(oauthRoutes);
  await app.register(authorizeRoutes);
  await app.register(userApplicationRoutes);
  await app.register(sessionRoutes);
  await app.register(registrationRoutes);
  await app.register(emailConfirmationRoutes);
  await app.register(invitePageRoutes);
  await app.register(gitHttpRoutes);
  await app.register(uploadFileRoutes);
  await app.register(pipelineLicenseRoutes);
  await app.register(alertNotifyRoutes);
  await app.register(errorTrackingWebRoutes);
  await app.register(apiV4, { prefix: '/api/v4' });
  await app.register(graphqlEndpoint, { schema: buildGraphqlSchema(GRAPHQL_CONTRIBUTIONS) });
  // Loaded only when used: the seed's schema and YAML parser stay out of an ordinary start.
  if (options.testMode) await app.register((await import('./modules/testing/testing.routes.ts')).testingRoutes, options.testMode);
  registerOptionsRoute(app, routeMethods);
  return app;
}
