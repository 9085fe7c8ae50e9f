// Web and API URLs, always built from QUARRY_EXTERNAL_URL so that links survive proxies.

export function userWebUrl(base: string, username: string): string {
  return `${base}/${username}`;
}

export function groupWebUrl(base: string, fullPath: string): string {
  return `${base}/groups/${fullPath}`;
}

export function apiUrl(base: string, path: string): string {
  return `${base}/api/v4${path}`;
}
