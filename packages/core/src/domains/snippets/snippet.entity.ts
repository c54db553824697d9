import type { UrlBuilder } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { UserRow } from '../../access/user.table.js';
import type { SnippetRow } from './snippet.table.js';

export interface SnippetFileEntity {
  path: string;
  raw_url: string;
}

/** GitLab's ProjectSnippet (BasicSnippet + author, file_name, files, import fields). */
export interface SnippetEntity {
  id: number;
  title: string;
  description: string | null;
  visibility: string;
  author: UserBasicEntity;
  created_at: string;
  updated_at: string;
  project_id: number;
  web_url: string;
  raw_url: string;
  /** Snippets have no git repository here. */
  ssh_url_to_repo: null;
  http_url_to_repo: null;
  file_name: string;
  files: SnippetFileEntity[];
  imported: boolean;
  imported_from: string;
}

export function toSnippetEntity(row: SnippetRow, project: ProjectRow, author: UserRow, urls: UrlBuilder): SnippetEntity {
  const rawUrl = urls.api(`/projects/${row.project_id}/snippets/${row.id}/raw`);
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    visibility: row.visibility,
    author: toUserBasicEntity(author, urls),
    created_at: row.created_at,
    updated_at: row.updated_at,
    project_id: row.project_id,
    web_url: urls.web(`/${project.path_with_namespace}/-/snippets/${row.id}`),
    raw_url: rawUrl,
    ssh_url_to_repo: null,
    http_url_to_repo: null,
    file_name: row.file_name,
    files: [{ path: row.file_name, raw_url: rawUrl }],
    imported: false,
    imported_from: 'none',
  };
}
