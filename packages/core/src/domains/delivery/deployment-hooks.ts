/**
 * What other domains do when a deployment's status changes, without delivery naming them:
 * webhooks send GitLab's deployment event. Registered by the wiring (forge.ts); moveDeployment
 * runs the hooks inside the transaction of the transition, in registration order.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';
import type { DeploymentRow, EnvironmentRow } from './delivery.table.js';

/** A deployment that moved from `from` to `deployment.status` at `at`, in `environment`. */
export interface DeploymentTransition {
  deployment: DeploymentRow;
  environment: EnvironmentRow;
  from: string;
  at: string;
  by: Ctx;
}

export interface DeploymentHooks {
  deploymentStatusChanged?: (trx: Kysely<Database>, transition: DeploymentTransition) => Promise<void>;
}

const registered = new HookList<DeploymentHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerDeploymentHooks(hooks: DeploymentHooks): void {
  registered.register(hooks);
}

export async function runDeploymentStatusChanged(trx: Kysely<Database>, transition: DeploymentTransition): Promise<void> {
  for (const h of registered.all()) if (h.deploymentStatusChanged) await h.deploymentStatusChanged(trx, transition);
}
