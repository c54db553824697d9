/** Parameters of the repository files endpoints, as GitLab's `API::Files` declares them. */
import { Field, p, params, type InferShape, type JsonSchema } from '../../kernel/params.js';

/**
 * GitLab's `file_path: true` validator: a path with `..` segments or an absolute path is
 * `file_path should be a valid file path`. The raw route accepts (and drops) a leading `/`.
 */
class FilePathField extends Field<string> {
  allowInitialSeparator = false;
  protected coerce(raw: unknown): { ok: true; value: string } | { ok: false; message: string } {
    if (typeof raw !== 'string') return { ok: false, message: 'is invalid' };
    const path = this.allowInitialSeparator ? raw.replace(/^\/+/, '') : raw;
    const segments = path.split(/[\\/]/);
    if (segments.includes('..') || path.startsWith('/') || path.includes('\0')) return { ok: false, message: 'should be a valid file path' };
    return { ok: true, value: path };
  }
  leadingSlash(): this {
    const f = this.clone();
    f.allowInitialSeparator = true;
    return f;
  }
  schema(): JsonSchema {
    return this.withMeta({ type: 'string', description: 'URL-encoded path of the file (`dir%2Ffile.txt`)' });
  }
}
const filePath = () => new FilePathField();

export const GetFileInput = params({ id: p.string(), file_path: filePath(), ref: p.string().nonBlank() });
export type GetFileInput = InferShape<typeof GetFileInput.shape>;

export const BlobInput = params({ id: p.string(), sha: p.string().describe('The blob id') });
export type BlobInput = InferShape<typeof BlobInput.shape>;

export const RawFileInput = params({
  id: p.string(),
  file_path: filePath().leadingSlash(),
  ref: p.string().nonBlank().optional().describe('Branch, tag or commit; the default branch when absent.'),
  lfs: p.boolean().default(false).describe('Git LFS is not stored by Forgelet: accepted and ignored.'),
});
export type RawFileInput = InferShape<typeof RawFileInput.shape>;

export const BlameInput = params({
  id: p.string(),
  file_path: filePath(),
  ref: p.string().nonBlank(),
  range: p.object({ start: p.integer().min(1), end: p.integer().min(1) }).optional().describe('Lines `start`..`end` (1-based, inclusive).'),
});
export type BlameInput = InferShape<typeof BlameInput.shape>;

const simpleFields = {
  id: p.string(),
  file_path: filePath(),
  branch: p.string().nonBlank().describe('The branch to commit to; a new one starts from `start_branch`.'),
  commit_message: p.string().nonBlank(),
  start_branch: p.string().optional(),
  author_email: p.string().optional(),
  author_name: p.string().optional(),
};

export const DeleteFileInput = params(simpleFields);
export type DeleteFileInput = InferShape<typeof DeleteFileInput.shape>;

export const WriteFileInput = params({
  ...simpleFields,
  content: p.string().nullable().describe('null with `encoding=base64` writes an empty file.'),
  encoding: p.enum(['base64', 'text']).default('text'),
  last_commit_id: p.string().optional(),
  execute_filemode: p.boolean().optional(),
});
export type WriteFileInput = InferShape<typeof WriteFileInput.shape>;
