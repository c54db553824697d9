"""python-gitlab against a running Forgelet: project, group and system hooks (issue 27).

Run by hooks-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL, FORGELET_TOKEN (root, api scope), RECEIVER_URL (a local receiver that
answers 200, except under /py-fail, where it answers 500).
Output: one JSON object on stdout, one key per step (see steps.py).

python-gitlab 3.12 has managers for project hooks, group hooks (list, get, create, update,
delete) and system hooks (list, get, create, delete: HookManager is NoUpdateMixin, so no
update). It has no method for the test trigger, custom headers, URL variables, recent
deliveries, resend or the system hook test: those go through its http layer (gl.http_post,
gl.http_put, gl.http_delete, gl.http_list, gl.http_request). The custom header and URL variable
PUTs answer 204 with no body, which gl.http_put would try to parse as JSON, so they use
gl.http_request("put", ...) and report the status.

Deliveries are queued: the test-mode clock endpoint runs what is due (run_due), and steps wait
for the hook's delivery log before reading it.
"""

import json
import os
import time

import gitlab

from steps import error_of, make_step

URL = os.environ["FORGELET_URL"]
TOKEN = os.environ["FORGELET_TOKEN"]
RECEIVER = os.environ["RECEIVER_URL"]

results = {"version": gitlab.__version__}
state = {}
gl = gitlab.Gitlab(URL, private_token=TOKEN)
step = make_step(results)


def advance(seconds):
    """The test-mode clock: moves the frozen clock and runs every job due on the way."""
    return gl.http_post("/forgelet/clock/advance", post_data={"seconds": seconds})


def events_of(base, hook_id, at_least, **query):
    """The hook's recent deliveries once there are `at_least` of them (running due jobs meanwhile)."""
    for _ in range(100):
        advance(0)
        events = gl.http_list(f"{base}/hooks/{hook_id}/events", get_all=True, **query)
        if len(events) >= at_least:
            return events
        time.sleep(0.1)
    raise AssertionError(f"{base}/hooks/{hook_id}: fewer than {at_least} deliveries")


def status_of(response):
    return response.status_code


def keys_step(base, hook_id):
    """Sets and unsets a custom header and a URL variable through the http layer; the hook's key lists after each."""
    hooks = f"{base}/hooks/{hook_id}"
    out = {
        "set_header": status_of(gl.http_request("put", f"{hooks}/custom_headers/X-Extra", post_data={"value": "extra"})),
        "set_variable": status_of(gl.http_request("put", f"{hooks}/url_variables/spare", post_data={"value": "v1"})),
    }
    shown = gl.http_get(hooks)
    out["with_keys"] = {"custom_headers": shown["custom_headers"], "url_variables": shown["url_variables"]}
    out["unset_header"] = status_of(gl.http_delete(f"{hooks}/custom_headers/X-Extra"))
    out["unset_variable"] = status_of(gl.http_delete(f"{hooks}/url_variables/spare"))
    out["unset_missing"] = error_of(lambda: gl.http_delete(f"{hooks}/custom_headers/X-Extra"))
    out["bad_key"] = error_of(lambda: gl.http_request("put", f"{hooks}/url_variables/bad%20key", post_data={"value": "x"}))
    shown = gl.http_get(hooks)
    out["after"] = {"custom_headers": shown["custom_headers"], "url_variables": shown["url_variables"]}
    return out


@step("setup")
def _():
    group = gl.groups.create({"name": "Hooked", "path": "hooked"})
    project = gl.projects.create({"name": "Bot", "path": "bot", "namespace_id": group.id})
    # The test triggers build their sample from the first issue.
    seed = project.issues.create({"title": "seed issue"})
    state.update(group=group, project=project)
    return {"group": group.id, "project": project.id, "project_path": project.path_with_namespace, "seed_iid": seed.iid}


@step("project_hooks")
def _():
    project = state["project"]
    base = f"/projects/{project.id}"
    hook = project.hooks.create({
        "url": RECEIVER + "/py/{tenant}",
        "issues_events": True,
        "push_events": False,
        "token": "py-token",
        "url_variables": [{"key": "tenant", "value": "acme"}],
        "custom_headers": [{"key": "X-Py-Created", "value": "at-create"}],
    })
    created = hook.asdict()
    listed = [h.id for h in project.hooks.list()]
    shown = project.hooks.get(hook.id).asdict()
    # save() sends the required url plus what changed.
    hook.note_events = True
    hook.save()
    saved = hook.asdict()
    updated = project.hooks.update(hook.id, {"url": RECEIVER + "/py/{tenant}", "confidential_issues_events": True})
    header = status_of(gl.http_request("put", f"{base}/hooks/{hook.id}/custom_headers/X-Py", post_data={"value": "1"}))
    variable = status_of(gl.http_request("put", f"{base}/hooks/{hook.id}/url_variables/tenant", post_data={"value": "globex"}))
    issue = project.issues.create({"title": "from python", "description": "delivered by the queue"})
    events = events_of(base, hook.id, 1)
    tested = gl.http_post(f"{base}/hooks/{hook.id}/test/issues_events")
    events = events_of(base, hook.id, 2)
    resent = gl.http_post(f"{base}/hooks/{hook.id}/events/{events[-1]['id']}/resend")
    events = events_of(base, hook.id, 3)
    state["hook"] = hook
    return {
        "created": created,
        "listed": listed,
        "shown": shown,
        "saved": saved,
        "updated": updated,
        "header_status": header,
        "variable_status": variable,
        "issue_iid": issue.iid,
        "tested": tested,
        "resent": resent,
        "events": events,
        "successful": len(gl.http_list(f"{base}/hooks/{hook.id}/events", get_all=True, status="successful")),
        "server_failure": len(gl.http_list(f"{base}/hooks/{hook.id}/events", get_all=True, status="server_failure")),
        "variable_in_use": error_of(lambda: gl.http_delete(f"{base}/hooks/{hook.id}/url_variables/tenant")),
        "keys": keys_step(base, hook.id),
        "unknown_trigger": error_of(lambda: gl.http_post(f"{base}/hooks/{hook.id}/test/nothing_events")),
        "missing_url": error_of(lambda: gl.http_post(f"{base}/hooks", post_data={"issues_events": True})),
        "bad_url": error_of(lambda: project.hooks.create({"url": "ftp://example.com"})),
        "unknown_event": error_of(lambda: gl.http_post(f"{base}/hooks/{hook.id}/events/999999/resend")),
    }


@step("failing_target")
def _():
    """A target answering 500: each event is sent once; after 4 failures in a row the hook rests a minute, then two."""
    project = state["project"]
    base = f"/projects/{project.id}"
    hook = project.hooks.create({"url": RECEIVER + "/py-fail", "issues_events": True, "push_events": False})
    for i in range(4):
        project.issues.create({"title": f"fail {i}"})
    events = events_of(base, hook.id, 4)
    after_four = project.hooks.get(hook.id).asdict()
    # Disabled: this event is not delivered, not now and not once the hook is executable again.
    project.issues.create({"title": "fail 4"})
    advance(0)
    while_disabled = len(gl.http_list(f"{base}/hooks/{hook.id}/events", get_all=True))
    # A test still reaches a disabled hook (and reports the target's answer).
    test_disabled = error_of(lambda: gl.http_post(f"{base}/hooks/{hook.id}/test/issues_events"))
    clock = advance(120)
    after_backoff = project.hooks.get(hook.id).asdict()
    project.issues.create({"title": "fail 5"})
    events_after = events_of(base, hook.id, 6)
    after_five = project.hooks.get(hook.id).asdict()
    # An edit enables it again.
    hook.url = RECEIVER + "/py-fail"
    hook.save()
    return {
        "events": [{"trigger": e["trigger"], "response_status": e["response_status"], "response_body": e["response_body"]} for e in events],
        "after_four": {k: after_four[k] for k in ("alert_status", "disabled_until")},
        "while_disabled": while_disabled,
        "test_disabled": test_disabled,
        "clock": clock["now"],
        "after_backoff": {k: after_backoff[k] for k in ("alert_status", "disabled_until")},
        "events_after": len(events_after),
        "after_five": {k: after_five[k] for k in ("alert_status", "disabled_until")},
        "edited": {k: hook.asdict()[k] for k in ("alert_status", "disabled_until")},
    }


@step("delete_project_hook")
def _():
    project = state["project"]
    state["hook"].delete()
    return {"after": [h.url for h in project.hooks.list()], "get_deleted": error_of(lambda: project.hooks.get(state["hook"].id))}


@step("group_hooks")
def _():
    group = state["group"]
    base = f"/groups/{group.id}"
    hook = group.hooks.create({"url": RECEIVER + "/py-group", "issues_events": True, "subgroup_events": True, "push_events": False, "token": "grp"})
    listed = [h.id for h in group.hooks.list()]
    shown = group.hooks.get(hook.id).asdict()
    hook.note_events = True
    hook.save()
    updated = group.hooks.update(hook.id, {"url": RECEIVER + "/py-group", "member_events": True})
    tested = gl.http_post(f"{base}/hooks/{hook.id}/test/issues_events")
    events = events_of(base, hook.id, 1)
    resent = gl.http_post(f"{base}/hooks/{hook.id}/events/{events[0]['id']}/resend")
    events = events_of(base, hook.id, 2)
    keys = keys_step(base, hook.id)
    hook.delete()
    return {
        "created": hook.asdict(),
        "listed": listed,
        "shown": shown,
        "saved_note_events": hook.note_events,
        "updated": updated,
        "tested": tested,
        "resent": resent,
        "events": [{"trigger": e["trigger"], "response_status": e["response_status"]} for e in events],
        "keys": keys,
        "after": [h.id for h in group.hooks.list()],
    }


@step("system_hooks")
def _():
    hook = gl.hooks.create({"url": RECEIVER + "/py-system", "merge_requests_events": True, "push_events": False, "token": "sys"})
    listed = [h.id for h in gl.hooks.list()]
    shown = gl.hooks.get(hook.id).asdict()
    # HookManager has no update in 3.12: PUT through the http layer.
    updated = gl.http_put(f"/hooks/{hook.id}", post_data={"tag_push_events": True, "name": "py system"})
    # GitLab's system hook test is POST /hooks/:id (python-gitlab has no method).
    tested = gl.http_post(f"/hooks/{hook.id}")
    keys = keys_step("", hook.id)
    hook.delete()
    return {
        "created": hook.asdict(),
        "listed": listed,
        "shown": shown,
        "updated": updated,
        "tested": tested,
        "keys": keys,
        "after": [h.id for h in gl.hooks.list()],
        "get_deleted": error_of(lambda: gl.hooks.get(hook.id)),
    }


print(json.dumps(results))
