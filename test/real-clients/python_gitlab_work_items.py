"""python-gitlab against a running Forgelet: work items (issue 3's "Must show").

Run by work-items-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL, FORGELET_TOKEN (root, api scope).
Output: one JSON object on stdout, one key per step. A step that raised reports
{"error": {"type", "message", "response_code", "trace"}} instead of its results, so that
one failure does not hide the others. Python warnings raised during a step are listed in
its "warnings". Every HTTP exchange is recorded (a requests response hook), so a step can
report the status of a call whose python-gitlab method returns nothing (delete()).
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
exchanges = []  # [method, path (from /api/v4), status, JSON request body or None], every request of every client


record = exchange_recorder(exchanges)


def client(token):
    session = requests.Session()
    session.hooks["response"].append(record)
    return gitlab.Gitlab(URL, private_token=token, session=session)


step = make_step(results, exchanges)


def error_of(fn):
    """Runs fn, returning the python-gitlab error it raised (or None)."""
    try:
        fn()
    except gitlab.exceptions.GitlabError as e:
        return {"type": type(e).__name__, "response_code": e.response_code, "message": e.error_message}
    return None


def award(a):
    return {
        "id": a.id,
        "name": a.name,
        "awardable_type": a.awardable_type,
        "awardable_id": a.awardable_id,
        "user": {"id": a.user["id"], "username": a.user["username"]},
    }


def event(e):
    return {
        "id": e.id,
        "state": e.state,
        "resource_type": e.resource_type,
        "resource_id": e.resource_id,
        "created_at": e.created_at,
        "user": {"id": e.user["id"], "username": e.user["username"]},
    }


gl = client(TOKEN)


@step("setup")
def _():
    gl.auth()
    project = gl.projects.create({"name": "Py Work Items", "path": "py-work-items", "visibility": "public", "initialize_with_readme": True})
    bob = gl.users.create(
        {"username": "pybob", "name": "Py Bob", "email": "pybob@example.com", "password": "correct-horse-battery", "skip_confirmation": True}
    )
    pat = bob.personal_access_tokens.create({"name": "work-items", "scopes": ["api"]})
    member = project.members.create({"user_id": bob.id, "access_level": 30})
    issue = project.issues.create({"title": "Reactions and state events", "description": "made by python-gitlab"})
    note = issue.notes.create({"body": "a note to react to"})
    state.update(project=project, issue=issue, note=note, bob_gl=client(pat.token))
    return {
        "root": {"id": gl.user.id, "username": gl.user.username},
        "project": {"id": project.id, "visibility": project.visibility},
        "bob": {"id": bob.id, "username": bob.username},
        "member": {"id": member.id, "access_level": member.access_level},
        "issue": {"id": issue.id, "iid": issue.iid, "state": issue.state},
        "note": {"id": note.id, "body": note.body, "noteable_iid": note.noteable_iid},
    }


@step("award")
def _():
    issue, note = state["issue"], state["note"]
    on_issue = issue.awardemojis.create({"name": "thumbsup"})
    on_note = note.awardemojis.create({"name": "thumbsup"})
    state.update(issue_award_id=on_issue.id, note_award_id=on_note.id)
    return {
        "on_issue": award(on_issue),
        "on_note": award(on_note),
        "issue_list": [award(a) for a in issue.awardemojis.list(get_all=True)],
        "note_list": [award(a) for a in note.awardemojis.list(get_all=True)],
        "note_get": award(note.awardemojis.get(on_note.id)),
    }


@step("refusals")
def _():
    issue, note = state["issue"], state["note"]
    return {
        "again": error_of(lambda: issue.awardemojis.create({"name": "thumbsup"})),
        "again_on_note": error_of(lambda: note.awardemojis.create({"name": "thumbsup"})),
        "unknown": error_of(lambda: issue.awardemojis.create({"name": "not_an_emoji_xyz"})),
        "issue_ids_after": [a.id for a in issue.awardemojis.list(get_all=True)],
        "note_ids_after": [a.id for a in note.awardemojis.list(get_all=True)],
    }


@step("close_reopen")
def _():
    issue = state["issue"]
    before = [event(e) for e in issue.resourcestateevents.list(get_all=True)]
    issue.state_event = "close"
    issue.save()  # PUT {"state_event": "close"} as root
    after_close = issue.state
    # bob (Developer) reopens through his own client
    bobs_issue = state["bob_gl"].projects.get(state["project"].id, lazy=True).issues.get(issue.iid)
    bobs_issue.state_event = "reopen"
    bobs_issue.save()
    events = issue.resourcestateevents.list(get_all=True)
    one = state["bob_gl"].projects.get(state["project"].id, lazy=True).issues.get(issue.iid, lazy=True).resourcestateevents.get(events[-1].id)
    return {
        "before": before,
        "after_close": after_close,
        "after_reopen": bobs_issue.state,
        "events": [event(e) for e in events],
        "get_last": event(one),
    }


@step("delete_others")
def _():
    issue, note = state["issue"], state["note"]
    bob_project = state["bob_gl"].projects.get(state["project"].id, lazy=True)
    bobs_issue = bob_project.issues.get(issue.iid, lazy=True)
    bobs_note = bobs_issue.notes.get(note.id, lazy=True)
    # bob's own thumbsup is not a duplicate of root's
    bobs = bobs_issue.awardemojis.create({"name": "thumbsup"})
    refused_issue = error_of(lambda: bobs_issue.awardemojis.delete(state["issue_award_id"]))
    refused_note = error_of(lambda: bobs_note.awardemojis.delete(state["note_award_id"]))
    still_issue = award(issue.awardemojis.get(state["issue_award_id"]))
    still_note = award(note.awardemojis.get(state["note_award_id"]))
    issue.awardemojis.delete(state["issue_award_id"])
    delete_issue = exchanges[-1]  # the DELETE just sent
    note.awardemojis.delete(state["note_award_id"])
    delete_note = exchanges[-1]
    return {
        "bobs": award(bobs),
        "refused_issue": refused_issue,
        "refused_note": refused_note,
        "still_issue": still_issue,
        "still_note": still_note,
        "delete_issue": delete_issue,
        "delete_note": delete_note,
        "get_after_delete": error_of(lambda: issue.awardemojis.get(state["issue_award_id"])),
        "issue_ids_after": [a.id for a in issue.awardemojis.list(get_all=True)],
        "note_ids_after": [a.id for a in note.awardemojis.list(get_all=True)],
    }


@step("merge_request")
def _():
    project = state["project"]
    # A merge needs both branches: the README gave `main`; a commit through the API gives `feature`.
    commit = project.commits.create(
        {
            "branch": "feature",
            "start_branch": "main",
            "commit_message": "Add the feature",
            "actions": [{"action": "create", "file_path": "feature.txt", "content": "on\n"}],
        }
    )
    mr = project.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "Add the feature"})
    created = {"id": mr.id, "iid": mr.iid, "state": mr.state, "source_branch": mr.source_branch, "target_branch": mr.target_branch, "sha_is_head": mr.sha == commit.id}
    tada = mr.awardemojis.create({"name": "tada"})
    awards = [a.id for a in mr.awardemojis.list(get_all=True)]
    before = [event(e) for e in mr.resourcestateevents.list(get_all=True)]
    mr.merge()  # PUT …/merge {}; the object's attributes are replaced by the response
    merged = {"iid": mr.iid, "state": mr.state, "merged_at": mr.merged_at, "merge_commit_sha": mr.merge_commit_sha}
    events = mr.resourcestateevents.list(get_all=True)
    return {
        "created": created,
        "tada": award(tada),
        "award_ids": awards,
        "before": before,
        "merged": merged,
        "reread_state": project.mergerequests.get(mr.iid).state,
        "events": [event(e) for e in events],
        "get_event": event(mr.resourcestateevents.get(events[0].id)),
    }


json.dump(results, sys.stdout)
sys.stdout.write("\n")
