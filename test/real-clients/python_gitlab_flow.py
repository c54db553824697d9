"""python-gitlab against a running Forgelet, used the way a new user would.

Run by python-gitlab.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL, FORGELET_TOKEN (root, api scope), FORGELET_BULK_GROUP_ID
(a group holding the 250 bulk projects, 208 named alpha-*).
Output: one JSON object on stdout, one key per step. A step that raised reports
{"error": {"type", "message", "response_code"}} instead of its results, so that one
failure does not hide the others. Python warnings raised during a step are listed in
its "warnings".
"""

import json
import os
import sys

import gitlab
import gitlab.exceptions

from steps import make_step

URL = os.environ["FORGELET_URL"]
TOKEN = os.environ["FORGELET_TOKEN"]
BULK_GROUP_ID = int(os.environ["FORGELET_BULK_GROUP_ID"])

results = {"version": gitlab.__version__}
state = {}


step = make_step(results)


def error_of(fn):
    """Runs fn, returning the python-gitlab error it raised (or None)."""
    try:
        fn()
    except gitlab.exceptions.GitlabError as e:
        return {"type": type(e).__name__, "response_code": e.response_code, "message": e.error_message}
    return None


gl = gitlab.Gitlab(URL, private_token=TOKEN)


@step("auth")
def _():
    gl.auth()  # GET /user; also checks web_url against the configured URL
    return {"username": gl.user.username, "is_admin": gl.user.is_admin}


@step("hierarchy")
def _():
    # create() = POST with an exact application/json response
    g = gl.groups.create({"name": "Py Group", "path": "pyg", "visibility": "private"})
    sub = gl.groups.create({"name": "Py Sub", "path": "sub", "parent_id": g.id, "visibility": "private"})
    project = gl.projects.create({"name": "P", "path": "p", "namespace_id": sub.id, "visibility": "private"})
    user = gl.users.create(
        {"username": "pyalice", "name": "Py Alice", "email": "pyalice@example.com", "password": "correct-horse-battery", "skip_confirmation": True}
    )
    member = project.members.create({"user_id": user.id, "access_level": 30})
    # get() by full path: GET /projects/pyg%2Fsub%2Fp
    fetched = gl.projects.get("pyg/sub/p")
    fetched_group = gl.groups.get("pyg/sub")
    members = fetched.members.list(get_all=True)
    state["group_id"] = g.id
    return {
        "group": {"id": g.id, "full_path": g.full_path},
        "subgroup": {"id": sub.id, "full_path": sub.full_path, "parent_id": sub.parent_id},
        "project": {"id": project.id, "path_with_namespace": project.path_with_namespace, "namespace_id": project.namespace["id"]},
        "user": {"id": user.id, "username": user.username},
        "member": {"id": member.id, "access_level": member.access_level},
        "fetched": {"id": fetched.id, "path_with_namespace": fetched.path_with_namespace},
        "fetched_group": {"id": fetched_group.id, "full_path": fetched_group.full_path},
        "members": [[m.username, m.access_level] for m in members],
    }


@step("save_group")
def _():
    g = gl.groups.get(state["group_id"])
    g.description = "changed by python-gitlab"
    g.save()  # PUT /groups/:id with only the changed attribute
    after_save = g.description
    reread = gl.groups.get(state["group_id"])
    return {"after_save": after_save, "reread": reread.description}


@step("delete")
def _():
    # RESTObject.delete(): DELETE /groups/:id (Content-Type: application/json, empty body)
    doomed_group = gl.groups.create({"name": "Doomed", "path": "doomed", "visibility": "private"})
    doomed_group.delete()
    group_after = error_of(lambda: gl.groups.get(doomed_group.id))
    # gl.http_delete on a path
    doomed_project = gl.projects.create({"name": "doomed-project", "visibility": "private"})
    response = gl.http_delete(f"/projects/{doomed_project.id}")
    project_after = error_of(lambda: gl.projects.get(doomed_project.id))
    return {
        "group_after": group_after,
        "http_delete_status": response.status_code,
        "project_after": project_after,
    }


@step("read_api_user")
def _():
    # A user who is a Reporter of the bulk group, with a read_api token created through
    # POST /users/:id/personal_access_tokens.
    lister = gl.users.create({"username": "pylister", "name": "Py Lister", "email": "pylister@example.com", "password": "correct-horse-battery", "skip_confirmation": True})
    pat = lister.personal_access_tokens.create({"name": "read-only", "scopes": ["read_api"]})
    gl.groups.get(BULK_GROUP_ID, lazy=True).members.create({"user_id": lister.id, "access_level": 20})
    state["ro"] = gitlab.Gitlab(URL, private_token=pat.token)
    return {"scopes": pat.scopes, "token_prefix": pat.token[:6]}


@step("paging_iterator")
def _():
    ro = state["ro"]
    it = ro.projects.list(per_page=100, iterator=True)
    first = {
        "total": it.total,
        "total_pages": it.total_pages,
        "per_page": it.per_page,
        "current_page": it.current_page,
        "next_page": it.next_page,
        "prev_page": it.prev_page,
    }
    ids = [p.id for p in it]
    return {"first_page": first, "ids": ids, "last_current_page": it.current_page}


@step("paging_get_all")
def _():
    ro = state["ro"]
    return {"ids": [p.id for p in ro.projects.list(per_page=100, get_all=True)]}


@step("paging_filtered")
def _():
    group = gl.groups.get(BULK_GROUP_ID, lazy=True)
    it = group.projects.list(search="alpha", per_page=100, iterator=True)
    total, total_pages = it.total, it.total_pages
    projects = [[p.id, p.name] for p in it]
    return {"total": total, "total_pages": total_pages, "projects": projects}


@step("paging_single_page_warning")
def _():
    # list() without get_all/iterator returns one page and (correctly) warns that there
    # are more; this shows the X-Total header the warning is based on.
    ro = state["ro"]
    return {"count": len(ro.projects.list(per_page=100))}


@step("read_api_write")
def _():
    ro = state["ro"]
    ro.auth()
    return {
        "username": ro.user.username,
        "create_group": error_of(lambda: ro.groups.create({"name": "Nope", "path": "nope"})),
        "nope_exists": error_of(lambda: gl.groups.get("nope")) is None,
    }


@step("bad_token")
def _():
    with gitlab.Gitlab(URL, private_token="glpat-not-a-real-token-000000") as bad:
        return {"auth": error_of(bad.auth)}


json.dump(results, sys.stdout)
sys.stdout.write("\n")
