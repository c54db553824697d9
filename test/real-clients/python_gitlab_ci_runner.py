"""python-gitlab against a running Forgelet: pipelines run by `forgelet runner` (issue 6's "Must show").

Run by ci-runner-e2e.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL, FORGELET_TOKEN (root), FORGELET_PROJECT_ID (main holds a two-stage
.gitlab-ci.yml, broken a failing one).
Output: one JSON object on stdout, one key per step (see steps.py).

The script creates a pipeline on each branch (project.pipelines.create), then pauses with
`@@forgelet-pause run_runner` while the test process runs `forgelet runner --once`, and reads
the outcome back: pipeline.jobs.list, project.jobs.get, job.trace(), job.artifacts().
"""

import io
import json
import os
import sys
import zipfile

import gitlab
import gitlab.exceptions
import requests

from steps import exchange_recorder, make_step

URL = os.environ["FORGELET_URL"]
PROJECT_ID = int(os.environ["FORGELET_PROJECT_ID"])

results = {"version": gitlab.__version__}
state = {}
exchanges = []
step = make_step(results, exchanges)

session = requests.Session()
session.hooks["response"].append(exchange_recorder(exchanges))
gl = gitlab.Gitlab(URL, private_token=os.environ["FORGELET_TOKEN"], session=session)


def pause(name):
    sys.stderr.write(f"@@forgelet-pause {name}\n")
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise RuntimeError(f"the test process did not answer pause {name}")
    return json.loads(line)


def job_of(j):
    return {
        "id": j.id,
        "name": j.name,
        "stage": j.stage,
        "status": j.status,
        "failure_reason": getattr(j, "failure_reason", None),
        "pipeline_id": j.pipeline["id"],
        "artifacts_file": getattr(j, "artifacts_file", None),
    }


def zip_entries(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {name: z.read(name).decode() for name in z.namelist()}


@step("create")
def _():
    project = gl.projects.get(PROJECT_ID, lazy=True)
    main = project.pipelines.create({"ref": "main"})
    broken = project.pipelines.create({"ref": "broken"})
    state.update(main=main.id, broken=broken.id)
    return {
        "main": {"id": main.id, "status": main.status, "ref": main.ref, "source": main.source},
        "broken": {"id": broken.id, "status": broken.status, "ref": broken.ref, "source": broken.source},
    }


@step("run")
def _():
    return {"outcomes": pause("run_runner")}


@step("passing")
def _():
    project = gl.projects.get(PROJECT_ID, lazy=True)
    pipeline = project.pipelines.get(state["main"])
    jobs = sorted(pipeline.jobs.list(get_all=True), key=lambda j: j.id)
    out = {"status": pipeline.status, "jobs": [job_of(j) for j in jobs], "traces": {}, "archives": {}}
    for listed in jobs:
        job = project.jobs.get(listed.id)
        out["traces"][job.name] = job.trace().decode()
        if getattr(job, "artifacts_file", None):
            out["archives"][job.name] = zip_entries(job.artifacts())
    return out


@step("failing")
def _():
    project = gl.projects.get(PROJECT_ID, lazy=True)
    pipeline = project.pipelines.get(state["broken"])
    jobs = sorted(pipeline.jobs.list(get_all=True), key=lambda j: j.id)
    build = project.jobs.get(jobs[0].id)
    try:
        build.artifacts()
        no_archive = None
    except gitlab.exceptions.GitlabGetError as e:
        no_archive = {"type": type(e).__name__, "response_code": e.response_code}
    return {
        "status": pipeline.status,
        "jobs": [job_of(j) for j in jobs],
        "trace": build.trace().decode(),
        "no_archive": no_archive,
        "failed_in_project": [j.id for j in project.jobs.list(scope=["failed"], get_all=True)],
        "failed_query": exchanges[-1][1],
    }


print(json.dumps(results))
