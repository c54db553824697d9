/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against the served
 * Forgelet: the specification's lookup of `ai_catalog_item_consumer_id` done literally
 * (aiCatalogConfiguredItems with a Project Global ID, the node id's numeric suffix) and a flow
 * triggered with it; the trigger's refusals as python-gitlab reports them. The flow lives in
 * python_gitlab_catalog.py.
 *
 * Without python-gitlab the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { probePythonGitlab, pythonStep, runPythonSteps, type PythonStep } from './support.js';
import { toolSkip } from '../support/tools.js';
import { createCatalogWorld, FLOW_NAME, type CatalogWorld } from './catalog-support.js';

const SCRIPT = fileURLToPath(new URL('./python_gitlab_catalog.py', import.meta.url));
const skip = toolSkip('python-gitlab', probePythonGitlab());

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12 catalog flows`, { skip }, () => {
    let f: ServedForgelet;
    let world: CatalogWorld;
    let results: Record<string, PythonStep>;
    const stepOf = (name: string): PythonStep => {
      const s = pythonStep(results, name);
      assert.deepEqual(s.warnings, [], `python step ${name} warned`);
      return s;
    };

    before(async () => {
      f = await startServed(dialect);
      world = await createCatalogWorld(f, 'py');
      const run = await runPythonSteps(SCRIPT, {
        FORGELET_URL: f.url,
        DEV_TOKEN: world.developer.token,
        PROJECT_ID: String(world.project.id),
        FLOW_NAME,
        OTHER_CONSUMER_ID: String(world.otherConsumerId),
        DISABLED_CONSUMER_ID: String(world.disabledConsumerId),
      });
      results = run.results;
      console.log(`[${dialect}] python-gitlab catalog: script ${run.ms} ms`);
    });
    after(() => f?.stop());

    it('finds the consumer id in aiCatalogConfiguredItems: the numeric suffix of the node id', () => {
      const s = stepOf('lookup');
      assert.equal(s.status, 200);
      assert.equal(s.consumer_id, world.consumerId);
      // Newest first; the spec's Global ID form; the disabled consumer is listed (and says so).
      assert.deepEqual(s.nodes, [
        { id: `gid://gitlab/AiCatalogItemConsumer/${world.disabledConsumerId}`, enabled: false, item: { name: 'Quiet flow' } },
        { id: `gid://gitlab/AiCatalogItemConsumer/${world.consumerId}`, enabled: true, item: { name: FLOW_NAME } },
      ]);
    });

    it('triggers the flow with it: the consumed version is recorded and wins over workflow_definition', () => {
      const { flow, again } = stepOf('trigger');
      assert.equal(flow.project_id, world.project.id);
      assert.equal(flow.ai_catalog_item_version_id, world.versionId);
      assert.equal(flow.workflow_definition, 'ai_catalog_agent');
      assert.equal(flow.title, 'Write the release notes for 1.2');
      assert.equal(flow.status, 'created');
      assert.deepEqual(again, (({ workload: _w, ...rest }) => rest)(flow));
    });

    it('refuses unknown, other projects\' and disabled consumers with a 400 naming the field', () => {
      const s = stepOf('refusals');
      const refusal = (reason: string) => ({ type: 'GitlabHttpError', response_code: 400, error_message: `400 Bad request - ai_catalog_item_consumer_id: ${reason}` });
      assert.deepEqual(s.unknown, refusal('Enabled agent or flow was not found for this project'));
      assert.deepEqual(s.other_project, refusal('Enabled agent or flow was not found for this project'));
      assert.deepEqual(s.disabled, refusal('Agent or flow is not enabled for this project'));
    });
  });
}
