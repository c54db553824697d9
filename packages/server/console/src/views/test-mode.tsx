/**
 * The test-mode page (servers run with `--test-mode`; admins): the server clock with "advance",
 * and snapshots to list, take and restore. The header shows its link only when the API answers
 * `GET /forgelet/clock` (404 outside test mode, 403 to non-admins).
 */
import { useState } from 'preact/hooks';
import { Show, problem, useClient, useLoad, when } from './shared.js';

export function TestMode() {
  const client = useClient();
  const clock = useLoad(() => client.harness.clock(), []);
  const snapshots = useLoad(() => client.harness.snapshots(), []);
  const [said, setSaid] = useState('');
  const [seconds, setSeconds] = useState('3600');
  const [name, setName] = useState('');
  const act = (what: () => Promise<string>) =>
    what().then(
      (msg) => {
        setSaid(msg);
        clock.reload();
        snapshots.reload();
      },
      (e: Error) => setSaid(problem(e)),
    );
  return (
    <>
      <h1>Test mode</h1>
      <p role="status" class="notice">{said}</p>
      <section aria-labelledby="clock-h">
        <h2 id="clock-h">Clock</h2>
        <Show loaded={clock}>
          {(c) => (
            <p>
              Server time <strong id="server-time" data-now={c.now}>{when(c.now)}</strong> <span class="muted">({c.now}{c.frozen ? ', frozen' : ', running'})</span>
            </p>
          )}
        </Show>
        <form
          class="search"
          onSubmit={(e) => {
            e.preventDefault();
            void act(async () => {
              const r = await client.harness.advanceClock(Number(seconds));
              return `Clock advanced to ${r.now}; ${r.jobs_run} due job(s) ran.`;
            });
          }}
        >
          <label for="advance-seconds">Advance by (seconds)</label>
          <input id="advance-seconds" type="number" min="0" step="1" required value={seconds} onInput={(e) => setSeconds((e.target as HTMLInputElement).value)} />
          <button type="submit">Advance</button>
        </form>
      </section>
      <section aria-labelledby="snapshots-h">
        <h2 id="snapshots-h">Snapshots</h2>
        <form
          class="search"
          onSubmit={(e) => {
            e.preventDefault();
            void act(async () => {
              const s = await client.harness.snapshot(name.trim());
              setName('');
              return `Snapshot “${s.name}” taken: ${s.tables} tables, ${s.rows} rows, ${s.blobs} blobs.`;
            });
          }}
        >
          <label for="snapshot-name">Snapshot name</label>
          <input id="snapshot-name" required pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,99}" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          <button type="submit">Take snapshot</button>
        </form>
        <Show loaded={snapshots}>
          {(list) =>
            list.length === 0 ? (
              <p class="muted">No snapshots.</p>
            ) : (
              <table>
                <thead><tr><th scope="col">Snapshot</th><th scope="col">Taken</th><th scope="col">Rows</th><th scope="col">Blobs</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
                <tbody>
                  {list.map((s) => (
                    <tr key={s.name}>
                      <td>{s.name}</td>
                      <td>{when(s.created_at)}</td>
                      <td>{s.rows}</td>
                      <td>{s.blobs}</td>
                      <td>
                        <button type="button" onClick={() => void act(async () => `Snapshot “${(await client.harness.restore(s.name)).name}” restored.`)}>
                          Restore<span class="sr-only"> {s.name}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Show>
      </section>
    </>
  );
}
