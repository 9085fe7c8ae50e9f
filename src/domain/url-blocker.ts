// The platform's URL blocker as model validations use it (AddressableUrlValidator with local
// addresses allowed and nothing resolved): the scheme must be one of a list and the URL must
// parse; the message is the validation's, in the platform's words.

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/** Why the URL blocker refuses `url`, as a validation message, or null when it lets it through. */
export function blockedUrlMessage(url: string, schemes: readonly string[]): string | null {
  const scheme = SCHEME.exec(url)?.[1].toLowerCase();
  if (scheme === undefined || !schemes.includes(scheme)) return `is blocked: Only allowed schemes are ${schemes.join(', ')}`;
  if (/[\r\n]/.test(url) || !URL.canParse(url)) return 'is blocked: URI is invalid';
  return null;
}
