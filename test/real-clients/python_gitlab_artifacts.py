"""python-gitlab against a running Forgelet: job artifacts (issue 7's "Must show").

Run by artifacts-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12).
Input (env): FORGELET_URL, FORGELET_TOKEN (root), PROJECT_ID (a project whose main and
feature/x branches hold a CI file with the job `build job`), RUNNER_TOKEN (a project runner).
The runner side (take a job, upload the archive, report the state) is spoken with requests,
as gitlab-runner does; everything else goes through python-gitlab.
Output: one JSON object on stdout, one key per step (see steps.py).
"""

import hashlib
import io
import json
import os
import zipfile

import gitlab
import gitlab.exceptions
import requests

from steps import exchange_recorder, make_step

URL = os.environ["FORGELET_URL"]
TOKEN = os.environ["FORGELET_TOKEN"]
PROJECT_ID = int(os.environ["PROJECT_ID"])
RUNNER_TOKEN = os.environ["RUNNER_TOKEN"]
API = f"{URL}/api/v4"

results = {"version": gitlab.__version__}
state = {}
exchanges = []
record = exchange_recorder(exchanges)
step = make_step(results, exchanges)


def client(**auth):
    session = requests.Session()
    session.hooks["response"].append(record)
    return gitlab.Gitlab(URL, session=session, **auth)


def error_of(fn):
    """Runs fn, returning the python-gitlab error it raised (or None)."""
    try:
        fn()
    except gitlab.exceptions.GitlabError as e:
        return {"type": type(e).__name__, "response_code": e.response_code, "message": e.error_message}
    return None


def sha(data):
    return hashlib.sha256(data).hexdigest()


def zip_of(files):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, content in files.items():
            z.writestr(path, content)
    return buf.getvalue()


# The runner protocol, with plain requests (python-gitlab has no client for it).
runner = requests.Session()


def take_job():
    r = runner.post(f"{API}/jobs/request", json={"token": RUNNER_TOKEN, "info": {"name": "py-runner", "version": "17.0.0"}})
    assert r.status_code == 201, (r.status_code, r.text)
    job = r.json()
    return {"id": job["id"], "token": job["token"], "pipeline_id": job["job_info"]["pipeline_id"]}


def upload(job, data):
    r = runner.post(
        f"{API}/jobs/{job['id']}/artifacts",
        headers={"JOB-TOKEN": job["token"]},
        data={"artifact_type": "archive", "artifact_format": "zip", "expire_in": "1 week"},
        files={"file": ("artifacts.zip", data, "application/zip")},
    )
    return r.status_code


def finish(job, outcome):
    r = runner.put(f"{API}/jobs/{job['id']}", json={"token": job["token"], "state": outcome})
    assert r.status_code == 200, (r.status_code, r.text)


gl = client(private_token=TOKEN)
project = gl.projects.get(PROJECT_ID, lazy=True)


def run(ref, files, outcome):
    """A pipeline on the ref (python-gitlab), its job run by the runner with an archive."""
    pipeline = project.pipelines.create({"ref": ref})
    job = take_job()
    assert job["pipeline_id"] == pipeline.id
    data = zip_of(files) if files is not None else None
    status = upload(job, data) if data is not None else None
    finish(job, outcome)
    return {"pipeline": pipeline.id, "job": job["id"], "upload": status, "sha": sha(data) if data else None}


@step("pipelines")
def _():
    ok = run("main", {"dist/app.txt": "app v1\n", "dist/sub/file.txt": "nested\n", "top.txt": "top\n"}, "success")
    failed = run("main", {"dist/app.txt": "app v2 (failed)\n"}, "failed")
    feature = run("feature/x", {"dir/file.txt": "feature file\n"}, "success")
    state.update(ok=ok, failed=failed, feature=feature)
    statuses = [project.pipelines.get(p["pipeline"]).status for p in (ok, failed, feature)]
    return {"ok": ok, "failed": failed, "feature": feature, "statuses": statuses}


@step("tree")
def _():
    path = f"/projects/{PROJECT_ID}/jobs/{state['ok']['job']}/artifacts/tree"
    recursive = list(gl.http_list(path, query_data={"recursive": True, "per_page": 2}, iterator=True))
    dist = gl.http_list(path, query_data={"path": "dist"}, get_all=True)
    missing = error_of(lambda: gl.http_list(path, query_data={"path": "nope"}, get_all=True))
    return {"recursive": recursive, "dist": dist, "missing": missing}


@step("files")
def _():
    job = project.jobs.get(state["ok"]["job"], lazy=True)
    nested = job.artifact("dist/sub/file.txt")
    archive = job.artifacts()
    missing = error_of(lambda: job.artifact("dist/none.txt"))
    return {"nested": nested.decode(), "archive_sha": sha(archive), "missing": missing}


@step("by_ref")
def _():
    main = project.artifacts.download("main", "build job")
    main_file = project.artifacts.raw("main", "dist/app.txt", "build job")
    feature = project.artifacts.download("feature/x", "build job")
    feature_file = project.artifacts.raw("feature/x", "dir/file.txt", "build job")
    unknown = error_of(lambda: project.artifacts.download("main", "no such job"))
    return {
        "main_sha": sha(main),
        "main_file": main_file.decode(),
        "feature_sha": sha(feature),
        "feature_file": feature_file.decode(),
        "unknown": unknown,
    }


@step("job_token")
def _():
    # a running job of the project reads with its CI job token (JOB-TOKEN header, and job_token=)
    project.pipelines.create({"ref": "main"})
    job = take_job()
    as_job = client(job_token=job["token"])
    read = as_job.projects.get(PROJECT_ID, lazy=True).jobs.get(state["ok"]["job"], lazy=True).artifact("top.txt")
    by_query = gl.http_get(
        f"/projects/{PROJECT_ID}/jobs/artifacts/feature/x/raw/dir/file.txt", query_data={"job": "build job", "job_token": job["token"]}, raw=True
    )
    finish(job, "failed")
    after = error_of(lambda: as_job.projects.get(PROJECT_ID, lazy=True).jobs.get(state["ok"]["job"], lazy=True).artifact("top.txt"))
    return {"read": read.decode(), "by_query": by_query.content.decode(), "after_finish": after}


@step("keep")
def _():
    job = project.jobs.get(state["ok"]["job"], lazy=True)
    job.keep_artifacts()
    shown = project.jobs.get(state["ok"]["job"])
    return {"artifacts_expire_at": shown.artifacts_expire_at, "artifacts": [a["file_type"] for a in shown.attributes["artifacts"]]}


@step("delete")
def _():
    job = project.jobs.get(state["ok"]["job"], lazy=True)
    job.delete_artifacts()
    after = error_of(lambda: job.artifacts())
    trace_ok = project.jobs.get(state["ok"]["job"]).status
    return {"after": after, "status": trace_ok}


@step("delete_all")
def _():
    project.artifacts.delete()
    # the latest successful pipeline of feature/x keeps its artifacts
    feature_file = project.artifacts.raw("feature/x", "dir/file.txt", "build job")
    return {"feature_file": feature_file.decode()}


print(json.dumps(results))
