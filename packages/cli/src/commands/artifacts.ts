/**
 * `forgelet artifacts download`: a job's artifacts archive (or one file of it), by job id or
 * by ref and job name (latest successful pipeline), streamed to disk: written to
 * `<file>.part` and renamed when complete, with a progress bar from Content-Length.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { ArtifactStream } from '@forgelet/client';
import { CliError, UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { call, remoteError, remoteOptions, resolveRemote, type RemoteFlags } from '../remote.js';
import { isLive, ProgressLine } from '../ui/live.js';

interface DownloadFlags extends RemoteFlags {
  json?: boolean;
  output?: string;
  ref?: string;
  job?: string;
  path?: string;
  searchRecentSuccessfulPipelines?: boolean;
}

export function registerArtifactCommands(program: Command, io: CliIo): void {
  const artifacts = program.command('artifacts').description('CI job artifacts on a running server');
  remoteOptions(artifacts.command('download <project> [job_id]'))
    .description("download a job's artifacts archive: by job id, or with --ref and --job from the ref's latest successful pipeline")
    .option('-o, --output <file>', "where to save it (default: the server's file name in the current directory)")
    .option('--ref <ref>', 'branch or tag (with --job)')
    .option('--job <name>', 'job name (with --ref)')
    .option('--path <path>', 'one file of the archive instead of the whole archive')
    .option('--search-recent-successful-pipelines', 'with --ref: search up to 100 recent successful pipelines, not only the latest')
    .action((project: string, jobId: string | undefined, flags: DownloadFlags) => download(project, jobId, flags, io));
}

function target(jobId: string | undefined, flags: DownloadFlags): { jobId: number } | { ref: string; job: string } {
  if (jobId !== undefined) {
    if (flags.ref !== undefined || flags.job !== undefined) throw new UsageError('give a job id, or --ref and --job, not both');
    if (!/^\d+$/.test(jobId) || Number(jobId) < 1) throw new UsageError(`job id must be a positive integer, got "${jobId}"`);
    if (flags.searchRecentSuccessfulPipelines) throw new UsageError('--search-recent-successful-pipelines applies to --ref downloads');
    return { jobId: Number(jobId) };
  }
  if (flags.ref === undefined || flags.job === undefined) throw new UsageError('give a job id, or both --ref and --job');
  return { ref: flags.ref, job: flags.job };
}

/** Counts the bytes going through. */
function counter(onBytes: (n: number) => void): Transform {
  let n = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      n += chunk.length;
      onBytes(n);
      done(null, chunk);
    },
  });
}

async function download(project: string, jobId: string | undefined, flags: DownloadFlags, io: CliIo): Promise<void> {
  const what = target(jobId, flags);
  if (flags.path !== undefined && flags.path.replace(/^\/+/, '') === '') throw new UsageError('--path must name a file of the archive');
  const remote = resolveRemote(flags, io.env);
  const file = flags.path?.replace(/^\/+/, '');
  const stream: ArtifactStream = await call(remote, ({ jobArtifacts }) => {
    if ('jobId' in what) return file === undefined ? jobArtifacts.streamArchive(project, what.jobId) : jobArtifacts.streamFile(project, what.jobId, file);
    const params = flags.searchRecentSuccessfulPipelines ? { searchRecentSuccessfulPipelines: true } : {};
    return file === undefined ? jobArtifacts.streamArchiveByRef(project, what.ref, what.job, params) : jobArtifacts.streamFileByRef(project, what.ref, file, what.job, params);
  });
  // The server's file name is only a name: never a path (nor `.`/`..`) to write elsewhere.
  const suggested = basename(stream.filename ?? (file ? basename(file) : 'artifacts.zip'));
  const name = flags.output ?? (suggested === '' || suggested === '.' || suggested === '..' ? 'artifacts.zip' : suggested);
  const out = resolve(name);
  const partial = `${out}.part`;
  const progress = await ProgressLine.open(io.stderr, isLive(io.stderr, flags.json), `Downloading ${basename(out)}`, stream.size);
  let bytes = 0;
  try {
    await pipeline(
      stream.body,
      counter((n) => {
        bytes = n;
        progress.update(n);
      }),
      createWriteStream(partial, { mode: 0o644 }),
    );
  } catch (err) {
    progress.abort();
    stream.body.destroy();
    await rm(partial, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    if (code && ['ENOENT', 'EACCES', 'EISDIR', 'ENOSPC', 'EROFS', 'ENOTDIR'].includes(code)) throw new CliError(`cannot write ${partial}: ${code}`);
    // The server answered, then the connection dropped: a short download, not an unreachable server.
    if (stream.size !== null && bytes < stream.size) throw new CliError(`the download ended after ${bytes} of ${stream.size} bytes`);
    throw remoteError(remote, err);
  }
  if (stream.size !== null && bytes !== stream.size) {
    progress.abort();
    await rm(partial, { force: true });
    throw new CliError(`the download ended after ${bytes} of ${stream.size} bytes`);
  }
  try {
    await rename(partial, out);
  } catch (err) {
    progress.abort();
    await rm(partial, { force: true });
    throw new CliError(`cannot write ${out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  progress.finish(bytes);
  if (flags.json) return writeJson(io.stdout, { file: out, size: bytes, filename: stream.filename, content_type: stream.contentType });
  io.stdout.write(`Saved ${bytes} bytes to ${out}.\n`);
}
