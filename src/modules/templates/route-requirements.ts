// The platform's template routes constrain the name as it stands in the request's path, still
// percent-encoded: a name outside the pattern does not route at all ({"error": "404 Not Found"}).
import type { FastifyRequest } from 'fastify';
import { paramError } from '../../core/errors.ts';

/** Names of instance templates and licenses: word characters, dots and dashes. */
export const INSTANCE_TEMPLATE_NAME = /^[\w.-]+$/;
/** Names of a project's templates: encoded names too (`C%2B%2B` for C++, `Bug%20report`). */
export const PROJECT_TEMPLATE_NAME = /^[\w%.+-]+$/;

/**
 * A preValidation hook refusing, as an unknown route, a request whose last path segment does not
 * match: before its parameters are checked or its project looked up, as a route that never matched.
 */
export function rawName(pattern: RegExp) {
  return async (req: FastifyRequest): Promise<void> => {
    const path = req.url.split('?')[0].replace(/\/+$/, '');
    if (!pattern.test(path.slice(path.lastIndexOf('/') + 1))) throw paramError('404 Not Found', 404);
  };
}
