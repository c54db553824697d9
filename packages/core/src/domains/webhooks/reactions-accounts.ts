/**
 * The webhooks' reactions to members, groups, projects and users written (registered by the
 * wiring through accounts' hook list), in the change's transaction: system hooks take every
 * one; group hooks (Premium) take member events of their group and the groups below
 * (`member_events`), subgroups created or removed below them (`subgroup_events`) and projects
 * created or deleted below them (`project_events`), as GitLab's EE models send them.
 */
import type { AccountHooks } from '../accounts/index.js';
import { anyWebhook, emitWebhookEvent } from './emit.js';
import { groupHookData, groupMemberHookData, projectHookData, projectMemberHookData, subgroupHookData, userHookData } from './payloads-system.js';

export const webhookAccountHooks: AccountHooks = {
  memberChanged: async (trx, { action, by, member, source }) => {
    if (!(await anyWebhook(trx))) return;
    const user = await trx.selectFrom('users').selectAll().where('id', '=', member.user_id).executeTakeFirst();
    if (!user) return;
    if (source.kind === 'group') {
      const group = source.group;
      await emitWebhookEvent(trx, by, { group, system: 'always', flag: 'member_events', trigger: 'member_hooks', build: () => groupMemberHookData(group, user, member, action) });
    } else {
      const project = source.project;
      await emitWebhookEvent(trx, by, { system: 'always', flag: null, trigger: 'system_hooks', build: () => projectMemberHookData(project, user, member, action) });
    }
  },

  groupChanged: async (trx, { action, by, group, before }) => {
    if (!(await anyWebhook(trx))) return;
    await emitWebhookEvent(trx, by, { system: 'always', flag: null, trigger: 'system_hooks', build: () => groupHookData(group, action, before) });
    // The parent's hooks (and its ancestors'), never the subgroup's own.
    if (action === 'rename' || group.parent_id === null) return;
    const parent = await trx.selectFrom('namespaces').selectAll().where('id', '=', group.parent_id).executeTakeFirst();
    if (!parent) return;
    await emitWebhookEvent(trx, by, { group: parent, flag: 'subgroup_events', trigger: 'subgroup_hooks', build: () => subgroupHookData(group, parent, action) });
  },

  projectChanged: async (trx, { action, by, project, before }) => {
    if (!(await anyWebhook(trx))) return;
    await emitWebhookEvent(trx, by, { system: 'always', flag: null, trigger: 'system_hooks', build: () => projectHookData(trx, project, action, { deprecatedOwner: true, before }) });
    if (action !== 'create' && action !== 'destroy') return;
    const ns = await trx.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirst();
    if (ns?.kind !== 'group') return;
    await emitWebhookEvent(trx, by, { group: ns, flag: 'project_events', trigger: 'project_hooks', build: () => projectHookData(trx, project, action, { deprecatedOwner: false }) });
  },

  userChanged: async (trx, { action, by, user, before }) => {
    if (!(await anyWebhook(trx))) return;
    await emitWebhookEvent(trx, by, { system: 'always', flag: null, trigger: 'system_hooks', build: () => userHookData(user, action, before) });
  },
};
