import { Readable } from 'node:stream';
import { created, empty, noContent, ok, route, stream, type Route } from '../../kernel/route.js';
import { getFile, getRawFile, writeFile } from './files.js';
import { DeleteFileInput, GetFileInput, RawFileInput, WriteFileInput } from './files.schema.js';

const tag = 'repository_files';
/** GitLab lets `read_repository` tokens read files. */
const readScopes = ['api', 'read_api', 'read_repository'];

export const filesRoutes: Route[] = [
  route('HEAD', '/projects/:id/repository/files/:file_path', { auth: 'optional', scopes: readScopes, params: GetFileInput, tag, summary: 'File metadata in X-Gitlab-* headers' },
    async (ctx, input) => {
      const file = await getFile(ctx, input);
      return empty(200, file.headers);
    }),
  route('GET', '/projects/:id/repository/files/:file_path', { auth: 'optional', scopes: readScopes, params: GetFileInput, tag, summary: 'Get a file (base64 content) at a ref' },
    async (ctx, input) => {
      const file = await getFile(ctx, input);
      return ok(file.body, file.headers);
    }),
  route('GET', '/projects/:id/repository/files/:file_path/raw', { auth: 'optional', jobToken: true, scopes: readScopes, params: RawFileInput, tag, summary: 'Raw file content (ref: default branch)' },
    async (ctx, input) => {
      const file = await getRawFile(ctx, input);
      return stream(Readable.from([file.content]), file.contentType, { size: file.content.length, headers: file.headers });
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
