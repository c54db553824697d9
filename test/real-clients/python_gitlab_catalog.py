"""python-gitlab against a running Forgelet: the specification's consumer lookup, done literally.

Run by catalog-python.test.ts with /usr/bin/python3 (Debian's python3-gitlab 3.12, which has no
GraphQL call: the query is a plain POST /api/graphql through the client's own session).
Input (env): FORGELET_URL, DEV_TOKEN (a Developer of the project), PROJECT_ID, FLOW_NAME (the
flow item enabled for the project), OTHER_CONSUMER_ID (a consumer of another project),
DISABLED_CONSUMER_ID (a consumer of this project, disabled).
Output: one JSON object on stdout, one key per step (see steps.py).
"""

import json
import os

import gitlab

from steps import error_of, make_step

URL = os.environ["FORGELET_URL"]
PROJECT_ID = os.environ["PROJECT_ID"]

results = {"version": gitlab.__version__}
step = make_step(results)
gl = gitlab.Gitlab(URL, private_token=os.environ["DEV_TOKEN"])


def graphql(query, variables=None):
    """POST /api/graphql with the client's session (its PRIVATE-TOKEN header)."""
    response = gl.session.post(
        f"{URL}/api/graphql",
        json={"query": query, "variables": variables or {}},
        headers={"PRIVATE-TOKEN": os.environ["DEV_TOKEN"]},
        timeout=30,
    )
    return response.status_code, response.json()


state = {}


@step("lookup")
def _():
    # The spec: query aiCatalogConfiguredItems with projectId as a Project Global ID; each node
    # has id and item { name }; the numeric suffix of the node id is the consumer id.
    status, body = graphql(
        "query($projectId: ProjectID!) { aiCatalogConfiguredItems(projectId: $projectId) { nodes { id enabled item { name } } } }",
        {"projectId": f"gid://gitlab/Project/{PROJECT_ID}"},
    )
    nodes = body["data"]["aiCatalogConfiguredItems"]["nodes"]
    mine = [n for n in nodes if n["item"]["name"] == os.environ["FLOW_NAME"]][0]
    state["consumer_id"] = int(mine["id"].rsplit("/", 1)[1])
    return {"status": status, "nodes": nodes, "consumer_id": state["consumer_id"]}


@step("trigger")
def _():
    flow = gl.http_post(
        "/ai/duo_workflows/workflows",
        post_data={
            "project_id": PROJECT_ID,
            "ai_catalog_item_consumer_id": state["consumer_id"],
            "workflow_definition": "software_development",
            "goal": "Write the release notes for 1.2",
        },
    )
    again = gl.http_get(f"/ai/duo_workflows/workflows/{flow['id']}")
    return {"flow": flow, "again": again}


@step("refusals")
def _():
    def trigger(consumer_id):
        return lambda: gl.http_post(
            "/ai/duo_workflows/workflows",
            post_data={"project_id": PROJECT_ID, "ai_catalog_item_consumer_id": consumer_id},
        )

    return {
        "unknown": error_of(trigger(987654)),
        "other_project": error_of(trigger(int(os.environ["OTHER_CONSUMER_ID"]))),
        "disabled": error_of(trigger(int(os.environ["DISABLED_CONSUMER_ID"]))),
    }


print(json.dumps(results))
