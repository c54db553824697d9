"""python-gitlab against a running Forgelet: pipeline schedules (issue 6's "Must show").

Run by schedules-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL, FORGELET_PROJECT_ID (a project whose main branch holds the CI
file), ALICE_TOKEN and BOB_TOKEN (two Maintainers of it, api scope).
Output: one JSON object on stdout, one key per step (see steps.py); every HTTP exchange of a
step is listed in its "exchanges".

The server's clock and queue belong to the test process: `pause(name)` writes
`@@forgelet-pause <name>` on stderr and waits for the test's JSON answer on stdin (see
runPythonStepsWithPauses in support.ts). `run_queue` runs the due queue jobs, `step_5_minutes`
advances the clock five minutes and runs the queue twice, `advance_4_minutes` and
`inactive_hour` (twelve such steps) likewise.

python-gitlab 3.12 has no manager for GET …/pipeline_schedules/:id/pipelines (REAL-CLIENTS.md
§2.6), so the schedule's pipelines are read with `gl.http_list(..., get_all=True)`, which
follows `Link: rel="next"`.
"""

import json
import os
import sys

import gitlab
import gitlab.exceptions
import requests

from steps import exchange_recorder, make_step

URL = os.environ["FORGELET_URL"]
PROJECT_ID = int(os.environ["FORGELET_PROJECT_ID"])

results = {"version": gitlab.__version__}
state = {}
exchanges = []
record = exchange_recorder(exchanges)
step = make_step(results, exchanges)


def client(token):
    session = requests.Session()
    session.hooks["response"].append(record)
    gl = gitlab.Gitlab(URL, private_token=token, session=session)
    gl.auth()
    return gl


def pause(name):
    """Asks the test process to act (run the queue, move the clock) and returns its answer."""
    sys.stderr.write(f"@@forgelet-pause {name}\n")
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise RuntimeError(f"the test process did not answer pause {name}")
    return json.loads(line)


def error_of(fn):
    try:
        fn()
    except gitlab.exceptions.GitlabError as e:
        return {"type": type(e).__name__, "response_code": e.response_code, "message": e.error_message}
    return None


def schedule_of(s):
    return {
        "id": s.id,
        "description": s.description,
        "ref": s.ref,
        "cron": s.cron,
        "cron_timezone": s.cron_timezone,
        "next_run_at": s.next_run_at,
        "active": s.active,
        "created_at": s.created_at,
        "owner": s.owner["username"] if s.owner else None,
        "inputs": getattr(s, "inputs", None),
    }


def pipelines_of(gl, sid, **kwargs):
    path = f"/projects/{PROJECT_ID}/pipeline_schedules/{sid}/pipelines"
    return [
        {"id": p["id"], "project_id": p["project_id"], "ref": p["ref"], "status": p["status"], "source": p["source"], "created_at": p["created_at"]}
        for p in gl.http_list(path, get_all=True, **kwargs)
    ]


alice = client(os.environ["ALICE_TOKEN"])
bob = client(os.environ["BOB_TOKEN"])


@step("create")
def _():
    project = alice.projects.get(PROJECT_ID, lazy=True)
    s = project.pipelineschedules.create(
        {"description": "Nightly deploy", "ref": "main", "cron": "0 4 * * *", "cron_timezone": "Pacific Time (US & Canada)"}
    )
    state.update(schedule_id=s.id, alice_schedule=s)
    return {"alice_id": alice.user.id, "bob_id": bob.user.id, "schedule": schedule_of(s)}


@step("variable")
def _():
    s = state["alice_schedule"]
    created = s.variables.create({"key": "DEPLOY_TARGET", "value": "staging-cluster", "variable_type": "env_var"})
    updated = s.variables.update("DEPLOY_TARGET", {"key": "DEPLOY_TARGET", "value": "prod-cluster"})
    return {"created": created.asdict(), "updated": updated}


@step("input")
def _():
    s = state["alice_schedule"]
    s.inputs = [{"name": "environment", "value": "staging"}]
    s.save()
    added = s.inputs
    s.inputs = [{"name": "environment", "value": "production"}]
    s.save()
    updated = s.inputs
    shown = alice.projects.get(PROJECT_ID, lazy=True).pipelineschedules.get(state["schedule_id"])
    return {
        "added": added,
        "updated": updated,
        "next_run_at": s.next_run_at,
        "shown_variables": shown.asdict()["variables"],  # `shown.variables` is the variables manager
        "shown_inputs": shown.inputs,
        "shown_last_pipeline": shown.last_pipeline,
    }


@step("take_ownership")
def _():
    s = bob.projects.get(PROJECT_ID, lazy=True).pipelineschedules.get(state["schedule_id"])
    owner_before = s.owner["username"]

    def edit():
        s.description = "mine"
        s.save()

    refused_before = error_of(edit)
    s.take_ownership()
    state["bob_schedule"] = s
    a = alice.projects.get(PROJECT_ID, lazy=True).pipelineschedules.get(state["schedule_id"])

    def edit_by_alice():
        a.description = "hers"
        a.save()

    refused_after = error_of(edit_by_alice)
    # bob, the owner now, edits a variable through its object: save() sends the changed value
    # and the required update attributes (key).
    variable = s.variables.create({"key": "EXTRA", "value": "1"})
    variable.value = "2"
    variable.save()
    return {
        "owner_before": owner_before,
        "refused_before": refused_before,
        "owner_after": s.owner["username"],
        "owner_id_after": s.owner["id"],
        "next_run_at": s.next_run_at,
        "description": s.description,
        "refused_after": refused_after,
        "variable": variable.asdict(),
    }


@step("play")
def _():
    s = state["bob_schedule"]
    sid = state["schedule_id"]
    played = s.play()
    # play() replaced the object's attributes with the response ({"message": "201 Created"}),
    # as it does against GitLab: the schedule's id is gone from it.
    kept_id = "id" in s.attributes
    before_queue = pipelines_of(bob, sid)
    ran = pause("run_queue")
    pipelines = pipelines_of(bob, sid)
    project = bob.projects.get(PROJECT_ID, lazy=True)
    pipeline = project.pipelines.get(pipelines[0]["id"]) if pipelines else None
    jobs = pipeline.jobs.list(get_all=True) if pipeline else []
    shown = project.pipelineschedules.get(sid)
    return {
        "played": played,
        "kept_id": kept_id,
        "before_queue": before_queue,
        "ran": ran,
        "pipelines": pipelines,
        "pipeline_user": pipeline.user["id"] if pipeline else None,
        "pipeline_name": pipeline.name if pipeline else None,
        "jobs": [[j.name, j.status] for j in jobs],
        "last_pipeline_id": shown.last_pipeline["id"] if shown.last_pipeline else None,
        "next_run_at": shown.next_run_at,
        "listed": [[x.id, x.owner["username"]] for x in project.pipelineschedules.list(get_all=True)],
    }


@step("every_five_minutes")
def _():
    project = alice.projects.get(PROJECT_ID, lazy=True)
    now = pause("reset_clock")
    s = project.pipelineschedules.create(
        {"description": "Every five minutes", "ref": "main", "cron": "*/5 * * * *", "cron_timezone": "Pacific Time (US & Canada)"}
    )
    state["five_id"] = s.id
    created_next = s.next_run_at
    nothing_yet = pause("run_queue")
    steps = []
    for _ in range(12):
        ran = pause("step_5_minutes")
        steps.append({"ran": ran, "next_run_at": project.pipelineschedules.get(s.id).next_run_at})
    tail = pause("advance_4_minutes")
    first = len(exchanges)
    pipelines = pipelines_of(alice, s.id, per_page=5)
    pages = [e[:3] for e in exchanges[first:]]
    newest_first = [p["id"] for p in pipelines_of(alice, s.id, sort="desc", per_page=100)]
    owner_of_first = project.pipelines.get(pipelines[0]["id"]).user["id"] if pipelines else None
    return {
        "id": s.id,
        "now": now,
        "created_next": created_next,
        "nothing_yet": nothing_yet,
        "steps": steps,
        "tail": tail,
        "pages": pages,
        "pipelines": pipelines,
        "newest_first": newest_first,
        "owner_of_first": owner_of_first,
    }


@step("inactive")
def _():
    project = alice.projects.get(PROJECT_ID, lazy=True)
    s = project.pipelineschedules.get(state["five_id"])
    s.active = False
    s.save()
    inactive_ids = [x.id for x in project.pipelineschedules.list(scope="inactive", get_all=True)]
    ran = pause("inactive_hour")
    count = len(pipelines_of(alice, s.id, per_page=100))
    s.delete()
    return {"active": s.active, "inactive_ids": inactive_ids, "ran": ran, "count": count}


print(json.dumps(results))
