/**
 * The interactive console in a real terminal: `forgelet` with no arguments runs from source in
 * a detached tmux session (private socket, fixed 120x40); the test types keys, reads the screen
 * and checks the server: playing a schedule creates its pipeline, cancelling an import leaves it
 * canceled, rotating the client key replaces it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, type CliIo } from '@forgelet/cli';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject, expectStatus } from '../server/http.js';
import { commitCi } from '../server/ci-support.js';
import { BIN_CLI, cliEnv, ROOT, runCli, tempDir } from './cli-process.js';

const CI = ['build:', '  script: echo build', ''].join('\n');

/**
 * A source instance whose exports never become ready: the migration passes the source checks,
 * creates its group, then waits (polling, without holding the worker) until it is canceled.
 */
function startSlowSource(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://source');
    const path = url.pathname.replace(/^\/api\/v4/, '');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === '/version') return json(200, { version: '17.5.0', revision: 'slow' });
    if (path === '/personal_access_tokens/self') return json(200, { id: 1, name: 'source', scopes: ['api'], active: true });
    if (path === '/groups/slow-grp') return json(200, { id: 7, name: 'Slow', path: 'slow-grp', full_path: 'slow-grp', description: '', visibility: 'private' });
    if (/\/(subgroups|projects)$/.test(path)) return json(200, []);
    if (path.endsWith('/export_relations') && req.method === 'POST') return json(202, { message: 'accepted' });
    if (path.endsWith('/export_relations/status')) return json(200, [{ relation: url.searchParams.get('relation'), status: 0, error: null, batched: false }]);
    return json(404, { message: '404 Not Found' });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

/** A tmux server of our own (its socket named after this process) with one session. */
class Terminal {
  private readonly socket: string;
  constructor(
    name: string,
    private readonly session = 'console',
  ) {
    this.socket = `forgelet-${name}-${process.pid}`;
  }

  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env: cliEnv({ TMUX: undefined }) });
  }

  start(command: string, env: Record<string, string>, configDir: string): void {
    const conf = join(configDir, 'tmux.conf');
    // The pane stays after the program ends, so its last screen and exit status can be read.
    writeFileSync(conf, 'set -g remain-on-exit on\nset -g status off\n');
    const vars = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    execFileSync('tmux', ['-L', this.socket, '-f', conf, 'new-session', '-d', '-x', '120', '-y', '40', '-s', this.session, '-c', ROOT, ...vars, command], { env: cliEnv({ ...env, TMUX: undefined }) });
  }

  /** Keys by tmux name (Enter, Escape, Tab, Down …) or, with literal, text as typed. */
  keys(keys: string[] | string, literal = false): void {
    this.tmux('send-keys', '-t', this.session, ...(literal ? ['-l', keys as string] : (keys as string[])));
  }

  /** The visible screen, or with `history` the lines scrolled off it too. */
  screen(history = false): string {
    return this.tmux('capture-pane', '-p', ...(history ? ['-S', '-'] : []), '-t', this.session);
  }

  /** Polls the screen until it matches; fails with the last screen. */
  async waitFor(pattern: RegExp, timeoutMs = 10_000, history = false): Promise<RegExpMatchArray> {
    const until = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      last = this.screen(history);
      const m = pattern.exec(last);
      if (m) return m;
      if (Date.now() > until) throw new Error(`screen never matched ${pattern} within ${timeoutMs} ms; last screen:\n${last}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {
      /* not running */
    }
  }
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const [index, dialect] of DIALECTS.entries()) {
  describe(`${dialect}: forgelet console (in tmux)`, () => {
    let f: TestForgelet;
    let source: { url: string; server: Server };
    let project: any;
    let schedule: any;
    let migrationId: number;
    // `forgelet` with no terminal, started early so its start-up overlaps the tmux test.
    let bare: ReturnType<typeof runCli> | null = null;
    const term = new Terminal(dialect);
    const dir = tempDir('forgelet-console-');

    before(async () => {
      [f, source] = await Promise.all([startTestServer(dialect), startSlowSource()]);
      const group = await createGroup(f, f.rootToken, { name: 'Console', path: 'console-grp' });
      project = await createProject(f, f.rootToken, { name: 'App', path: 'app', namespace_id: group.id });
      await commitCi(f, project.id, CI);
      const s = await f.api('POST', `/projects/${project.id}/pipeline_schedules`, { body: { description: 'Nightly build', ref: 'main', cron: '0 1 * * *' } });
      expectStatus(s, 201);
      schedule = s.body;
      const m = await f.api('POST', '/bulk_imports', {
        body: {
          configuration: { url: source.url, access_token: 'source-token' },
          entities: [{ source_type: 'group_entity', source_full_path: 'slow-grp', destination_slug: 'slow-copy', destination_namespace: '' }],
        },
      });
      expectStatus(m, 201);
      migrationId = m.body.id;
      if (index === 0) bare = runCli([], { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken });
      const cli = [process.execPath, ...BIN_CLI].map((a) => `'${a}'`).join(' ');
      term.start(`${cli}; echo "console exited with $?"`, { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken }, dir.path);
    });

    after(async () => {
      await bare;
      term.kill();
      source?.server.closeAllConnections();
      if (source) await new Promise((r) => source.server.close(r));
      await f?.stop();
      dir.remove();
    });

    it('plays a schedule, rotates the client key and cancels an import, all with the keyboard', async () => {
      // Header with the instance and the user; the project list, filtered as typed.
      await term.waitFor(new RegExp(`Forgelet  ${esc(f.url)}  root \\(admin\\)`), 20_000);
      await term.waitFor(/console-grp\/app/);
      term.keys('ap', true);
      await term.waitFor(/Filter: ap[\s\S]*console-grp\/app/);
      term.keys(['Enter']);

      // Schedules: p plays the selected schedule and shows the server's answer.
      await term.waitFor(new RegExp(`console-grp/app .*1 Schedules[\\s\\S]*${schedule.id} +Nightly build +main +0 1 \\* \\* \\* UTC`));
      term.keys(['p']);
      await term.waitFor(new RegExp(`✓ Schedule #${schedule.id} "Nightly build" played: 201 Created`));
      // Enter: the details follow the server until the played pipeline shows up.
      term.keys(['Enter']);
      await term.waitFor(new RegExp(`Schedule #${schedule.id}: Nightly build[\\s\\S]*Cron +0 1 \\* \\* \\* \\(UTC\\)[\\s\\S]*Owner +root`));
      const shown = await term.waitFor(/Last pipeline +#(\d+) (\w+) on main/, 15_000);
      const pipelines = await f.api('GET', `/projects/${project.id}/pipeline_schedules/${schedule.id}/pipelines`);
      expectStatus(pipelines, 200);
      assert.deepEqual(pipelines.body.map((p: any) => [p.id, p.source, p.ref]), [[Number(shown[1]), 'schedule', 'main']]);
      const after = await f.api('GET', `/projects/${project.id}/pipeline_schedules/${schedule.id}`);
      assert.equal(after.body.last_pipeline.id, Number(shown[1]));
      assert.equal(after.body.next_run_at, schedule.next_run_at, 'playing leaves next_run_at alone');

      // Flows: none ran here.
      term.keys(['Escape']);
      await term.waitFor(/Nightly build/);
      term.keys(['2']);
      await term.waitFor(/PIPELINE +STATUS[\s\S]*No agent flows have run in this project\./);

      // Errors: r creates the first client key, then rotates it (y/n asked each time).
      term.keys(['3']);
      await term.waitFor(/Client key: none/);
      term.keys(['r']);
      await term.waitFor(/Create a client key for console-grp\/app\? \(y\/n\)/);
      term.keys(['y']);
      const first = await term.waitFor(/✓ New client key #(\d+) \((\w+)\)\. DSN: /);
      await term.waitFor(new RegExp(`Client key: ${first[2]}`));
      term.keys(['r']);
      await term.waitFor(/Rotate the client key of console-grp\/app\? SDKs using the old DSN are refused from now on\. \(y\/n\)/);
      // Each key waits for the screen the previous one leads to (the hints line follows a frame
      // later), so two keys never reach the console in one read.
      await term.waitFor(/y confirm · n\/Esc keep the key/);
      term.keys(['n']);
      await term.waitFor(/^(?![\s\S]*Rotate the client key)[\s\S]*r rotate client key/);
      term.keys(['r']);
      await term.waitFor(/Rotate the client key[\s\S]*y confirm · n\/Esc keep the key/);
      term.keys(['y']);
      const second = await term.waitFor(/✓ New client key #(\d+) \((\w+)\); 1 old key deleted\./);
      const keys = await f.api('GET', `/projects/${project.id}/error_tracking/client_keys`);
      assert.deepEqual(keys.body.map((k: any) => [k.id, k.public_key]), [[Number(second[1]), second[2]]]);
      assert.notEqual(second[2], first[2]);
      // Two keys in one read, as typed faster than a frame: "r" asks, then "y" answers.
      await term.waitFor(/^(?![\s\S]*Rotate the client key)[\s\S]*r rotate client key/);
      term.keys('ry', true);
      const third = await term.waitFor(new RegExp(`✓ New client key #(?!${second[1]}\\b)(\\d+) \\((\\w+)\\); 1 old key deleted\\.`));
      const rotated = await f.api('GET', `/projects/${project.id}/error_tracking/client_keys`);
      assert.deepEqual(rotated.body.map((k: any) => [k.id, k.public_key]), [[Number(third[1]), third[2]]]);

      // Back to the start, Imports tab: c asks, y cancels; the row and the server say canceled.
      term.keys(['Escape']);
      await term.waitFor(/1 Projects/);
      term.keys(['Tab']);
      await term.waitFor(/2 Groups[\s\S]*slow-copy/);
      term.keys(['Tab']);
      await term.waitFor(new RegExp(`Migrations by direct transfer[\\s\\S]*\\n${migrationId} +(created|started) +no .*${esc(source.url)}`));
      term.keys(['c']);
      await term.waitFor(new RegExp(`Cancel migration ${migrationId} from ${esc(source.url)}\\? \\(y/n\\)`));
      term.keys(['y']);
      await term.waitFor(new RegExp(`✓ Migration ${migrationId} is canceled\\.`));
      await term.waitFor(new RegExp(`\\n${migrationId} +canceled `));
      const migration = await f.api('GET', `/bulk_imports/${migrationId}`);
      assert.equal(migration.body.status, 'canceled');
      term.keys(['c']);
      await term.waitFor(new RegExp(`✗ Migration ${migrationId} is already canceled\\.`));

      // Enter lists the entities; q goes back; q on the first screen quits with status 0.
      term.keys(['Enter']);
      await term.waitFor(new RegExp(`Migration ${migrationId} from [\\s\\S]*group +canceled +0/0 +0 +slow-grp → slow-copy`));
      term.keys(['q']);
      await term.waitFor(/Migrations by direct transfer/);
      term.keys(['q']);
      // The shell around the console prints its exit status (tmux itself may miss the exit) on
      // the terminal's own screen (tmux's "Pane is dead" line may scroll it off): the console's
      // alternate screen is gone.
      const ended = await term.waitFor(/^console exited with (\d+)$/m, 10_000, true);
      assert.equal(ended[1], '0');
      assert.doesNotMatch(term.screen(true), /Forgelet  http|Migrations by direct transfer/);
    });

    it('without a terminal: `forgelet` prints the help, `forgelet console` refuses', { skip: index > 0 ? 'dialect-independent' : false }, async () => {
      const help = await bare!;
      assert.equal(help.code, 2);
      assert.equal(help.stdout, '');
      assert.match(help.stderr, /^Usage: forgelet \[options\] \[command\][\s\S]*console \[options\] +interactive console/);
      let err = '';
      const io: CliIo = { stdout: { write: () => true, isTTY: false }, stderr: { write: (s: string) => (err += s) }, env: { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken } };
      assert.equal(await run(['console'], io), 2);
      assert.equal(err, 'error: the console needs a terminal (stdin and stdout must be a TTY)\n');
    });
  });
}
