/**
 * @gitbeaker/rest 43.8.0 against a real Forgelet: planning (issue 4's "Must show").
 * Group labels by color name and by hex, listed with `search` and `with_counts` and
 * subscribed twice (the second is a 304); group milestones filtered by `containing_date`
 * and a two-term `search_title`; an iteration cadence (created through Forgelet's REST
 * extension with gitbeaker's own requester) whose iterations the queue creates as the
 * clock moves; a three-level epic tree built, reordered and re-parented with EpicLinks,
 * with a cycle refused.
 *
 * The served binary (`forgelet serve --test-mode`) has its clock frozen on a Monday; its
 * background worker runs due jobs, and the test runs them itself (`runDue`, `clock.advance`,
 * which run every job due on the way) before it reads what they made. Every request gitbeaker
 * sends is recorded (recordFetch), so the tests also show what went on the wire (the harness
 * calls are recorded too; each check clears the record first). gitbeaker's own path bugs are
 * used as they are: GroupLabels.subscribe posts to `/groups/:id/issues/:label_id/subscribe`, and
 * EpicLinks uses `/groups/:id/epics/:iid/links` with `title` in the query string
 * (REAL-CLIENTS.md §5.12).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab, type AllIterationsOptions, type AllMilestonesOptions, type EpicLinkSchema } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitbeakerFailure, recordFetch, type FetchExchange } from './support.js';

type Client = InstanceType<typeof Gitlab>;

/** A Monday: the cadence starts today. */
const T0 = '2025-01-06T09:00:00.000Z';
const WEEK_MS = 7 * 86_400_000;
/** GitLab's message for an epic that would become its own descendant. */
const CYCLE = 'This epic cannot be added. It is already an ancestor of the parent epic.';

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0 planning`, () => {
    let f: ServedForgelet;
    let root: Client;
    let groupId: number;
    let projectId: number;
    let wire: ReturnType<typeof recordFetch>;
    /** The requests sent since the last call (method, path with query, status). */
    const sent = (): FetchExchange[] => wire.exchanges.splice(0);

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect, { clock: { now: T0 } });
      wire = recordFetch();
      root = new Gitlab({ host: f.url, token: f.rootToken });
      const group = await root.Groups.create('Planning', 'planning');
      groupId = group.id;
      const project = await root.Projects.create({ name: 'Roadmap', path: 'roadmap', namespaceId: groupId });
      assert.equal(project.namespace.id, groupId);
      projectId = project.id;
      console.log(`[${dialect}] gitbeaker planning setup (server, group, project): ${Math.round(performance.now() - t0)} ms`);
    });
    after(async () => {
      wire?.restore();
      await f?.stop();
    });

    it('group labels: a color name becomes hex, hex is kept; search and with_counts; a second subscribe is a 304', async () => {
      const bug = await root.GroupLabels.create(groupId, 'Bug', 'red', { description: 'Something is **broken**' });
      assert.equal(bug.name, 'Bug');
      assert.equal(bug.color, '#FF0000');
      assert.equal(bug.text_color, '#FFFFFF');
      assert.match(String(bug.description_html), /<strong>broken<\/strong>/, 'description_html is rendered Markdown');
      assert.equal(bug.subscribed, false);
      const feature = await root.GroupLabels.create(groupId, 'Feature request', '#a8d695');
      assert.equal(feature.color, '#a8d695');
      assert.equal(feature.text_color, '#333333');
      const docs = await root.GroupLabels.create(groupId, 'Documentation', 'navy');
      assert.equal(docs.color, '#000080');

      // Two issues of the group's project carry the group label; one of them is closed.
      const open = await root.Issues.create(projectId, 'It crashes', { labels: 'Bug' });
      assert.deepEqual(open.labels, ['Bug']);
      const closed = await root.Issues.create(projectId, 'It crashed once', { labels: 'Bug' });
      assert.equal((await root.Issues.edit(projectId, closed.iid, { stateEvent: 'close' })).state, 'closed');

      sent();
      const plain = await root.GroupLabels.all(groupId);
      assert.deepEqual(plain.map((l) => [l.name, l.color]), [['Bug', '#FF0000'], ['Documentation', '#000080'], ['Feature request', '#a8d695']]);
      assert.ok(!('open_issues_count' in plain[0]!), 'no counts without with_counts');

      const counted = await root.GroupLabels.all(groupId, { withCounts: true });
      assert.deepEqual(
        counted.map((l) => [l.name, l.open_issues_count, l.closed_issues_count, l.open_merge_requests_count]),
        [['Bug', 1, 1, 0], ['Documentation', 0, 0, 0], ['Feature request', 0, 0, 0]],
      );
      // search matches the title or the description, together with with_counts.
      const byTitle = await root.GroupLabels.all(groupId, { search: 'feature', withCounts: true });
      assert.deepEqual(byTitle.map((l) => [l.id, l.open_issues_count]), [[feature.id, 0]]);
      const byDescription = await root.GroupLabels.all(groupId, { search: 'broken', withCounts: true });
      assert.deepEqual(byDescription.map((l) => [l.id, l.open_issues_count, l.closed_issues_count]), [[bug.id, 1, 1]]);
      assert.deepEqual(await root.GroupLabels.all(groupId, { search: 'nothing like it' }), []);
      assert.deepEqual(sent(), [
        ['GET', `/groups/${groupId}/labels`, 200],
        ['GET', `/groups/${groupId}/labels?with_counts=true`, 200],
        ['GET', `/groups/${groupId}/labels?search=feature&with_counts=true`, 200],
        ['GET', `/groups/${groupId}/labels?search=broken&with_counts=true`, 200],
        ['GET', `/groups/${groupId}/labels?search=nothing%20like%20it`, 200],
      ]);

      const first = await root.GroupLabels.subscribe(groupId, bug.id);
      assert.equal(first.id, bug.id);
      assert.equal(first.subscribed, true);
      const second = await gitbeakerFailure(root.GroupLabels.subscribe(groupId, bug.id));
      assert.deepEqual(second, { status: 304, message: '' }, 'a 304 carries no body');
      // gitbeaker's path (the issue route), which the server serves as an alias.
      assert.deepEqual(sent(), [
        ['POST', `/groups/${groupId}/issues/${bug.id}/subscribe`, 201],
        ['POST', `/groups/${groupId}/issues/${bug.id}/subscribe`, 304],
      ]);
      const shown = await root.GroupLabels.show(groupId, bug.id);
      assert.equal(shown.subscribed, true, 'still subscribed after the 304');
      assert.equal((await root.GroupLabels.show(groupId, 'Feature request')).subscribed, false);
    });

    it('group milestones: containing_date picks the timeboxes around a day; a two-term search_title ANDs its terms', async () => {
      const planning = await root.GroupMilestones.create(groupId, 'Sprint planning alpha', { startDate: '2025-01-01', dueDate: '2025-01-15' });
      assert.equal(planning.group_id, groupId);
      assert.equal(planning.start_date, '2025-01-01');
      assert.equal(planning.expired, false);
      const review = await root.GroupMilestones.create(groupId, 'Sprint review beta', { startDate: '2025-01-10', dueDate: '2025-01-31' });
      const release = await root.GroupMilestones.create(groupId, 'Release alpha beta', { startDate: '2025-02-01', dueDate: '2025-02-28' });
      const backlog = await root.GroupMilestones.create(groupId, 'Backlog alpha');
      const old = await root.GroupMilestones.create(groupId, 'Kickoff beta', { startDate: '2024-12-01', dueDate: '2024-12-20' });
      assert.equal(old.expired, true, 'due before the clock date');

      // gitbeaker 43 declares neither containingDate nor searchTitle, but sends any option as a query parameter.
      const milestones = (options: { containingDate?: string; searchTitle?: string }) => root.GroupMilestones.all(groupId, options as AllMilestonesOptions);
      const titles = (list: { title: string }[]) => list.map((m) => m.title);
      sent();
      // Due date ascending, undated last.
      assert.deepEqual(titles(await milestones({ containingDate: '2025-01-12' })), ['Sprint planning alpha', 'Sprint review beta']);
      assert.deepEqual(sent(), [['GET', `/groups/${groupId}/milestones?containing_date=2025-01-12`, 200]]);
      assert.deepEqual(titles(await milestones({ containingDate: '2025-01-05' })), ['Sprint planning alpha']);
      assert.deepEqual(titles(await milestones({ containingDate: '2025-02-10' })), ['Release alpha beta']);
      assert.deepEqual(await milestones({ containingDate: '2026-01-01' }), []);

      assert.deepEqual(titles(await milestones({ searchTitle: 'alpha' })), ['Sprint planning alpha', 'Release alpha beta', 'Backlog alpha']);
      // Both terms must occur, in any order and case.
      sent();
      assert.deepEqual(titles(await milestones({ searchTitle: 'alpha beta' })), ['Release alpha beta']);
      assert.deepEqual(sent(), [['GET', `/groups/${groupId}/milestones?search_title=alpha%20beta`, 200]]);
      assert.deepEqual(titles(await milestones({ searchTitle: 'BETA sprint' })), ['Sprint review beta']);
      assert.deepEqual(titles(await milestones({ searchTitle: 'sprint alpha', containingDate: '2025-01-12' })), ['Sprint planning alpha']);
      assert.deepEqual(await milestones({ searchTitle: 'alpha gamma' }), []);
      assert.ok(review.id && release.id && backlog.id);
    });

    it('an iteration cadence (Forgelet extension) produces weekly iterations through the queue as the clock advances', async () => {
      // GitLab has no REST route for cadences: gitbeaker's generic requester posts to the extension.
      const res = await root.Groups.requester.post(`forgelet/groups/${groupId}/iteration_cadences`, {
        body: { title: 'Weekly', start_date: '2025-01-06', duration_in_weeks: 1, iterations_in_advance: 2 },
      });
      assert.equal(res.status, 201);
      assert.deepEqual(sent().at(-1), ['POST', `/forgelet/groups/${groupId}/iteration_cadences`, 201]);
      const cadence = res.body as Record<string, unknown>;
      assert.deepEqual(
        { ...cadence, id: 0 },
        {
          id: 0,
          title: 'Weekly',
          description: null,
          start_date: '2025-01-06',
          duration_in_weeks: 1,
          iterations_in_advance: 2,
          automatic: true,
          active: true,
          roll_over: false,
          group_id: groupId,
          created_at: T0,
          updated_at: T0,
        },
      );
      const listed = await root.Groups.requester.get(`forgelet/groups/${groupId}/iteration_cadences`, {});
      assert.deepEqual((listed.body as { id: unknown }[]).map((c) => c.id), [cadence.id]);

      // A queue job (due now) makes the iterations: run what is due (the worker may have taken it first).
      await f.runDue();
      const week0 = await root.GroupIterations.all(groupId);
      assert.deepEqual(
        week0.map((i) => [i.sequence, i.start_date, i.due_date, i.state, i.title, i.group_id]),
        [
          [1, '2025-01-06', '2025-01-12', 2, null, groupId],
          [2, '2025-01-13', '2025-01-19', 1, null, groupId],
          [3, '2025-01-20', '2025-01-26', 1, null, groupId],
        ],
      );
      // Nothing more is due at the same instant: the job waits for the next start (2025-01-13).
      assert.equal(await f.runDue(), 0);
      assert.equal((await root.GroupIterations.all(groupId)).length, 3);

      // Three weeks on (2025-01-27, a Monday): the job runs at each new start on the way.
      const advanced = await f.clock.advance((3 * WEEK_MS) / 1000);
      assert.deepEqual([advanced.now, advanced.jobs_run], ['2025-01-27T09:00:00.000Z', 3]);
      const week3 = await root.GroupIterations.all(groupId);
      assert.deepEqual(
        week3.map((i) => [i.sequence, i.start_date, i.due_date, i.state]),
        [
          [1, '2025-01-06', '2025-01-12', 3],
          [2, '2025-01-13', '2025-01-19', 3],
          [3, '2025-01-20', '2025-01-26', 3],
          [4, '2025-01-27', '2025-02-02', 2],
          [5, '2025-02-03', '2025-02-09', 1],
          [6, '2025-02-10', '2025-02-16', 1],
        ],
      );
      assert.deepEqual(week3.slice(0, 3).map((i) => i.id), week0.map((i) => i.id), 'the first iterations are kept');
      const ids = (list: { id: number }[]) => list.map((i) => i.id);
      assert.deepEqual(ids(await root.GroupIterations.all(groupId, { state: 'closed' })), ids(week3.slice(0, 3)));
      assert.deepEqual(ids(await root.GroupIterations.all(groupId, { state: 'current' })), [week3[3]!.id]);
      assert.deepEqual(ids(await root.GroupIterations.all(groupId, { state: 'upcoming' })), ids(week3.slice(4)));
      // `in` is not declared by gitbeaker 43 either; it goes out as in%5B%5D=cadence_title.
      const byCadence = { search: 'week', in: ['cadence_title'] } as AllIterationsOptions;
      sent();
      assert.deepEqual(ids(await root.GroupIterations.all(groupId, byCadence)), ids(week3));
      assert.deepEqual(sent(), [['GET', `/groups/${groupId}/iterations?search=week&in%5B%5D=cadence_title`, 200]]);
    });

    it('epic links: a three-level tree built, a cycle refused (409), children reordered, the grandchild re-parented under the root, a child unassigned', async () => {
      const top = await root.Epics.create(groupId, 'Roadmap 2025');
      sent();
      assert.equal(top.parent_id, null);
      // EpicLinks.create: POST …/epics/:iid/links?title=… (a new child goes first)
      const a = await root.EpicLinks.create(groupId, top.iid, 'Child A');
      assert.deepEqual({ title: a.title, parent_id: a.parent_id, group_id: a.group_id, has_children: a.has_children }, { title: 'Child A', parent_id: top.id, group_id: groupId, has_children: false });
      assert.deepEqual(sent(), [['POST', `/groups/${groupId}/epics/${top.iid}/links?title=Child%20A`, 201]]);
      const b = await root.EpicLinks.create(groupId, top.iid, 'Child B');
      const c = await root.EpicLinks.create(groupId, top.iid, 'Child C');
      const grandchild = await root.Epics.create(groupId, 'Grandchild');
      const assigned = await root.EpicLinks.assign(groupId, a.iid, grandchild.id);
      assert.deepEqual([assigned.id, assigned.parent_id, assigned.parent_iid], [grandchild.id, a.id, a.iid]);
      assert.deepEqual(sent().at(-1), ['POST', `/groups/${groupId}/epics/${a.iid}/links/${grandchild.id}`, 201]);

      const children = async (iid: number) => (await root.EpicLinks.all(groupId, iid)).map((e) => e.title);
      assert.deepEqual(await children(top.iid), ['Child C', 'Child B', 'Child A']);
      assert.deepEqual(await children(a.iid), ['Grandchild']);
      assert.deepEqual(await children(grandchild.iid), []);
      const shown = await root.Epics.show(groupId, grandchild.iid);
      assert.deepEqual([shown.parent_id, shown.parent_iid], [a.id, a.iid]);

      // The root under its grandchild would be a cycle.
      const cycle = await gitbeakerFailure(root.EpicLinks.assign(groupId, grandchild.iid, top.id));
      assert.deepEqual(cycle, { status: 409, message: CYCLE });
      assert.equal((await root.Epics.show(groupId, top.iid)).parent_id, null, 'the refused link changed nothing');
      assert.deepEqual(await children(grandchild.iid), []);

      // move_before_id: that sibling ends up right before the child; move_after_id: right after.
      // reorder answers every child in the new order (gitbeaker 43 types it as a single epic).
      const reorder = async (id: number, options: { moveBeforeId?: number; moveAfterId?: number }) =>
        (await root.EpicLinks.reorder(groupId, top.iid, id, options)) as unknown as EpicLinkSchema[];
      const afterC = await reorder(a.id, { moveBeforeId: c.id });
      assert.deepEqual(afterC.map((e) => e.title), ['Child C', 'Child A', 'Child B']);
      const beforeC = await reorder(b.id, { moveAfterId: c.id });
      assert.deepEqual(sent().slice(-2), [
        ['PUT', `/groups/${groupId}/epics/${top.iid}/links/${a.id}`, 200],
        ['PUT', `/groups/${groupId}/epics/${top.iid}/links/${b.id}`, 200],
      ]);
      assert.deepEqual(beforeC.map((e) => e.title), ['Child B', 'Child C', 'Child A']);
      assert.deepEqual(await children(top.iid), ['Child B', 'Child C', 'Child A']);

      // Re-parent: the grandchild moves from Child A straight under the root (first).
      const moved = await root.EpicLinks.assign(groupId, top.iid, grandchild.id);
      assert.deepEqual([moved.parent_id, moved.parent_iid], [top.id, top.iid]);
      assert.deepEqual(await children(top.iid), ['Grandchild', 'Child B', 'Child C', 'Child A']);
      assert.deepEqual(await children(a.iid), []);

      // Still refused one level down, and assigning to the same parent again too.
      assert.deepEqual(await gitbeakerFailure(root.EpicLinks.assign(groupId, grandchild.iid, top.id)), { status: 409, message: CYCLE });
      assert.deepEqual(await gitbeakerFailure(root.EpicLinks.assign(groupId, top.iid, grandchild.id)), {
        status: 409,
        message: 'This epic cannot be added. It is already assigned to the parent epic.',
      });

      // Unassign Child B (DELETE …/links/:id answers the epic, without its parent).
      const removed = await root.EpicLinks.unassign(groupId, top.iid, b.id);
      assert.deepEqual([removed.id, removed.parent_id], [b.id, null]);
      assert.deepEqual(sent().at(-1), ['DELETE', `/groups/${groupId}/epics/${top.iid}/links/${b.id}`, 200]);
      assert.deepEqual(await children(top.iid), ['Grandchild', 'Child C', 'Child A']);
    });
  });
}
