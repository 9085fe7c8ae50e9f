// The error vocabulary. Services and routes throw these; core/error-handler.ts writes every body.
// An error names its HTTP status and the shape of its body separately, so a new status needs
// nothing new here: `new DomainError({ status: 412, message: '412 Precondition Failed' })`.

/**
 * The body shapes the platform uses:
 *   'message' — application errors: {"message": "..."}, or {"message": fields} (render_api_error!)
 *   'error'   — parameter failures, unknown routes and Grape's error!: {"error": "..."} or {"error": [...]}
 *   { oauth } — token refusals: {"error": code, "error_description": "...", "scope"?: "..."}
 */
export type ErrorShape = 'message' | 'error' | { oauth: 'invalid_token' | 'insufficient_scope'; scope?: string };

export type FieldErrors = Record<string, string[]>;

/** A `message` that is an object of texts: {"message": {"error": "..."}}. */
export type MessageObject = Readonly<Record<string, string>>;

export interface DomainErrorInit {
  status: number;
  message: string;
  /** 'message' unless said. */
  shape?: ErrorShape;
  /** 'message' bodies: a model's failures by field, their full messages, or an object of texts, in place of the message. */
  fields?: FieldErrors | readonly string[] | MessageObject;
  /** 'error' bodies: a list of messages in place of the message. */
  messages?: readonly string[];
  /** 'message' bodies: keys the platform sends beside the message (a failed commit change's error_code). */
  extra?: Readonly<Record<string, string | null>>;
  /** Headers the answer carries (WWW-Authenticate of a refused token). */
  headers?: Readonly<Record<string, string>>;
}

export class DomainError extends Error {
  readonly status: number;
  readonly shape: ErrorShape;
  readonly fields: FieldErrors | readonly string[] | MessageObject | undefined;
  readonly messages: readonly string[] | undefined;
  readonly extra: Readonly<Record<string, string | null>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(init: DomainErrorInit) {
    super(init.message);
    this.status = init.status;
    this.shape = init.shape ?? 'message';
    this.fields = init.fields;
    this.messages = init.messages;
    this.extra = init.extra ?? {};
    this.headers = init.headers ?? {};
  }
}

/** {"message": message} at any status. */
export const apiError = (status: number, message: string) => new DomainError({ status, message });
/** {"error": message}: parameter validation (400 unless said). */
export const paramError = (message: string, status = 400) => new DomainError({ status, message, shape: 'error' });
/** Grape's `length: { max: }` refusal of a parameter (a string or an array) longer than allowed. */
export const tooLong = (param: string, max: number) => paramError(`${param} is expected to have length less than or equal to ${max}`);
/** Grape's error! with an array of messages: {"error": ["…", …]}. */
export const errorList = (messages: string[], status: number) => new DomainError({ status, message: messages.join(', '), shape: 'error', messages });
/** render_api_error! with a model's full messages: {"message": ["Name can't be blank"]}. */
export const messageList = (messages: string[], status = 422) => new DomainError({ status, message: messages.join(', '), fields: messages });
export const badRequest = (reason?: string) => apiError(400, reason ? `400 Bad request - ${reason}` : '400 Bad request');
export const unauthorized = (reason?: string) => apiError(401, reason ? `401 Unauthorized - ${reason}` : '401 Unauthorized');
export const forbidden = (reason?: string) => apiError(403, reason ? `403 Forbidden - ${reason}` : '403 Forbidden');
export const notFound = (what?: string) => apiError(404, what ? `404 ${what} Not Found` : '404 Not Found');
export const conflict = (message = '409 Conflict') => apiError(409, message);
export const methodNotAllowed = (message = '405 Method Not Allowed') => apiError(405, message);
export const payloadTooLarge = () => apiError(413, '413 Request Entity Too Large');
/** A request body of a media type the API does not read. */
export const unsupportedMediaType = (type: string) => paramError(`The provided content-type '${type}' is not supported.`, 415);
export const BAD_BODY = 'message body does not match declared format';
/** {"message": {"error": text}}: the platform's application rate limits and upload checks. */
export const messageError = (status: number, text: string) => new DomainError({ status, message: text, fields: { error: text } });
export const invalidFields = (fields: FieldErrors, status = 400) => new DomainError({ status, message: 'validation failed', fields });

export const TOKEN_EXPIRED = 'Token is expired. You can either do re-authorization or token refresh.';
export const TOKEN_REVOKED = 'Token was revoked. You have to re-authorize from the user.';
export const IMPERSONATION_DISABLED = 'Token is an impersonation token but impersonation was disabled.';
export const INSUFFICIENT_SCOPE = 'The request requires higher privileges than provided by the access token.';

export const invalidToken = (description: string) =>
  new DomainError({
    status: 401,
    message: description,
    shape: { oauth: 'invalid_token' },
    headers: { 'www-authenticate': `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"` },
  });
export const insufficientScope = (scopes: readonly string[]) =>
  new DomainError({ status: 403, message: INSUFFICIENT_SCOPE, shape: { oauth: 'insufficient_scope', scope: scopes.join(' ') } });
