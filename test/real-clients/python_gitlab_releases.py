"""python-gitlab against a running Forgelet: releases (issue 5's "Must show").

Run by releases-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL, FORGELET_TOKEN (root, api scope).
Output: one JSON object on stdout, one key per step. A step that raised reports
{"error": {"type", "message", "response_code", "trace"}} instead of its results, so that
one failure does not hide the others. Every HTTP exchange is recorded as
[method, path (from /api/v4, query included), status, JSON request body or None,
JSON response body or None], so a step can show what a method that returns nothing
(links.delete()) was answered.

python-gitlab 3.12 has no group releases class: the group list goes through gl.http_list,
which sends booleans as `True` and follows `Link: rel="next"` with get_all=True.
"""

import json
import os
import sys

import gitlab
import gitlab.exceptions
import requests

from steps import make_step

URL = os.environ["FORGELET_URL"]
TOKEN = os.environ["FORGELET_TOKEN"]
TAG = "release/1.0"

results = {"version": gitlab.__version__}
state = {}
exchanges = []


def record(response, *args, **kwargs):
    request = response.request
    path = request.path_url
    if path.startswith("/api/v4"):
        path = path[len("/api/v4"):]
    sent = json.loads(request.body) if request.body else None
    try:
        answered = response.json() if response.content else None
    except ValueError:
        answered = None
    exchanges.append([request.method, path, response.status_code, sent, answered])


session = requests.Session()
session.hooks["response"].append(record)
gl = gitlab.Gitlab(URL, private_token=TOKEN, session=session)
step = make_step(results, exchanges)


def error_of(fn):
    """Runs fn, returning the python-gitlab error it raised (or None)."""
    try:
        fn()
    except gitlab.exceptions.GitlabError as e:
        return {"type": type(e).__name__, "response_code": e.response_code, "error_message": e.error_message, "str": str(e)}
    return None


def link(l):
    return l.asdict()


def release(r):
    return r.asdict()


@step("setup")
def _():
    group = gl.groups.create({"name": "Releases", "path": "rel"})
    alpha = gl.groups.create({"name": "Alpha", "path": "alpha", "parent_id": group.id})
    beta = gl.groups.create({"name": "Beta", "path": "beta", "parent_id": group.id})
    app = gl.projects.create({"name": "App", "path": "app", "namespace_id": alpha.id, "initialize_with_readme": True})
    lib = gl.projects.create({"name": "Lib", "path": "lib", "namespace_id": beta.id, "initialize_with_readme": True})
    state.update(group=group, app=app, lib=lib)
    return {
        "group": {"id": group.id, "full_path": group.full_path},
        "subgroups": [alpha.full_path, beta.full_path],
        "app": {"id": app.id, "path_with_namespace": app.path_with_namespace, "web_url": app.web_url},
        "lib": {"id": lib.id, "path_with_namespace": lib.path_with_namespace},
        "main_sha": app.branches.get("main").commit["id"],
    }


@step("create_release")
def _():
    app = state["app"]
    tags_before = [t.name for t in app.tags.list()]
    made = app.releases.create(
        {"tag_name": TAG, "ref": "main", "name": "First", "description": "The first release", "released_at": "2024-03-01T10:00:00Z"}
    )
    create_exchange = exchanges[-1][:4]
    state["release"] = made
    tag = app.tags.get(TAG)
    shown = app.releases.get(TAG)
    get_path = exchanges[-1][1]
    return {
        "tags_before": tags_before,
        "create_exchange": create_exchange,
        "created": release(made),
        "tag": {"name": tag.name, "commit_id": tag.commit["id"], "release": tag.release},
        "get_path": get_path,
        "shown": release(shown),
        "again": error_of(lambda: app.releases.create({"tag_name": TAG, "ref": "main", "description": "again"})),
    }


@step("add_links")
def _():
    app = state["app"]
    links = state["release"].links  # the created release's own manager: tag_name "release/1.0"
    first = len(exchanges)
    linux = links.create({"name": "linux", "url": "https://cdn.example.com/app-linux", "direct_asset_path": "/bin/app-linux", "link_type": "package"})
    docs = links.create({"name": "docs", "url": "https://docs.example.com/app/1.0"})
    runbook = links.create({"name": "runbook", "url": app.web_url + "/-/wikis/runbook", "link_type": "runbook"})
    sent = [e[:4] for e in exchanges[first:]]
    state["links"] = {"linux": linux.id, "docs": docs.id, "runbook": runbook.id}
    return {
        "sent": sent,
        "linux": link(linux),
        "docs": link(docs),
        "runbook": link(runbook),
        "list": [link(l) for l in links.list(get_all=True)],
        "release_assets": app.releases.get(TAG).assets,
        "get_linux": link(links.get(linux.id)),
    }


@step("refusals")
def _():
    # A lazy release, as python-gitlab's docs show: only its tag is known.
    links = state["app"].releases.get(TAG, lazy=True).links
    docs_id = state["links"]["docs"]
    first = len(exchanges)
    out = {
        "duplicate_name": error_of(lambda: links.create({"name": "linux", "url": "https://cdn.example.com/other"})),
        "duplicate_url": error_of(lambda: links.create({"name": "linux-copy", "url": "https://cdn.example.com/app-linux"})),
        "javascript_url": error_of(lambda: links.create({"name": "evil", "url": "javascript:alert(1)"})),
        "edit_to_javascript": error_of(lambda: links.update(docs_id, {"url": "javascript:alert(1)"})),
    }
    out["sent"] = [e[:3] for e in exchanges[first:]]
    out["names_after"] = [l.name for l in links.list(get_all=True)]
    out["docs_after"] = link(links.get(docs_id))
    return out


@step("update_link")
def _():
    links = state["app"].releases.get(TAG, lazy=True).links
    docs = links.get(state["links"]["docs"])
    docs.name = "manual"
    docs.url = "https://docs.example.com/app/1.0/manual.pdf"
    docs.direct_asset_path = "/docs/manual.pdf"
    docs.link_type = "image"
    docs.save()  # PUT with the changed attributes only
    put = exchanges[-1]
    return {
        "put": put[:4],
        "saved": link(docs),
        "answer": put[4],
        "get": link(links.get(docs.id)),
        "names": [l.name for l in links.list(get_all=True)],
    }


@step("delete_link")
def _():
    links = state["app"].releases.get(TAG, lazy=True).links
    runbook_id = state["links"]["runbook"]
    before = {l.id: link(l) for l in links.list(get_all=True)}
    returned = links.delete(runbook_id)  # python-gitlab returns None; the answer is on the wire
    delete = exchanges[-1]
    left = [link(l) for l in links.list(get_all=True)]
    return {
        "returned": returned,
        "delete": delete[:4],
        "answer": delete[4],
        "before_runbook": before.get(runbook_id),
        "left": left,
        "get_deleted": error_of(lambda: links.get(runbook_id)),
        "assets_count": state["app"].releases.get(TAG).assets["count"],
    }


@step("group_releases")
def _():
    app, lib, group = state["app"], state["lib"], state["group"]
    created = []
    for project, tag, released_at in [
        (lib, "v0.9", "2024-01-15T08:30:00Z"),
        (lib, "v2.0", "2024-05-20T16:00:00Z"),
        (app, "v0.5", "2023-11-01T00:00:00Z"),
        (lib, "v3.0-rc", "2024-07-01T09:00:00Z"),
    ]:
        r = project.releases.create({"tag_name": tag, "ref": "main", "description": f"{project.path} {tag}", "released_at": released_at})
        created.append([r.tag_name, r.released_at, r.upcoming_release])
    path = f"/groups/{group.id}/releases"
    first = len(exchanges)
    asc = gl.http_list(path, query_data={"sort": "asc"}, get_all=True)
    desc = gl.http_list(path, query_data={"sort": "desc"}, get_all=True)
    by_default = gl.http_list(path, get_all=True)
    simple_asc = gl.http_list(path, query_data={"sort": "asc", "simple": True}, get_all=True)
    simple_desc = gl.http_list(path, query_data={"sort": "desc", "simple": True}, get_all=True)
    sent = [e[:3] for e in exchanges[first:]]
    first = len(exchanges)
    paged = gl.http_list(path, query_data={"sort": "asc", "per_page": 2}, get_all=True)
    paged_sent = [e[:3] for e in exchanges[first:]]
    beta = gl.http_list("/groups/rel%2Fbeta/releases", query_data={"simple": True}, get_all=True)
    return {
        "created": created,
        "sent": sent,
        "asc": asc,
        "desc": desc,
        "by_default": by_default,
        "simple_asc": simple_asc,
        "simple_desc": simple_desc,
        "paged": [r["tag_name"] for r in paged],
        "paged_sent": paged_sent,
        "beta": [r["tag_name"] for r in beta],
        "project_release": release(app.releases.get(TAG)),
    }


@step("protected_branches")
def _():
    app = state["app"]
    pb = app.protectedbranches.create({"name": "release/*", "push_access_level": 30, "merge_access_level": 40})
    out = {
        "created": [pb.name, pb.push_access_levels[0]["access_level_description"], pb.merge_access_levels[0]["access_level_description"]],
        "get": app.protectedbranches.get("release/*").name,
        "list": [b.name for b in app.protectedbranches.list()],
    }
    app.protectedbranches.delete("release/*")
    out["delete"] = exchanges[-1][:3]
    out["after"] = [b.name for b in app.protectedbranches.list()]
    return out


json.dump(results, sys.stdout)
sys.stdout.write("\n")
