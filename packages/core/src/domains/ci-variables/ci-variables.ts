/**
 * CI/CD variables of projects (`/projects/:id/variables`, Maintainer), groups
 * (`/groups/:id/variables`, Owner; `environment_scope` on Premium and up) and the instance
 * (`/admin/ci/variables`, administrators). Values are sealed at rest; a hidden variable's value
 * is never answered again.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { findGroup, findProject } from '../../access/lookup.js';
import { authorize, requireAdmin } from '../../access/policy.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { entityOf, type CiInstanceVariableEntity, type CiVariableEntity } from './ci-variable.entity.js';
import { deleteVariableById, insertVariable, keyTaken, selectVariablesByKey, selectVariablesOf, updateVariableById } from './ci-variable.queries.js';
import type { VariableType } from './ci-variable.schema.js';
import type { CiVariableRow, VariableScope } from './ci-variable.table.js';
import { variableErrors, type VariableState } from './variable-rules.js';

/** Whose variables a request manages, once the caller was allowed to. */
interface VariableOwner {
  scope: VariableScope;
  owner: string;
  group_id: number | null;
  project_id: number | null;
  /** `404 <this> Not Found` for an unknown key. */
  notFound: string;
  /** Whether `environment_scope` is taken (groups below Premium ignore it, as GitLab does). */
  scopedEnvironments: boolean;
}

export function projectOwnerKey(projectId: number): string {
  return `project:${projectId}`;
}
export function groupOwnerKey(groupId: number): string {
  return `group:${groupId}`;
}
export const INSTANCE_OWNER = 'instance';

async function projectOwner(ctx: Ctx, id: string): Promise<VariableOwner> {
  const project = await findProject(ctx, id);
  await authorize(ctx, 'admin_cicd_variables', { kind: 'project', project });
  return { scope: 'project', owner: projectOwnerKey(project.id), group_id: null, project_id: project.id, notFound: 'Variable', scopedEnvironments: true };
}

async function groupOwner(ctx: Ctx, id: string): Promise<VariableOwner> {
  const group = await findGroup(ctx, id);
  await authorize(ctx, 'admin_cicd_variables', { kind: 'group', group });
  return {
    scope: 'group',
    owner: groupOwnerKey(group.id),
    group_id: group.id,
    project_id: null,
    notFound: 'GroupVariable',
    scopedEnvironments: tierAtLeast(ctx.config.tier, 'premium'),
  };
}

function instanceOwner(ctx: Ctx): VariableOwner {
  requireAdmin(ctx);
  return { scope: 'instance', owner: INSTANCE_OWNER, group_id: null, project_id: null, notFound: 'InstanceVariable', scopedEnvironments: false };
}

function present(ctx: Ctx, owner: VariableOwner, row: CiVariableRow) {
  return entityOf(owner.scope, row, (s) => ctx.secrets.decrypt(s));
}

/**
 * The variable with the key (`Ci::VariablesFinder`): narrowed by `filter[environment_scope]`
 * when given; 409 when several environment scopes hold the key and no filter says which.
 */
async function findVariable(ctx: Ctx, owner: VariableOwner, key: string, filter: { environment_scope?: string } | undefined): Promise<CiVariableRow> {
  const scope = filter?.environment_scope ? filter.environment_scope : undefined;
  const rows = await selectVariablesByKey(ctx.db, owner.owner, key, scope, 2);
  if (rows.length > 1) throw new ConflictError("There are multiple variables with provided parameters. Please use 'filter[environment_scope]'");
  if (!rows[0]) throw new NotFoundError(owner.notFound);
  return rows[0];
}

interface WriteInput {
  value?: string;
  protected?: boolean;
  masked?: boolean;
  masked_and_hidden?: boolean;
  raw?: boolean;
  variable_type?: VariableType;
  description?: string;
  environment_scope?: string;
}

function refuse(errors: Record<string, string[]>): never {
  throw new BadRequestError(errors, { raw: true });
}

async function createVariable(ctx: Ctx, owner: VariableOwner, input: WriteInput & { key: string; value: string }) {
  const hidden = owner.scope !== 'instance' && input.masked_and_hidden === true;
  const state: VariableState = {
    key: input.key.trim(),
    value: input.value,
    masked: hidden || (input.masked ?? false),
    raw: input.raw ?? false,
    environment_scope: owner.scopedEnvironments && input.environment_scope !== undefined ? input.environment_scope.trim() : '*',
    description: input.description ?? null,
  };
  const stamp = nowIso(ctx);
  try {
    const row = await ctx.db.transaction().execute(async (trx) => {
      const errors = variableErrors(owner.scope, state, await keyTaken(trx, owner.owner, state.key, state.environment_scope));
      if (Object.keys(errors).length) refuse(errors);
      return insertVariable(trx, {
        owner: owner.owner,
        group_id: owner.group_id,
        project_id: owner.project_id,
        key: state.key,
        value_encrypted: ctx.secrets.encrypt(state.value),
        variable_type: input.variable_type ?? 'env_var',
        protected: input.protected ? 1 : 0,
        masked: state.masked ? 1 : 0,
        hidden: hidden ? 1 : 0,
        raw: state.raw ? 1 : 0,
        description: state.description,
        environment_scope: state.environment_scope,
        created_at: stamp,
        updated_at: stamp,
      });
    });
    return present(ctx, owner, row);
  } catch (err) {
    // A concurrent create of the same key and scope lost the race on the unique index.
    if (isUniqueViolation(err)) refuse({ key: [`(${state.key}) has already been taken`] });
    throw err;
  }
}

async function updateVariable(ctx: Ctx, owner: VariableOwner, row: CiVariableRow, input: WriteInput) {
  // `Ci::HidableVariable`: a hidden variable stays masked.
  if (row.hidden === 1 && input.masked !== undefined && input.masked !== (row.masked === 1)) {
    refuse({ base: ['Updating masked attribute is not allowed on updates for hidden variables.'] });
  }
  const value = input.value ?? ctx.secrets.decrypt(row.value_encrypted);
  const state: VariableState = {
    key: row.key,
    value,
    masked: input.masked ?? row.masked === 1,
    raw: input.raw ?? row.raw === 1,
    environment_scope: owner.scopedEnvironments && input.environment_scope !== undefined ? input.environment_scope.trim() : row.environment_scope,
    description: input.description !== undefined ? input.description : row.description,
  };
  try {
    const updated = await ctx.db.transaction().execute(async (trx) => {
      const moved = state.environment_scope !== row.environment_scope;
      const errors = variableErrors(owner.scope, state, moved && (await keyTaken(trx, owner.owner, state.key, state.environment_scope, row.id)));
      if (Object.keys(errors).length) refuse(errors);
      return updateVariableById(trx, row.id, {
        ...(input.value !== undefined && { value_encrypted: ctx.secrets.encrypt(input.value) }),
        ...(input.variable_type !== undefined && { variable_type: input.variable_type }),
        ...(input.protected !== undefined && { protected: input.protected ? 1 : 0 }),
        masked: state.masked ? 1 : 0,
        raw: state.raw ? 1 : 0,
        description: state.description,
        environment_scope: state.environment_scope,
        updated_at: nowIso(ctx),
      });
    });
    return present(ctx, owner, updated);
  } catch (err) {
    if (isUniqueViolation(err)) refuse({ key: [`(${state.key}) has already been taken`] });
    throw err;
  }
}

async function listVariables(ctx: Ctx, owner: VariableOwner, page: PageRequest) {
  return paginate(ctx.db, selectVariablesOf(ctx.db, owner.owner), page, (rows) => rows.map((r) => present(ctx, owner, r)));
}

type ProjectRef = { id: string; key: string; filter?: { environment_scope?: string } };

/** GET /projects/:id/variables */
export async function listProjectVariables(ctx: Ctx, input: PageRequest & { id: string }): Promise<Page<CiVariableEntity>> {
  return (await listVariables(ctx, await projectOwner(ctx, input.id), input)) as Page<CiVariableEntity>;
}
/** GET /projects/:id/variables/:key */
export async function getProjectVariable(ctx: Ctx, input: ProjectRef): Promise<CiVariableEntity> {
  const owner = await projectOwner(ctx, input.id);
  return present(ctx, owner, await findVariable(ctx, owner, input.key, input.filter)) as CiVariableEntity;
}
/** POST /projects/:id/variables */
export async function createProjectVariable(ctx: Ctx, input: WriteInput & { id: string; key: string; value: string }): Promise<CiVariableEntity> {
  return (await createVariable(ctx, await projectOwner(ctx, input.id), input)) as CiVariableEntity;
}
/** PUT /projects/:id/variables/:key (`filter[environment_scope]` picks among scopes; the key itself cannot change). */
export async function updateProjectVariable(ctx: Ctx, input: WriteInput & ProjectRef): Promise<CiVariableEntity> {
  const owner = await projectOwner(ctx, input.id);
  return (await updateVariable(ctx, owner, await findVariable(ctx, owner, input.key, input.filter), input)) as CiVariableEntity;
}
/** DELETE /projects/:id/variables/:key (204) */
export async function deleteProjectVariable(ctx: Ctx, input: ProjectRef): Promise<void> {
  const owner = await projectOwner(ctx, input.id);
  await deleteVariableById(ctx.db, (await findVariable(ctx, owner, input.key, input.filter)).id);
}

/** GET /groups/:id/variables */
export async function listGroupVariables(ctx: Ctx, input: PageRequest & { id: string }): Promise<Page<CiVariableEntity>> {
  return (await listVariables(ctx, await groupOwner(ctx, input.id), input)) as Page<CiVariableEntity>;
}
/** GET /groups/:id/variables/:key */
export async function getGroupVariable(ctx: Ctx, input: ProjectRef): Promise<CiVariableEntity> {
  const owner = await groupOwner(ctx, input.id);
  return present(ctx, owner, await findVariable(ctx, owner, input.key, input.filter)) as CiVariableEntity;
}
/** POST /groups/:id/variables (`environment_scope` is ignored below Premium). */
export async function createGroupVariable(ctx: Ctx, input: WriteInput & { id: string; key: string; value: string }): Promise<CiVariableEntity> {
  return (await createVariable(ctx, await groupOwner(ctx, input.id), input)) as CiVariableEntity;
}
/**
 * PUT /groups/:id/variables/:key. Without `filter` GitLab updates the first variable with the
 * key whatever its scope (the endpoint predates the filter); with it, as the project route.
 */
export async function updateGroupVariable(ctx: Ctx, input: WriteInput & ProjectRef): Promise<CiVariableEntity> {
  const owner = await groupOwner(ctx, input.id);
  let row: CiVariableRow | undefined;
  if (input.filter !== undefined) row = await findVariable(ctx, owner, input.key, input.filter);
  else row = (await selectVariablesByKey(ctx.db, owner.owner, input.key, undefined, 1))[0];
  if (!row) throw new NotFoundError(owner.notFound);
  return (await updateVariable(ctx, owner, row, input)) as CiVariableEntity;
}
/** DELETE /groups/:id/variables/:key (204) */
export async function deleteGroupVariable(ctx: Ctx, input: ProjectRef): Promise<void> {
  const owner = await groupOwner(ctx, input.id);
  await deleteVariableById(ctx.db, (await findVariable(ctx, owner, input.key, input.filter)).id);
}

/** GET /admin/ci/variables */
export async function listInstanceVariables(ctx: Ctx, input: PageRequest): Promise<Page<CiInstanceVariableEntity>> {
  return (await listVariables(ctx, instanceOwner(ctx), input)) as Page<CiInstanceVariableEntity>;
}
/** GET /admin/ci/variables/:key */
export async function getInstanceVariable(ctx: Ctx, input: { key: string }): Promise<CiInstanceVariableEntity> {
  const owner = instanceOwner(ctx);
  return present(ctx, owner, await findVariable(ctx, owner, input.key, undefined)) as CiInstanceVariableEntity;
}
/** POST /admin/ci/variables */
export async function createInstanceVariable(ctx: Ctx, input: WriteInput & { key: string; value: string }): Promise<CiInstanceVariableEntity> {
  return (await createVariable(ctx, instanceOwner(ctx), input)) as CiInstanceVariableEntity;
}
/** PUT /admin/ci/variables/:key */
export async function updateInstanceVariable(ctx: Ctx, input: WriteInput & { key: string }): Promise<CiInstanceVariableEntity> {
  const owner = instanceOwner(ctx);
  return (await updateVariable(ctx, owner, await findVariable(ctx, owner, input.key, undefined), input)) as CiInstanceVariableEntity;
}
/** DELETE /admin/ci/variables/:key (204) */
export async function deleteInstanceVariable(ctx: Ctx, input: { key: string }): Promise<void> {
  const owner = instanceOwner(ctx);
  await deleteVariableById(ctx.db, (await findVariable(ctx, owner, input.key, undefined)).id);
}
