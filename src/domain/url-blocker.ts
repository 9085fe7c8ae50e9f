// The platform's URL blocker as model validations use it (AddressableUrlValidator): the scheme must
// be one of a list and the URL must parse; the message is the validation's, in the platform's
// words. Public URLs (PublicUrlValidator) must also not lead to this machine or its networks.
import net from 'node:net';
import { type Lookup, blockedReason, systemLookup } from '../core/outbound-http.ts';

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const PUBLIC_SCHEMES = ['http', 'https'];
/** The platform's hostname check: an IP address, or a name that starts with a letter or digit. */
const NAME_START = /^[\p{L}\p{N}]/u;

/** Why the URL blocker refuses `url`, as a validation message, or null when it lets it through. */
export function blockedUrlMessage(url: string, schemes: readonly string[]): string | null {
  const scheme = SCHEME.exec(url)?.[1].toLowerCase();
  if (scheme === undefined || !schemes.includes(scheme)) return `is blocked: Only allowed schemes are ${schemes.join(', ')}`;
  if (/[\r\n]/.test(url) || !URL.canParse(url)) return 'is blocked: URI is invalid';
  return null;
}

export interface PublicUrlOptions {
  /** The instance's allow_local_requests_from_web_hooks_and_services, which lifts the address rules. */
  allowLocal: boolean;
  lookup?: Lookup;
}

/**
 * Why a public http(s) URL is refused, or null. Its host is resolved and every address checked
 * (core/outbound-http's rules); a name that does not resolve passes, as the platform's validation
 * lets it (requests to it are checked again when they are made).
 */
export async function blockedPublicUrlMessage(url: string, options: PublicUrlOptions): Promise<string | null> {
  const invalid = blockedUrlMessage(url, PUBLIC_SCHEMES);
  if (invalid) return invalid;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host !== '' && !net.isIP(host) && !NAME_START.test(host)) return 'is blocked: Hostname or IP address invalid';
  if (options.allowLocal || host === '') return null;
  let addresses: string[];
  try {
    addresses = net.isIP(host) ? [host] : await (options.lookup ?? systemLookup)(host);
  } catch {
    return null;
  }
  const reason = blockedReason(addresses);
  return reason === null ? null : `is blocked: ${reason}`;
}
