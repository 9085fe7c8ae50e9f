// Pure snippet records → entities. URLs as the platform builds them: the web pages under `-/snippets`,
// the repositories under `snippets/<id>.git`, a project snippet's under its project's path.
import { visibilityName } from '../../core/access/levels.ts';
import type { SnippetRow, UserRow } from '../../db/schema.ts';
import { escapePath } from '../../domain/urls.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { SnippetFiles } from './snippets.finder.ts';
import type { BasicSnippet, Snippet, UserAgentDetail } from './snippets.schemas.ts';

export interface SnippetView {
  baseUrl: string;
  /** ssh_url_to_repo is this, then the repository's path (Config.sshUrlPrefix). */
  sshUrlPrefix: string;
}

type Basic = Pick<SnippetRow, 'id' | 'title' | 'description' | 'visibility_level' | 'updated_at' | 'created_at' | 'project_id'> & { project_full_path: string | null };

/** The snippet's path below the instance's root: `snippets/<id>` or `<project>/snippets/<id>`. */
export const snippetRepositoryName = (snippet: Pick<Basic, 'id' | 'project_full_path'>) =>
  snippet.project_full_path === null ? `snippets/${snippet.id}` : `${snippet.project_full_path}/snippets/${snippet.id}`;

function webUrl(snippet: Pick<Basic, 'id' | 'project_full_path'>, baseUrl: string): string {
  return snippet.project_full_path === null ? `${baseUrl}/-/snippets/${snippet.id}` : `${baseUrl}/${snippet.project_full_path}/-/snippets/${snippet.id}`;
}

export function presentBasicSnippet(snippet: Basic, view: SnippetView): BasicSnippet {
  const web = webUrl(snippet, view.baseUrl);
  const repository = snippetRepositoryName(snippet);
  return {
    id: snippet.id,
    title: snippet.title,
    description: snippet.description,
    visibility: visibilityName(snippet.visibility_level),
    updated_at: snippet.updated_at,
    created_at: snippet.created_at,
    project_id: snippet.project_id,
    web_url: web,
    raw_url: `${web}/raw`,
    ssh_url_to_repo: `${view.sshUrlPrefix}${repository}.git`,
    http_url_to_repo: `${view.baseUrl}/${repository}.git`,
  };
}

export function presentSnippet(snippet: Basic & Pick<SnippetRow, 'author_id'>, author: Pick<UserRow, 'id' | 'username' | 'name' | 'state'>, files: SnippetFiles, view: SnippetView): Snippet {
  const web = webUrl(snippet, view.baseUrl);
  return {
    ...presentBasicSnippet(snippet, view),
    author: userBasicFields(author, view.baseUrl),
    file_name: files.paths[0] ?? null,
    files: files.paths.map((path) => ({ path, raw_url: `${web}/raw/${escapePath(files.ref)}/${escapePath(path)}` })),
  };
}

export function presentUserAgentDetail(snippet: Pick<SnippetRow, 'user_agent' | 'ip_address'>): UserAgentDetail {
  return { user_agent: snippet.user_agent, ip_address: snippet.ip_address, akismet_submitted: false };
}
