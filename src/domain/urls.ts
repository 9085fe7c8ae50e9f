// Web and API URLs of the resources, always built from QUARRY_EXTERNAL_URL (`base`) so that links
// survive proxies.

export function userWebUrl(base: string, username: string): string {
  return `${base}/${username}`;
}

export function groupWebUrl(base: string, fullPath: string): string {
  return `${base}/groups/${fullPath}`;
}

export function projectWebUrl(base: string, project: { full_path: string }): string {
  return `${base}/${project.full_path}`;
}

/** A commit's page, under its project's web_url. */
export function commitWebUrl(projectWebUrl: string, id: string): string {
  return `${projectWebUrl}/-/commit/${id}`;
}

/** A branch's tree, under its project's web_url. */
export function treeWebUrl(projectWebUrl: string, branch: string): string {
  return `${projectWebUrl}/-/tree/${escapePath(branch)}`;
}

export function apiUrl(base: string, path: string): string {
  return `${base}/api/v4${path}`;
}

/** Characters a URL path keeps as they are (RFC 3986 pchar and `/`); the rest is percent-encoded. */
const PATH_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

export function escapePath(path: string): string {
  let out = '';
  for (const ch of path) out += PATH_SAFE.test(ch) ? ch : encodeURIComponent(ch);
  return out;
}
