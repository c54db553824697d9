"""python-gitlab against a running Forgelet: the substrate stock tools call (issue 27).

Run by substrate-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL, FORGELET_TOKEN (root), ALICE_TOKEN (a user with api scope).
Output: one JSON object on stdout, one key per step (see steps.py).

python-gitlab 3.12 has no method for GET /namespaces/:id/exists; it goes through gl.http_get.
"""

import json
import os

import gitlab
import gitlab.exceptions
import requests

from steps import exchange_recorder, make_step

URL = os.environ["FORGELET_URL"]

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


def error_of(fn):
    try:
        fn()
    except gitlab.exceptions.GitlabError as e:
        return {"type": type(e).__name__, "response_code": e.response_code, "message": e.error_message}
    return None


root = client(os.environ["FORGELET_TOKEN"])
alice = client(os.environ["ALICE_TOKEN"])


@step("namespaces")
def _():
    group = alice.groups.create({"name": "Platform", "path": "platform"})
    sub = alice.groups.create({"name": "Tools", "path": "tools", "parent_id": group.id})
    state.update(group=group, sub=sub)
    listed = alice.namespaces.list(get_all=True)
    searched = alice.namespaces.list(search="tools")
    by_path = alice.namespaces.get("platform/tools")
    by_id = alice.namespaces.get(sub.id)
    return {
        "group_id": group.id,
        "sub_id": sub.id,
        "listed": [[n.kind, n.full_path] for n in listed],
        "searched": [n.full_path for n in searched],
        "by_path": by_path.asdict(),
        "by_id": by_id.asdict(),
        "exists": alice.http_get("/namespaces/platform/exists"),
        "exists_under_parent": alice.http_get("/namespaces/tools/exists", query_data={"parent_id": group.id}),
        "hidden": error_of(lambda: alice.namespaces.get("root")),
    }


@step("label_priority")
def _():
    project = alice.projects.create({"name": "app", "namespace_id": state["group"].id})
    state["project"] = project
    created = project.labels.create({"name": "bug", "color": "#d9534f", "priority": 2})
    label = project.labels.get("bug")
    label.priority = 5
    label.save()
    after_save = project.labels.get("bug").priority
    label.priority = None
    label.save()
    return {
        "created": created.priority,
        "got": label.priority,
        "after_save": after_save,
        "after_clear": project.labels.get("bug").priority,
        "listed": [[l.name, l.priority] for l in project.labels.list(get_all=True)],
    }


@step("approvals_before_merge")
def _():
    project = alice.projects.get(state["project"].id)
    before = getattr(project, "approvals_before_merge", "absent")
    project.approvals_before_merge = 2
    project.save()
    reread = alice.projects.get(project.id)
    settings = project.approvals.get()
    return {"before": before, "after": reread.approvals_before_merge, "settings": settings.approvals_before_merge}


@step("impersonation_tokens")
def _():
    user = root.users.get(alice.user.id)
    created = user.impersonationtokens.create({"name": "support", "scopes": ["api", "read_user"], "expires_at": "2099-01-01"})
    as_alice = gitlab.Gitlab(URL, private_token=created.token)
    as_alice.auth()
    got = user.impersonationtokens.get(created.id)
    second = user.impersonationtokens.create({"name": "second", "scopes": ["read_api"]})
    user.impersonationtokens.delete(second.id)
    return {
        "created": {k: v for k, v in created.asdict().items() if k != "token"},
        "token_prefix": created.token[:6],
        "authenticated_as": as_alice.user.username,
        "got": got.asdict(),
        "active": [t.name for t in user.impersonationtokens.list(state="active")],
        "inactive": [t.name for t in user.impersonationtokens.list(state="inactive")],
        "all": [t.name for t in user.impersonationtokens.list(get_all=True)],
    }


@step("deploy_tokens")
def _():
    project = alice.projects.get(state["project"].id)
    group = alice.groups.get(state["group"].id)
    created = project.deploytokens.create(
        {"name": "ci", "scopes": ["read_package_registry", "write_package_registry"], "expires_at": "2099-01-01T00:00:00Z"}
    )
    named = group.deploytokens.create({"name": "grp", "scopes": ["read_repository"], "username": "grp-bot"})
    got = project.deploytokens.get(created.id)
    listed = [t.name for t in project.deploytokens.list()]
    group_listed = [t.username for t in group.deploytokens.list()]
    instance = [t.name for t in root.deploytokens.list(get_all=True)]
    project.deploytokens.delete(created.id)
    group.deploytokens.delete(named.id)
    return {
        "created": {k: v for k, v in created.asdict().items() if k != "token"},
        "token_prefix": created.token[:5],
        "got": got.asdict(),
        "listed": listed,
        "group_listed": group_listed,
        "instance": instance,
        "after_delete": [t.name for t in project.deploytokens.list()],
        "missing": error_of(lambda: project.deploytokens.get(created.id)),
    }


@step("rotation")
def _():
    user = root.users.get(alice.user.id)
    pat = user.personal_access_tokens.create({"name": "rotating", "scopes": ["api"]}) if hasattr(user, "personal_access_tokens") else None
    if pat is None:
        pat_id = root.http_post(f"/users/{alice.user.id}/personal_access_tokens", post_data={"name": "rotating", "scopes": ["api"]})["id"]
    else:
        pat_id = pat.id
    rotated = root.http_post(f"/personal_access_tokens/{pat_id}/rotate", post_data={"expires_at": "2099-02-01"})
    project = alice.projects.get(state["project"].id)
    bot = project.access_tokens.create({"name": "bot", "scopes": ["api"], "expires_at": "2099-01-01", "access_level": 40})
    bot_rotated = alice.http_post(f"/projects/{project.id}/access_tokens/{bot.id}/rotate", post_data={"expires_at": "2099-03-01"})
    return {
        "rotated": {"name": rotated["name"], "expires_at": rotated["expires_at"], "prefix": rotated["token"][:6], "new_id": rotated["id"] != pat_id},
        "bot": {"name": bot_rotated["name"], "expires_at": bot_rotated["expires_at"], "resource_type": bot_rotated["resource_type"]},
        "again": error_of(lambda: root.http_post(f"/personal_access_tokens/{pat_id}/rotate")),
    }


print(json.dumps(results))
