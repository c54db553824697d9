/**
 * The `prof:start` / `prof:stop <file>` commands of the bench's server children: the in-process
 * V8 CPU profiler (200 µs sampling), answering `PROFSTARTED` and `PROF <file>` on stdout; and
 * `heap <file>`, a heap snapshot, answering `HEAP <file>`.
 */
import { writeFileSync } from 'node:fs';
import { writeHeapSnapshot } from 'node:v8';
import { Session } from 'node:inspector/promises';

let session: Session | null = null;

/** Runs `cmd` if it is a profiler command; answers whether it was one. */
export async function profilerCommand(cmd: string | undefined, arg: string | undefined): Promise<boolean> {
  if (cmd === 'prof:start') {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    process.stdout.write('PROFSTARTED\n');
    return true;
  }
  if (cmd === 'prof:stop' && session && arg) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(arg, JSON.stringify(profile));
    session.disconnect();
    session = null;
    process.stdout.write(`PROF ${arg}\n`);
    return true;
  }
  if (cmd === 'heap' && arg) {
    // A heap snapshot (it runs a full GC first): what the process retains.
    writeHeapSnapshot(arg);
    process.stdout.write(`HEAP ${arg}\n`);
    return true;
  }
  return false;
}
