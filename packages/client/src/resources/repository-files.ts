/** `projects/:id/repository/files/:file_path` (gitbeaker's RepositoryFiles); paths are URL-encoded here. */
import type { BlameRangeEntity, DeleteFileInput, FileCommitEntity, FileEntity, FileMetadata, WriteFileInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import type { ResourceId } from '../infrastructure/params.js';
import type { Requester, StreamResponse } from '../infrastructure/requester.js';

export type WriteFileParams = Partial<Omit<WriteFileInput, 'id' | 'file_path' | 'branch' | 'content' | 'commit_message'>>;
export type RemoveFileParams = Partial<Omit<DeleteFileInput, 'id' | 'file_path' | 'branch' | 'commit_message'>>;

export class RepositoryFiles {
  constructor(private readonly requester: Requester) {}

  /** The file at `ref` with its metadata; `content` is base64. */
  show(projectId: ResourceId, filePath: string, ref: string): Promise<FileEntity> {
    return this.requester.get(endpoint`projects/${projectId}/repository/files/${filePath}`, { ref });
  }

  /** The file's metadata without its content (`HEAD`: GitLab's `X-Gitlab-*` headers). */
  async showMetadata(projectId: ResourceId, filePath: string, ref: string): Promise<FileMetadata> {
    const { headers } = await this.requester.request('HEAD', endpoint`projects/${projectId}/repository/files/${filePath}`, { query: { ref } });
    const h = (name: string) => headers.get(`x-gitlab-${name}`) ?? '';
    return {
      file_name: h('file-name'),
      file_path: h('file-path'),
      size: Number(h('size')),
      encoding: 'base64',
      content_sha256: h('content-sha256'),
      ref: h('ref') || null,
      blob_id: h('blob-id'),
      commit_id: h('commit-id'),
      last_commit_id: h('last-commit-id'),
      execute_filemode: h('execute-filemode') === 'true',
    };
  }

  /** The file's text (at the default branch unless `ref` is given). */
  showRaw(projectId: ResourceId, filePath: string, params: { ref?: string } = {}): Promise<string> {
    return this.requester.get<string | undefined>(endpoint`projects/${projectId}/repository/files/${filePath}/raw`, params).then((text) => text ?? '');
  }

  /** The file's bytes as a stream (at the default branch unless `ref` is given): consume `body` once. */
  streamRaw(projectId: ResourceId, filePath: string, params: { ref?: string } = {}): Promise<StreamResponse> {
    return this.requester.stream('GET', endpoint`projects/${projectId}/repository/files/${filePath}/raw`, { query: params });
  }

  /** Who last changed each line at `ref`, consecutive lines of one commit grouped; `range` limits the lines (1-based, inclusive). */
  allFileBlames(projectId: ResourceId, filePath: string, ref: string, params: { range?: { start: number; end: number } } = {}): Promise<BlameRangeEntity[]> {
    const range = params.range ? { 'range[start]': params.range.start, 'range[end]': params.range.end } : {};
    return this.requester.get(endpoint`projects/${projectId}/repository/files/${filePath}/blame`, { ref, ...range });
  }

  /** One commit creating the file (`encoding: 'base64'` for binary content). */
  create(projectId: ResourceId, filePath: string, branch: string, content: string, commitMessage: string, params: WriteFileParams = {}): Promise<FileCommitEntity> {
    return this.requester.post(endpoint`projects/${projectId}/repository/files/${filePath}`, { branch, content, commit_message: commitMessage, ...params });
  }

  /** One commit replacing the file; `last_commit_id` refuses it if the file changed meanwhile. */
  edit(projectId: ResourceId, filePath: string, branch: string, content: string, commitMessage: string, params: WriteFileParams = {}): Promise<FileCommitEntity> {
    return this.requester.put(endpoint`projects/${projectId}/repository/files/${filePath}`, { branch, content, commit_message: commitMessage, ...params });
  }

  /** One commit deleting the file (its parameters go in the query, as DELETE has no body). */
  async remove(projectId: ResourceId, filePath: string, branch: string, commitMessage: string, params: RemoveFileParams = {}): Promise<void> {
    const url = this.requester.url(endpoint`projects/${projectId}/repository/files/${filePath}`, { branch, commit_message: commitMessage, ...params });
    await this.requester.send('DELETE', url);
  }
}
