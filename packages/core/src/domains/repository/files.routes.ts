import { created, empty, noContent, ok, route, stream, type Route } from '../../kernel/route.js';
import { blameFile } from './blame.js';
import { getBlob, getFile, getRawBlob, getRawFile, headFile, writeFile } from './files.js';
import { BlameInput, BlobInput, DeleteFileInput, GetFileInput, RawFileInput, WriteFileInput } from './files.schema.js';

const tag = 'repository_files';
/** GitLab lets `read_repository` tokens read files. */
const readScopes = ['api', 'read_api', 'read_repository'];

export const filesRoutes: Route[] = [
  route('HEAD', '/projects/:id/repository/files/:file_path', { auth: 'optional', scopes: readScopes, params: GetFileInput, tag, summary: 'File metadata in X-Gitlab-* headers' },
    async (ctx, input) => {
      return empty(200, await headFile(ctx, input));
    }),
  route('GET', '/projects/:id/repository/files/:file_path', { auth: 'optional', scopes: readScopes, params: GetFileInput, tag, summary: 'Get a file (base64 content) at a ref' },
    async (ctx, input) => {
      const file = await getFile(ctx, input);
      return ok(file.body, file.headers);
    }),
  route('GET', '/projects/:id/repository/files/:file_path/raw', { auth: 'optional', jobToken: true, scopes: readScopes, params: RawFileInput, tag, summary: 'Raw file content (ref: default branch)' },
    async (ctx, input) => {
      const file = await getRawFile(ctx, input);
      return stream(file.body, file.contentType, { size: file.size, headers: file.headers });
    }),
  route('GET', '/projects/:id/repository/files/:file_path/blame', { auth: 'optional', jobToken: true, scopes: readScopes, params: BlameInput, tag, summary: 'Blame of a file at a ref, lines grouped by commit' },
    async (ctx, input) => ok(await blameFile(ctx, input))),
  route('GET', '/projects/:id/repository/blobs/:sha', { auth: 'optional', jobToken: true, scopes: readScopes, params: BlobInput, tag: 'repositories', summary: 'A blob by id (base64 content)' },
    async (ctx, input) => ok(await getBlob(ctx, input))),
  route('GET', '/projects/:id/repository/blobs/:sha/raw', { auth: 'optional', jobToken: true, scopes: readScopes, params: BlobInput, tag: 'repositories', summary: 'A blob by id, raw (streamed)' },
    async (ctx, input) => {
      const blob = await getRawBlob(ctx, input);
      return stream(blob.body, blob.contentType, { size: blob.size, headers: blob.headers });
    }),
  route('POST', '/projects/:id/repository/files/:file_path', { auth: 'required', params: WriteFileInput, tag, summary: 'Create a file in a commit (Developer)' },
    async (ctx, input) => created(await writeFile(ctx, 'create', input))),
  route('PUT', '/projects/:id/repository/files/:file_path', { auth: 'required', params: WriteFileInput, tag, summary: 'Update a file in a commit (Developer)' },
    async (ctx, input) => ok(await writeFile(ctx, 'update', input))),
  route('DELETE', '/projects/:id/repository/files/:file_path', { auth: 'required', params: DeleteFileInput, tag, summary: 'Delete a file in a commit (Developer)' },
    async (ctx, input) => {
      await writeFile(ctx, 'delete', input);
      return noContent();
    }),
];
