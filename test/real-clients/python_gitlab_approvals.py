"""python-gitlab against a running Forgelet: merge request approvals.

Run by approvals-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL; tokens ROOT_TOKEN, AUTHOR_TOKEN, ALICE_TOKEN, BOB_TOKEN, BOT_TOKEN
(a project access token's bot); PROJECT_ID, MR_IID, GROUP_ID.
The push happens in the test process: the script writes `@@forgelet-pause push` on stderr
and reads back the new head sha (one JSON line on stdin).
Output: one JSON object on stdout, one key per step (see steps.py).
"""

import json
import os
import sys
import time

import gitlab
import gitlab.exceptions
import requests

from steps import exchange_recorder, make_step

URL = os.environ["FORGELET_URL"]
PROJECT_ID = int(os.environ["PROJECT_ID"])
MR_IID = int(os.environ["MR_IID"])
GROUP_ID = int(os.environ["GROUP_ID"])

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


def pause(name):
    sys.stderr.write(f"@@forgelet-pause {name}\n")
    sys.stderr.flush()
    return json.loads(sys.stdin.readline())


root = client(os.environ["ROOT_TOKEN"])
author = client(os.environ["AUTHOR_TOKEN"])
alice = client(os.environ["ALICE_TOKEN"])
bob = client(os.environ["BOB_TOKEN"])
bot = client(os.environ["BOT_TOKEN"])


def mr_of(gl):
    return gl.projects.get(PROJECT_ID, lazy=True).mergerequests.get(MR_IID)


def state():
    a = mr_of(root).approvals.get()
    return {
        "approvals_required": a.approvals_required,
        "approvals_left": a.approvals_left,
        "approved": a.approved,
        "approved_by": [x["user"]["username"] for x in a.approved_by],
    }


@step("rule")
def _():
    project = root.projects.get(PROJECT_ID, lazy=True)
    rule = project.approvalrules.create({"name": "Reviewers", "approvals_required": 2, "group_ids": [GROUP_ID], "rule_type": "regular"})
    listed = project.approvalrules.list()
    updated = project.approvalrules.update(rule.id, {"group_ids": [GROUP_ID]})
    settings = project.approvals.get()
    return {
        "rule": {
            "id": rule.id,
            "name": rule.name,
            "rule_type": rule.rule_type,
            "approvals_required": rule.approvals_required,
            "groups": [g["id"] for g in rule.groups],
            "eligible_approvers": [u["username"] for u in rule.eligible_approvers],
        },
        "listed": [r.id for r in listed],
        "updated_groups": [g["id"] for g in updated["groups"]],
        "settings": settings.attributes,
        "state": state(),
    }


@step("approve")
def _():
    mr = mr_of(alice)
    head = mr.sha
    stale = error_of(lambda: mr.approve(sha="c" * 40))
    first = mr_of(alice)
    first.approve(sha=head)
    # approve() replaced the object's attributes with the response: it keeps the iid.
    after_first = {"iid": first.iid, "approvals_left": first.approvals_left}
    second = mr_of(bob)
    second.approve(sha=head)
    approval_state = mr_of(root).approval_state.get()
    return {
        "head": head,
        "stale": stale,
        "after_first": after_first,
        "after_second": {"iid": second.iid, "approvals_left": second.approvals_left, "approved": second.approved},
        "state": state(),
        "rules": [[r["name"], r["approved"], [u["username"] for u in r["approved_by"]]] for r in approval_state.rules],
        "detailed_merge_status": mr_of(root).detailed_merge_status,
    }


@step("author")
def _():
    refused = error_of(lambda: mr_of(author).approve())
    project = root.projects.get(PROJECT_ID, lazy=True)
    cfg = project.approvals.get()
    cfg.merge_requests_author_approval = True
    cfg.save()
    after_save = project.approvals.get().merge_requests_author_approval
    mr = mr_of(author)
    mr.approve()
    allowed = state()
    mr.unapprove()
    return {"refused": refused, "after_save": after_save, "allowed": allowed, "after_unapprove": state()}


@step("push")
def _():
    before = state()
    new_sha = pause("push")
    mr = mr_of(root)  # the first read after the push: it starts the mergeability check
    return {"before": before, "new_sha": new_sha, "sha": mr.sha, "status": mr.detailed_merge_status, "after": state()}


@step("guidance")
def _():
    # The specification's automation guidance, followed literally after the push: wait until
    # detailed_merge_status is neither checking nor approvals_syncing and the merge request
    # diff (its newest version) has a patch_id_sha, then approve.
    seen = []
    latest = None
    for _ in range(300):
        mr = mr_of(alice)
        versions = mr.diffs.list(get_all=False)
        latest = versions[0] if versions else None
        status = mr.detailed_merge_status
        if not seen or seen[-1] != status:
            seen.append(status)
        if status not in ("checking", "approvals_syncing") and latest is not None and latest.patch_id_sha:
            break
        time.sleep(0.1)
    mr.approve(sha=mr.sha)
    approved = state()
    mr_of(alice).unapprove()
    return {
        "seen": seen,
        "head": latest.head_commit_sha,
        "patch_id_sha": latest.patch_id_sha,
        "versions": len(versions),
        "approved_by": approved["approved_by"],
    }


@step("reset")
def _():
    head = mr_of(root).sha
    mr_of(alice).approve(sha=head)
    before = state()
    human = error_of(lambda: mr_of(alice).reset_approvals())
    after_human = state()
    by_bot = mr_of(bot).reset_approvals()
    return {"before": before, "human": human, "after_human": after_human, "by_bot": by_bot, "after_bot": state()}


print(json.dumps(results))
