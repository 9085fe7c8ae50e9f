// The .gitlab-ci.yml compiler's public surface.
export { compileConfig } from './compile.ts';
export { seedPipeline, FILTERED_OUT_MESSAGE, NO_JOBS_MESSAGE } from './seed.ts';
export { evaluateExpression, evaluateExpressionDetailed, expressionSyntaxError } from './expressions.ts';
export { expandVariables } from './variables.ts';
export { parseDuration } from './duration.ts';
export { CiConfigError, includeMessages } from './errors.ts';
export { DEFAULT_LIMITS } from './limits.ts';
export { TEMPLATE_EXTENSION, listTemplates, readTemplate } from './templates.ts';
export { DEPLOYMENT_TIERS } from './entries/trigger.ts';
export type * from './types.ts';
