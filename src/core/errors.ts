// The error vocabulary. Services and routes throw these; core/error-handler.ts writes every body.

export type ErrorKind =
  | 'param' // parameter validation: {"error": "..."}
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unprocessable'
  | 'too_many_requests'
  | 'invalid_token' // OAuth-style bodies: {"error", "error_description"}
  | 'insufficient_scope'
  | 'unavailable';

const STATUS: Record<ErrorKind, number> = {
  param: 400,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  too_many_requests: 429,
  invalid_token: 401,
  insufficient_scope: 403,
  unavailable: 503,
};

export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  readonly kind: ErrorKind;
  /** Model validation failures: {"message": {field: [...]}}, or their full messages: {"message": [...]}. */
  readonly fields: FieldErrors | readonly string[] | undefined;
  /** Overrides the status the kind implies, where the spec asks for another. */
  readonly status: number;
  readonly extra: Record<string, unknown> | undefined;

  constructor(kind: ErrorKind, message: string, options: { fields?: FieldErrors | readonly string[]; status?: number; extra?: Record<string, unknown> } = {}) {
    super(message);
    this.kind = kind;
    this.fields = options.fields;
    this.status = options.status ?? STATUS[kind];
    this.extra = options.extra;
  }
}

export const paramError = (message: string) => new DomainError('param', message);
/** Grape's error! with an array of messages: {"error": ["…", …]}. */
export const errorList = (messages: string[], status: number) => new DomainError('param', messages.join(', '), { status, extra: { messages } });
/** render_api_error! with a model's full messages: {"message": ["Name can't be blank"]}. */
export const messageList = (messages: string[], status = 422) => new DomainError('unprocessable', messages.join(', '), { fields: messages, status });
export const badRequest = (reason?: string) => new DomainError('bad_request', reason ? `400 Bad request - ${reason}` : '400 Bad request');
export const unauthorized = (reason?: string) => new DomainError('unauthorized', reason ? `401 Unauthorized - ${reason}` : '401 Unauthorized');
export const forbidden = (reason?: string) => new DomainError('forbidden', reason ? `403 Forbidden - ${reason}` : '403 Forbidden');
export const notFound = (what?: string) => new DomainError('not_found', what ? `404 ${what} Not Found` : '404 Not Found');
export const conflict = (message = '409 Conflict') => new DomainError('conflict', message);
export const methodNotAllowed = (message = '405 Method Not Allowed') => new DomainError('method_not_allowed', message);
export const invalidFields = (fields: FieldErrors, status = 400) => new DomainError('bad_request', 'validation failed', { fields, status });

export const TOKEN_EXPIRED = 'Token is expired. You can either do re-authorization or token refresh.';
export const TOKEN_REVOKED = 'Token was revoked. You have to re-authorize from the user.';
export const IMPERSONATION_DISABLED = 'Token is an impersonation token but impersonation was disabled.';
export const INSUFFICIENT_SCOPE = 'The request requires higher privileges than provided by the access token.';

export const invalidToken = (description: string) => new DomainError('invalid_token', description);
export const insufficientScope = (scopes: readonly string[]) =>
  new DomainError('insufficient_scope', INSUFFICIENT_SCOPE, { extra: { scope: scopes.join(' ') } });
