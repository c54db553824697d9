"""python-gitlab against a running Forgelet: CI/CD variables of a project, a group and the instance (issue 27).

Run by variables-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL, FORGELET_TOKEN (root, api scope).
Output: one JSON object on stdout, one key per step (see steps.py).

python-gitlab 3.12 has managers for all three (project.variables, group.variables, gl.variables:
list, get, create, update, delete, and save() on an object). Extra keyword arguments become query
parameters, a dict flattened GitLab's way: filter={"environment_scope": "x"} is sent as
filter[environment_scope]=x on GET, PUT and DELETE alike. Attributes its managers do not declare
(environment_scope on groups, masked_and_hidden, raw, description) pass through in the JSON body.
"""

import json
import os

import gitlab

from steps import error_of, make_step

URL = os.environ["FORGELET_URL"]
TOKEN = os.environ["FORGELET_TOKEN"]
HIDDEN = "hidden-value-never-shown"

results = {"version": gitlab.__version__}
state = {}
gl = gitlab.Gitlab(URL, private_token=TOKEN)
step = make_step(results)


def by_key(variables):
    return {f"{v.key}@{getattr(v, 'environment_scope', '-')}": v.asdict() for v in variables}


def crud(manager, scoped):
    """Create, list, get, save, update, refusals, hidden and (when scoped) environment scopes, delete; every answer kept."""
    out = {}
    created = manager.create({"key": "DEPLOY_TOKEN", "value": "s3cr3t-value-123", "masked": True, "protected": True, "description": "deploys"})
    out["created"] = created.asdict()
    manager.create({"key": "CONFIG", "value": "a: $HOME", "variable_type": "file", "raw": True})
    out["listed"] = by_key(manager.list(get_all=True))
    out["shown"] = manager.get("DEPLOY_TOKEN").asdict()
    # save() sends the required key and value plus what changed.
    created.value = "s3cr3t-value-456"
    created.protected = False
    created.save()
    out["saved"] = created.asdict()
    out["updated"] = manager.update("CONFIG", {"key": "CONFIG", "value": "b: $HOME", "raw": False})
    # GitLab's masking rules: 8 characters or more of the Base64 alphabet plus @ : . ~ (anything but whitespace when raw).
    out["masked_short"] = error_of(lambda: manager.create({"key": "SHORT", "value": "short", "masked": True}))
    out["masked_spaces"] = error_of(lambda: manager.create({"key": "SPACES", "value": "has some spaces", "masked": True}))
    out["masked_update"] = error_of(lambda: manager.update("CONFIG", {"key": "CONFIG", "value": "b: $HOME", "masked": True}))
    out["masked_raw"] = manager.create({"key": "RAW_MASKED", "value": "$not{expanded}!", "masked": True, "raw": True}).asdict()
    out["bad_key"] = error_of(lambda: manager.create({"key": "bad key", "value": "x"}))
    out["taken"] = error_of(lambda: manager.create({"key": "DEPLOY_TOKEN", "value": "again-123"}))
    out["missing"] = error_of(lambda: manager.get("NOPE"))
    if scoped is not None:
        hidden = manager.create({"key": "HIDDEN", "value": HIDDEN, "masked_and_hidden": True, "masked": True})
        out["hidden_created"] = hidden.asdict()
        out["hidden_shown"] = manager.get("HIDDEN").asdict()
        out["hidden_updated"] = manager.update("HIDDEN", {"key": "HIDDEN", "value": HIDDEN + "-2", "description": "rotated"})
        out["hidden_unmask"] = error_of(lambda: manager.update("HIDDEN", {"key": "HIDDEN", "value": HIDDEN, "masked": False}))
        out["hidden_listed"] = [v.asdict() for v in manager.list(get_all=True) if v.key == "HIDDEN"]
    if scoped:
        manager.create({"key": "SCOPED", "value": "prod-value", "environment_scope": "production"})
        manager.create({"key": "SCOPED", "value": "stage-value", "environment_scope": "review/*"})
        out["scoped_ambiguous"] = error_of(lambda: manager.get("SCOPED"))
        out["scoped_get"] = manager.get("SCOPED", filter={"environment_scope": "review/*"}).asdict()
        out["scoped_update"] = manager.update("SCOPED", {"key": "SCOPED", "value": "stage-2"}, filter={"environment_scope": "review/*"})
        out["scoped_other"] = manager.get("SCOPED", filter={"environment_scope": "production"}).asdict()
        manager.delete("SCOPED", filter={"environment_scope": "production"})
        out["scoped_after_delete"] = [[v.environment_scope, v.value] for v in manager.list(get_all=True) if v.key == "SCOPED"]
        out["scoped_unfiltered"] = manager.get("SCOPED").asdict()
        out["bad_scope"] = error_of(lambda: manager.create({"key": "BAD_SCOPE", "value": "x", "environment_scope": "a|b"}))
    manager.delete("CONFIG")
    created.delete()
    out["after_delete"] = sorted(v.key for v in manager.list(get_all=True))
    out["get_deleted"] = error_of(lambda: manager.get("CONFIG"))
    return out


@step("setup")
def _():
    group = gl.groups.create({"name": "Vars", "path": "vars"})
    project = gl.projects.create({"name": "App", "path": "app", "namespace_id": group.id})
    state.update(group=group, project=project)
    return {"group": group.id, "project": project.id}


@step("project_variables")
def _():
    return crud(state["project"].variables, True)


@step("group_variables")
def _():
    return crud(state["group"].variables, True)


@step("instance_variables")
def _():
    out = crud(gl.variables, None)
    out["too_long"] = error_of(lambda: gl.variables.create({"key": "HUGE", "value": "x" * 10001}))
    return out


@step("pagination")
def _():
    project = state["project"]
    for i in range(23):
        project.variables.create({"key": f"BULK_{i:02d}", "value": str(i)})
    first = project.variables.list(page=1)
    every = project.variables.list(get_all=True)
    return {"first_page": len(first), "all": len(every), "keys": [v.key for v in every if v.key.startswith("BULK_")]}


print(json.dumps(results))
