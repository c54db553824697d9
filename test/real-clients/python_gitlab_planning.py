"""python-gitlab against a running Forgelet: planning (issue 4's "Must show").

Run by planning-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL, FORGELET_TOKEN (root, api scope).
Output: one JSON object on stdout, one key per step. A step that raised reports
{"error": {"type", "message", "response_code", "trace"}} instead of its results. Every HTTP
exchange is recorded (a requests response hook) as [method, path from /api/v4, status,
JSON request body or None], so a step can show what python-gitlab put on the wire.

The server's clock and queue belong to the test process: `pause(name)` writes
`@@forgelet-pause <name>` on stderr and waits for the test's JSON answer on stdin (the
test runs the queue, or advances the clock and runs it, meanwhile).
"""

import json
import os
import sys

import gitlab
import gitlab.exceptions
import requests

from steps import exchange_recorder, make_step

URL = os.environ["FORGELET_URL"]
TOKEN = os.environ["FORGELET_TOKEN"]

results = {"version": gitlab.__version__}
state = {}
exchanges = []


record = exchange_recorder(exchanges)


session = requests.Session()
session.hooks["response"].append(record)
gl = gitlab.Gitlab(URL, private_token=TOKEN, session=session)

step = make_step(results, exchanges)


def pause(name):
    """Hands control to the test process until it answers (one JSON line on stdin)."""
    sys.stderr.write(f"@@forgelet-pause {name}\n")
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise RuntimeError(f"the test process did not answer pause {name}")
    return json.loads(line)


def error_of(fn):
    """Runs fn, returning the python-gitlab error it raised (or None)."""
    try:
        fn()
    except gitlab.exceptions.GitlabError as e:
        return {"type": type(e).__name__, "response_code": e.response_code, "message": e.error_message}
    return None


def last_get():
    """The path (with query) of the last GET sent."""
    return next(e[1] for e in reversed(exchanges) if e[0] == "GET")


def label(l):
    out = {k: getattr(l, k, None) for k in ("id", "name", "color", "text_color", "subscribed")}
    for k in ("open_issues_count", "closed_issues_count", "open_merge_requests_count"):
        if k in l.attributes:
            out[k] = l.attributes[k]
    return out


def iteration(i):
    return [i.sequence, i.start_date, i.due_date, i.state, i.title, i.group_id, i.id]


def epic_titles(path):
    return [e["title"] for e in gl.http_list(path, get_all=True)]


@step("setup")
def _():
    gl.auth()
    group = gl.groups.create({"name": "Py Planning", "path": "py-planning"})
    project = gl.projects.create({"name": "Py Roadmap", "path": "py-roadmap", "namespace_id": group.id})
    state.update(group=group, project=project)
    return {"group": {"id": group.id}, "project": {"id": project.id, "namespace_id": project.namespace["id"]}}


@step("labels")
def _():
    group, project = state["group"], state["project"]
    bug = group.labels.create({"name": "Bug", "color": "red", "description": "Something is **broken**"})
    feature = group.labels.create({"name": "Feature request", "color": "#a8d695"})
    docs = group.labels.create({"name": "Documentation", "color": "navy"})
    # Two issues of the group's project carry the group label; one of them is closed.
    open_issue = project.issues.create({"title": "It crashes", "labels": ["Bug"]})
    closed_issue = project.issues.create({"title": "It crashed once", "labels": ["Bug"]})
    closed_issue.state_event = "close"
    closed_issue.save()

    plain = [label(l) for l in group.labels.list(get_all=True)]
    counted = [label(l) for l in group.labels.list(with_counts=True, get_all=True)]
    counted_query = last_get()
    by_title = [label(l) for l in group.labels.list(search="feature", with_counts=True, get_all=True)]
    by_title_query = last_get()
    by_description = [label(l) for l in group.labels.list(search="broken", with_counts=True, get_all=True)]
    nothing = [label(l) for l in group.labels.list(search="nothing like it", get_all=True)]

    # Subscribe to a label taken from a list (its name has a space: Feature%20request in the path).
    target = next(l for l in group.labels.list(search="feature", get_all=True))
    target.subscribe()  # attributes replaced by the response
    after_first = target.subscribed
    second = error_of(target.subscribe)
    subscribe_posts = [e[:3] for e in exchanges if e[0] == "POST" and e[1].endswith("/subscribe")]
    return {
        "bug": label(bug) | {"description_html": bug.description_html},
        "feature": label(feature),
        "docs": label(docs),
        "open_issue_labels": open_issue.labels,
        "closed_state": closed_issue.state,
        "plain": plain,
        "counted": counted,
        "counted_query": counted_query,
        "by_title": by_title,
        "by_title_query": by_title_query,
        "by_description": by_description,
        "nothing": nothing,
        "after_first": after_first,
        "second": second,
        "subscribe_posts": subscribe_posts,
        "reread_subscribed": group.labels.get("Feature request").subscribed,
        "other_subscribed": group.labels.get("Bug").subscribed,
    }


@step("milestones")
def _():
    group = state["group"]
    created = [
        group.milestones.create({"title": "Sprint planning alpha", "start_date": "2025-01-01", "due_date": "2025-01-15"}),
        group.milestones.create({"title": "Sprint review beta", "start_date": "2025-01-10", "due_date": "2025-01-31"}),
        group.milestones.create({"title": "Release alpha beta", "start_date": "2025-02-01", "due_date": "2025-02-28"}),
        group.milestones.create({"title": "Backlog alpha"}),
        group.milestones.create({"title": "Kickoff beta", "start_date": "2024-12-01", "due_date": "2024-12-20"}),
    ]

    def titles(**filters):
        return [m.title for m in group.milestones.list(get_all=True, **filters)]

    out = {
        "created": [[m.title, m.group_id, m.start_date, m.due_date, m.expired] for m in created],
        "containing_0112": titles(containing_date="2025-01-12"),
        "containing_0112_query": last_get(),
        "containing_0105": titles(containing_date="2025-01-05"),
        "containing_0210": titles(containing_date="2025-02-10"),
        "containing_2026": titles(containing_date="2026-01-01"),
        "alpha": titles(search_title="alpha"),
        "alpha_beta": titles(search_title="alpha beta"),
        "alpha_beta_query": last_get(),
        "beta_sprint": titles(search_title="BETA sprint"),
        "sprint_alpha_containing": titles(search_title="sprint alpha", containing_date="2025-01-12"),
        "alpha_gamma": titles(search_title="alpha gamma"),
    }
    return out


@step("iterations")
def _():
    group = state["group"]

    def listed(**filters):
        return [iteration(i) for i in group.iterations.list(get_all=True, **filters)]

    # GitLab has no REST route for cadences: the Forgelet extension, through http_post.
    cadence = gl.http_post(
        f"/forgelet/groups/{group.id}/iteration_cadences",
        post_data={"title": "Weekly", "start_date": "2025-01-06", "duration_in_weeks": 1, "iterations_in_advance": 2},
    )
    cadences = gl.http_list(f"/forgelet/groups/{group.id}/iteration_cadences", get_all=True)
    before_queue = listed()
    ran_first = pause("run_queue")
    week0 = listed()
    ran_again = pause("run_queue")
    after_rerun = listed()
    moved = pause("advance_3_weeks")
    week3 = listed()
    return {
        "cadence": cadence,
        "cadence_ids": [c["id"] for c in cadences],
        "before_queue": before_queue,
        "ran_first": ran_first,
        "week0": week0,
        "ran_again": ran_again,
        "after_rerun": after_rerun,
        "moved": moved,
        "week3": week3,
        "closed": [i[-1] for i in listed(state="closed")],
        "current": [i[-1] for i in listed(state="current")],
        "upcoming": [i[-1] for i in listed(state="upcoming")],
        # An undeclared list: python-gitlab repeats the key (in=cadence_title).
        "by_cadence_title": [i[-1] for i in listed(search="week", **{"in": ["cadence_title"]})],
        "by_cadence_title_query": last_get(),
    }


@step("epics")
def _():
    group = state["group"]
    base = f"/groups/{group.id}/epics"
    top = group.epics.create({"title": "Roadmap 2025"})
    # python-gitlab has no epic-links manager: gl.http_* on GitLab's own paths.
    a = gl.http_post(f"{base}/{top.iid}/epics", post_data={"title": "Child A"})
    b = gl.http_post(f"{base}/{top.iid}/epics", post_data={"title": "Child B"})
    c = gl.http_post(f"{base}/{top.iid}/epics", post_data={"title": "Child C"})
    grandchild = group.epics.create({"title": "Grandchild"})
    assigned = gl.http_post(f"{base}/{a['iid']}/epics/{grandchild.id}")
    built = {
        "top": epic_titles(f"{base}/{top.iid}/epics"),
        "a": epic_titles(f"{base}/{a['iid']}/epics"),
        "grandchild": epic_titles(f"{base}/{grandchild.iid}/epics"),
    }
    shown = group.epics.get(grandchild.iid)

    # The root under its grandchild would be a cycle.
    cycle = error_of(lambda: gl.http_post(f"{base}/{grandchild.iid}/epics/{top.id}"))
    top_parent_after_cycle = group.epics.get(top.iid).parent_id

    # move_before_id: that sibling ends up right before the child; move_after_id: right after.
    after_c = gl.http_put(f"{base}/{top.iid}/epics/{a['id']}", post_data={"move_before_id": c["id"]})
    before_c = gl.http_put(f"{base}/{top.iid}/epics/{b['id']}", post_data={"move_after_id": c["id"]})
    reordered = epic_titles(f"{base}/{top.iid}/epics")

    # Re-parent: the grandchild moves from Child A straight under the root.
    moved = gl.http_post(f"{base}/{top.iid}/epics/{grandchild.id}")
    reparented = {"top": epic_titles(f"{base}/{top.iid}/epics"), "a": epic_titles(f"{base}/{a['iid']}/epics")}
    cycle_again = error_of(lambda: gl.http_post(f"{base}/{grandchild.iid}/epics/{top.id}"))

    # Unassign Child B (http_delete returns the raw response: the epic, 200).
    removed = gl.http_delete(f"{base}/{top.iid}/epics/{b['id']}")
    return {
        "top": {"id": top.id, "iid": top.iid, "parent_id": top.parent_id},
        "a": a,
        "b": {"id": b["id"], "iid": b["iid"]},
        "c": {"id": c["id"], "iid": c["iid"]},
        "grandchild": {"id": grandchild.id, "iid": grandchild.iid},
        "assigned": {"id": assigned["id"], "parent_id": assigned["parent_id"], "parent_iid": assigned["parent_iid"]},
        "built": built,
        "shown": {"parent_id": shown.parent_id, "parent_iid": shown.parent_iid},
        "cycle": cycle,
        "top_parent_after_cycle": top_parent_after_cycle,
        "after_c": [e["title"] for e in after_c],
        "before_c": [e["title"] for e in before_c],
        "reordered": reordered,
        "moved": {"parent_id": moved["parent_id"], "parent_iid": moved["parent_iid"]},
        "reparented": reparented,
        "cycle_again": cycle_again,
        "removed": {"status": removed.status_code, "id": removed.json()["id"], "parent_id": removed.json()["parent_id"]},
        "after_remove": epic_titles(f"{base}/{top.iid}/epics"),
    }


json.dump(results, sys.stdout)
sys.stdout.write("\n")
