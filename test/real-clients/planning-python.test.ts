/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against the served
 * Forgelet (`bin/forgelet.js serve`, as users start it): planning (issue 4's "Must show"). The
 * flow lives in python_gitlab_planning.py, which prints one JSON object with each step's results
 * (and the HTTP exchanges it made); the tests below assert on it.
 *
 * The server's clock is frozen on a Monday: the script pauses (runPythonStepsWithPauses) while
 * this process runs the queue (`POST /forgelet/clock/advance` by 0 s), or advances the clock three
 * weeks, so the cadence's iterations appear over time. The served process runs its own worker,
 * which may take a job due at the frozen instant first; an advance waits for the worker's run in
 * flight, so what the script reads after a pause is exact.
 *
 * Without python-gitlab the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { probePythonGitlab, pythonStep, runPythonStepsWithPauses, type PythonStep } from './support.js';
import { toolSkip } from '../support/tools.js';

const SCRIPT = fileURLToPath(new URL('./python_gitlab_planning.py', import.meta.url));

const skip = toolSkip('python-gitlab', probePythonGitlab());

/** A Monday: the cadence starts today. */
const T0 = '2025-01-06T09:00:00.000Z';
const WEEK_MS = 7 * 86_400_000;
const CYCLE = 'This epic cannot be added. It is already an ancestor of the parent epic.';

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12 planning`, { skip }, () => {
    let f: ServedForgelet;
    let results: Record<string, PythonStep>;
    let pauses: [string, unknown][];
    let setup: PythonStep;
    const stepOf = (name: string): PythonStep => {
      const s = pythonStep(results, name);
      assert.deepEqual(s.warnings, [], `python step ${name} warned`);
      return s;
    };

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect, { clock: { now: T0 } });
      const serverMs = Math.round(performance.now() - t0);
      const run = await runPythonStepsWithPauses(
        SCRIPT,
        { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken },
        {
          run_queue: () => f.runDue(),
          advance_3_weeks: async () => {
            const moved = await f.clock.advance((3 * WEEK_MS) / 1000);
            return { now: moved.now, ran: moved.jobs_run };
          },
        },
      );
      results = run.results;
      pauses = run.pauses;
      const steps = Object.entries(results)
        .filter(([, v]) => typeof v === 'object')
        .map(([k, v]) => `${k}=${v.ms}ms`)
        .join(' ');
      console.log(`[${dialect}] python-gitlab planning: server ${serverMs} ms; script ${run.ms} ms (${steps})`);
      setup = pythonStep(results, 'setup');
    });
    after(() => f?.stop());

    it('setup: python-gitlab 3.x creates a group and a project in it', () => {
      assert.match(String(results.version), /^3\./);
      const s = stepOf('setup');
      assert.equal(s.project.namespace_id, s.group.id);
    });

    it('group labels: a color name becomes hex, hex is kept; search and with_counts=True; a second subscribe() raises GitlabSubscribeError 304', () => {
      const s = stepOf('labels');
      const g = setup.group.id;
      assert.deepEqual(s.bug, {
        id: s.bug.id,
        name: 'Bug',
        color: '#FF0000',
        text_color: '#FFFFFF',
        subscribed: false,
        description_html: s.bug.description_html,
        open_issues_count: 0,
        closed_issues_count: 0,
        open_merge_requests_count: 0,
      });
      assert.match(String(s.bug.description_html), /<strong>broken<\/strong>/, 'description_html is rendered Markdown');
      assert.deepEqual([s.feature.color, s.feature.text_color], ['#a8d695', '#333333']);
      assert.equal(s.docs.color, '#000080');
      assert.deepEqual(s.open_issue_labels, ['Bug']);
      assert.equal(s.closed_state, 'closed');

      assert.deepEqual(s.plain.map((l: any) => [l.name, l.color, 'open_issues_count' in l]), [
        ['Bug', '#FF0000', false],
        ['Documentation', '#000080', false],
        ['Feature request', '#a8d695', false],
      ]);
      assert.deepEqual(s.counted.map((l: any) => [l.name, l.open_issues_count, l.closed_issues_count, l.open_merge_requests_count]), [
        ['Bug', 1, 1, 0],
        ['Documentation', 0, 0, 0],
        ['Feature request', 0, 0, 0],
      ]);
      // python-gitlab sends its booleans as True.
      assert.equal(s.counted_query, `/groups/${g}/labels?with_counts=True`);
      assert.deepEqual(s.by_title.map((l: any) => [l.id, l.open_issues_count]), [[s.feature.id, 0]]);
      assert.equal(s.by_title_query, `/groups/${g}/labels?search=feature&with_counts=True`);
      assert.deepEqual(s.by_description.map((l: any) => [l.id, l.open_issues_count, l.closed_issues_count]), [[s.bug.id, 1, 1]]);
      assert.deepEqual(s.nothing, []);

      assert.equal(s.after_first, true, 'subscribe() took the 201 response');
      assert.deepEqual(s.second, { type: 'GitlabSubscribeError', response_code: 304, message: '' });
      assert.deepEqual(s.subscribe_posts, [
        ['POST', `/groups/${g}/labels/Feature%20request/subscribe`, 201],
        ['POST', `/groups/${g}/labels/Feature%20request/subscribe`, 304],
      ]);
      assert.equal(s.reread_subscribed, true, 'still subscribed after the 304');
      assert.equal(s.other_subscribed, false);
    });

    it('group milestones: containing_date picks the timeboxes around a day; search_title=a+b ANDs its terms', () => {
      const s = stepOf('milestones');
      const g = setup.group.id;
      assert.deepEqual(s.created, [
        ['Sprint planning alpha', g, '2025-01-01', '2025-01-15', false],
        ['Sprint review beta', g, '2025-01-10', '2025-01-31', false],
        ['Release alpha beta', g, '2025-02-01', '2025-02-28', false],
        ['Backlog alpha', g, null, null, false],
        ['Kickoff beta', g, '2024-12-01', '2024-12-20', true],
      ]);
      // Due date ascending, undated last.
      assert.deepEqual(s.containing_0112, ['Sprint planning alpha', 'Sprint review beta']);
      assert.equal(s.containing_0112_query, `/groups/${g}/milestones?containing_date=2025-01-12`);
      assert.deepEqual(s.containing_0105, ['Sprint planning alpha']);
      assert.deepEqual(s.containing_0210, ['Release alpha beta']);
      assert.deepEqual(s.containing_2026, []);
      assert.deepEqual(s.alpha, ['Sprint planning alpha', 'Release alpha beta', 'Backlog alpha']);
      assert.deepEqual(s.alpha_beta, ['Release alpha beta']);
      assert.equal(s.alpha_beta_query, `/groups/${g}/milestones?search_title=alpha+beta`);
      assert.deepEqual(s.beta_sprint, ['Sprint review beta']);
      assert.deepEqual(s.sprint_alpha_containing, ['Sprint planning alpha']);
      assert.deepEqual(s.alpha_gamma, []);
    });

    it('an iteration cadence (Forgelet extension, gl.http_post) produces weekly iterations through the queue as the clock advances', () => {
      const s = stepOf('iterations');
      const g = setup.group.id;
      assert.deepEqual(s.cadence, {
        id: s.cadence.id,
        title: 'Weekly',
        description: null,
        start_date: '2025-01-06',
        duration_in_weeks: 1,
        iterations_in_advance: 2,
        automatic: true,
        active: true,
        roll_over: false,
        group_id: g,
        created_at: T0,
        updated_at: T0,
      });
      assert.deepEqual(s.cadence_ids, [s.cadence.id]);
      assert.deepEqual(pauses.map(([name]) => name), ['run_queue', 'run_queue', 'advance_3_weeks']);
      // The scheduling job comes due at once: the served worker may have run it before the
      // script listed, or before the first run_queue; after that pause it has run, once.
      assert.ok(s.before_queue.length === 0 || JSON.stringify(s.before_queue) === JSON.stringify(s.week0), JSON.stringify(s.before_queue));
      assert.ok(s.ran_first <= 1, `ran ${s.ran_first}`);
      assert.equal(s.ran_again, 0, 'nothing more is due at the same instant: the job waits for the next start');
      assert.deepEqual(s.after_rerun, s.week0);
      const view = (list: any[]) => list.map(([seq, start, due, state, title, group]) => [seq, start, due, state, title, group]);
      assert.deepEqual(view(s.week0), [
        [1, '2025-01-06', '2025-01-12', 2, null, g],
        [2, '2025-01-13', '2025-01-19', 1, null, g],
        [3, '2025-01-20', '2025-01-26', 1, null, g],
      ]);
      assert.equal(s.moved.now, '2025-01-27T09:00:00.000Z');
      assert.ok(s.moved.ran >= 1, 'the scheduling job ran again');
      assert.deepEqual(view(s.week3), [
        [1, '2025-01-06', '2025-01-12', 3, null, g],
        [2, '2025-01-13', '2025-01-19', 3, null, g],
        [3, '2025-01-20', '2025-01-26', 3, null, g],
        [4, '2025-01-27', '2025-02-02', 2, null, g],
        [5, '2025-02-03', '2025-02-09', 1, null, g],
        [6, '2025-02-10', '2025-02-16', 1, null, g],
      ]);
      const ids = (list: any[]) => list.map((i) => i.at(-1));
      assert.deepEqual(ids(s.week3.slice(0, 3)), ids(s.week0), 'the first iterations are kept');
      assert.deepEqual(s.closed, ids(s.week3.slice(0, 3)));
      assert.deepEqual(s.current, [s.week3[3].at(-1)]);
      assert.deepEqual(s.upcoming, ids(s.week3.slice(4)));
      assert.deepEqual(s.by_cadence_title, ids(s.week3));
      assert.equal(s.by_cadence_title_query, `/groups/${g}/iterations?search=week&in=cadence_title`);
    });

    it('epic links (gl.http_*): a three-level tree built, a cycle refused (409), children reordered, the grandchild re-parented, a child unassigned', () => {
      const s = stepOf('epics');
      const g = setup.group.id;
      assert.equal(s.top.parent_id, null);
      // The LinkedEpic a create-child answers.
      assert.deepEqual(
        { title: s.a.title, group_id: s.a.group_id, parent_id: s.a.parent_id, has_children: s.a.has_children, has_issues: s.a.has_issues, reference: s.a.reference },
        { title: 'Child A', group_id: g, parent_id: s.top.id, has_children: false, has_issues: false, reference: `&${s.a.iid}` },
      );
      assert.deepEqual(s.assigned, { id: s.grandchild.id, parent_id: s.a.id, parent_iid: s.a.iid });
      assert.deepEqual(s.built, { top: ['Child C', 'Child B', 'Child A'], a: ['Grandchild'], grandchild: [] });
      assert.deepEqual(s.shown, { parent_id: s.a.id, parent_iid: s.a.iid });

      assert.deepEqual(s.cycle, { type: 'GitlabHttpError', response_code: 409, message: CYCLE });
      assert.equal(s.top_parent_after_cycle, null, 'the refused link changed nothing');

      assert.deepEqual(s.after_c, ['Child C', 'Child A', 'Child B']);
      assert.deepEqual(s.before_c, ['Child B', 'Child C', 'Child A']);
      assert.deepEqual(s.reordered, ['Child B', 'Child C', 'Child A']);

      assert.deepEqual(s.moved, { parent_id: s.top.id, parent_iid: s.top.iid });
      assert.deepEqual(s.reparented, { top: ['Grandchild', 'Child B', 'Child C', 'Child A'], a: [] });
      assert.deepEqual(s.cycle_again, { type: 'GitlabHttpError', response_code: 409, message: CYCLE });

      assert.deepEqual(s.removed, { status: 200, id: s.b.id, parent_id: null });
      assert.deepEqual(s.after_remove, ['Grandchild', 'Child C', 'Child A']);
      // Every epic-link call went to GitLab's own paths (…/epics/:iid/epics[/:child_id]).
      const links = s.exchanges.filter(([, path]: [string, string]) => /\/epics\/\d+\/epics/.test(path)).map(([m]: [string]) => m);
      assert.deepEqual([...new Set(links)].sort(), ['DELETE', 'GET', 'POST', 'PUT']);
    });
  });
}
