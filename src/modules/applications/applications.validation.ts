// What makes an application valid, in the words of the platform's OAuth provider: every redirect
// URI absolute and without a fragment (or the out-of-band URI of native apps), and scopes the
// server knows.
import { OAUTH_ONLY_SCOPES, SCOPES } from '../../core/auth/scopes.ts';
import type { FieldErrors } from '../../core/errors.ts';

/** Native apps without a redirect show the code on a page instead. */
export const OUT_OF_BAND_URI = 'urn:ietf:wg:oauth:2.0:oob';

export const APPLICATION_SCOPES: ReadonlySet<string> = new Set([...SCOPES, ...OAUTH_ONLY_SCOPES]);

/** The redirect URIs of a `redirect_uri` value: one per line or separated by spaces. */
export const redirectUris = (value: string) => value.split(/\s+/).filter(Boolean);
export const scopeList = (value: string) => value.split(/\s+/).filter(Boolean);

function redirectUriError(uri: string): string | null {
  if (uri === OUT_OF_BAND_URI) return null;
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return /^[a-z][a-z0-9+.-]*:/i.test(uri) ? 'must be a valid URI.' : 'must be an absolute URI.';
  }
  if (parsed.hash !== '' || uri.includes('#')) return 'cannot contain a fragment.';
  return null;
}

export function applicationErrors(input: { name: string; redirect_uri: string; scopes: string }): FieldErrors {
  const errors: FieldErrors = {};
  if (input.name.trim() === '') errors.name = ["can't be blank"];
  const uris = redirectUris(input.redirect_uri);
  if (uris.length === 0) errors.redirect_uri = ["can't be blank"];
  else {
    const problem = uris.map(redirectUriError).find((e) => e !== null);
    if (problem) errors.redirect_uri = [problem];
  }
  if (scopeList(input.scopes).some((s) => !APPLICATION_SCOPES.has(s))) errors.scopes = ["doesn't match configured on the server."];
  return errors;
}
