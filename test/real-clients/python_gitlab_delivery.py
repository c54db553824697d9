"""python-gitlab against a running Forgelet: environments, deployments with approvals, group
protected environments (no manager in 3.12: gl.http_*), DORA metrics (gl.http_get).

Run by delivery-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL; tokens MAINT_TOKEN, DEPLOYER_TOKEN, STRANGER_TOKEN, APPR1_TOKEN,
APPR2_TOKEN; CORP_ID, DEPLOYERS_ID, APPROVERS_ID, APP_ID, SHA; METRICS_ID, API_ID, START, END.
Output: one JSON object on stdout, one key per step (see steps.py).
"""

import json
import os

import gitlab
import gitlab.exceptions
import requests

from steps import exchange_recorder, make_step

URL = os.environ["FORGELET_URL"]
CORP_ID = int(os.environ["CORP_ID"])
DEPLOYERS_ID = int(os.environ["DEPLOYERS_ID"])
APPROVERS_ID = int(os.environ["APPROVERS_ID"])
APP_ID = int(os.environ["APP_ID"])
SHA = os.environ["SHA"]
METRICS_ID = int(os.environ["METRICS_ID"])
API_ID = int(os.environ["API_ID"])
START = os.environ["START"]
END = os.environ["END"]
METRICS = ["deployment_frequency", "lead_time_for_changes", "time_to_restore_service", "change_failure_rate"]

results = {"version": gitlab.__version__}
exchanges = []
record = exchange_recorder(exchanges)
step = make_step(results, exchanges)


def client(token):
    session = requests.Session()
    session.hooks["response"].append(record)
    return gitlab.Gitlab(URL, private_token=token, session=session)


def error_of(fn):
    try:
        fn()
    except gitlab.exceptions.GitlabError as e:
        return {"type": type(e).__name__, "response_code": e.response_code, "message": e.error_message}
    return None


maint = client(os.environ["MAINT_TOKEN"])
deployer = client(os.environ["DEPLOYER_TOKEN"])
stranger = client(os.environ["STRANGER_TOKEN"])
appr1 = client(os.environ["APPR1_TOKEN"])
appr2 = client(os.environ["APPR2_TOKEN"])


@step("environments")
def _():
    project = maint.projects.get(APP_ID, lazy=True)
    env = project.environments.create({"name": "review/py", "external_url": "https://py.example.com"})
    created = {"name": env.name, "tier": env.tier, "state": env.state, "slug": env.slug}
    listed = [e.name for e in project.environments.list(search="review")]
    shown = project.environments.get(env.id)
    last_deployment = shown.last_deployment
    shown.external_url = "https://py2.example.com"
    shown.save()
    stopped = project.environments.get(env.id, lazy=True).stop()
    refused = error_of(lambda: project.environments.delete(project.environments.create({"name": "live-py"}).id))
    project.environments.delete(env.id)
    gone = error_of(lambda: project.environments.get(env.id))
    return {
        "created": created,
        "listed": listed,
        "saved_url": shown.external_url,
        "last_deployment": last_deployment,
        "stopped": stopped["state"],
        "refused": refused,
        "gone": gone,
    }


@step("protect")
def _():
    path = f"/groups/{CORP_ID}/protected_environments"
    created = maint.http_post(
        path,
        post_data={
            "name": "production",
            "deploy_access_levels": [{"group_id": DEPLOYERS_ID}],
            "approval_rules": [{"group_id": APPROVERS_ID, "required_approvals": 2}],
        },
    )
    conflict = error_of(lambda: maint.http_post(path, post_data={"name": "production", "deploy_access_levels": [{"access_level": 40}]}))
    bad_tier = error_of(lambda: maint.http_post(path, post_data={"name": "prod", "deploy_access_levels": [{"access_level": 40}]}))
    staging = maint.http_post(path, post_data={"name": "staging", "deploy_access_levels": [{"access_level": 40}]})
    edited = maint.http_put(
        f"{path}/staging",
        post_data={"deploy_access_levels": [{"id": staging["deploy_access_levels"][0]["id"], "_destroy": True}, {"access_level": 30}]},
    )
    listed = [e["name"] for e in maint.http_list(path)]
    shown = maint.http_get(f"{path}/production")
    deleted = maint.http_delete(f"{path}/staging")
    return {
        "created": created,
        "conflict": conflict,
        "bad_tier": bad_tier,
        "edited": [[l["access_level"], l["access_level_description"]] for l in edited["deploy_access_levels"]],
        "listed": listed,
        "shown": shown,
        "deleted": [deleted.status_code, deleted.json()["name"]],
    }


def deployment_of(gl, dep_id):
    return gl.projects.get(APP_ID, lazy=True).deployments.get(dep_id)


@step("deploy")
def _():
    data = {"environment": "production", "sha": SHA, "ref": "main", "tag": False, "status": "running"}
    refused = error_of(lambda: stranger.projects.get(APP_ID, lazy=True).deployments.create(data))
    dep = deployer.projects.get(APP_ID, lazy=True).deployments.create(data)
    blocked = {"status": dep.status, "pending": dep.pending_approval_count}
    own = error_of(lambda: deployment_of(deployer, dep.id).approval(status="approved"))
    first = deployment_of(appr1, dep.id).approval(status="approved", comment="looks good")
    after_first = deployment_of(deployer, dep.id)
    deployment_of(appr2, dep.id).approval(status="approved")
    after_second = deployment_of(deployer, dep.id)
    after_second.status = "success"
    after_second.save()
    return {
        "refused": refused,
        "blocked": blocked,
        "own": own,
        "first": {"user": first["user"]["username"], "status": first["status"], "comment": first["comment"]},
        "after_first": {"status": after_first.status, "pending": after_first.pending_approval_count, "approvals": [a["user"]["username"] for a in after_first.approvals]},
        "after_second": {"status": deployment_of(maint, dep.id).status, "saved": after_second.status},
        "merge_requests": [m.iid for m in deployment_of(maint, dep.id).mergerequests.list()],
    }


@step("dora")
def _():
    out = {}
    for kind, ident in (("projects", API_ID), ("groups", METRICS_ID)):
        for metric in METRICS:
            for interval in ("daily", "monthly", "all"):
                out[f"{kind}|{metric}|{interval}"] = maint.http_get(
                    f"/{kind}/{ident}/dora/metrics",
                    query_data={"metric": metric, "interval": interval, "start_date": START, "end_date": END, "environment_tiers": ["production"]},
                )
    out["staging"] = maint.http_get(
        f"/projects/{API_ID}/dora/metrics",
        query_data={"metric": "deployment_frequency", "interval": "all", "start_date": START, "end_date": END, "environment_tiers": ["production", "staging"]},
    )
    out["bad"] = error_of(lambda: maint.http_get(f"/projects/{API_ID}/dora/metrics", query_data={"metric": "speed"}))
    out["bad_tiers"] = error_of(lambda: maint.http_get(f"/projects/{API_ID}/dora/metrics", query_data={"metric": "deployment_frequency", "environment_tiers": ["live"]}))
    return {"series": out}


print(json.dumps(results))
