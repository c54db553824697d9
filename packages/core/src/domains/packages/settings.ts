/**
 * Group package registry settings (the NuGet part of GitLab's namespace package settings),
 * read and written through the Forgelet extension `/forgelet/groups/:id/package_settings`
 * by group Maintainers and up. A project's packages follow the settings of its nearest group
 * that has them; defaults otherwise (duplicates allowed, symbol server on).
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError } from '../../kernel/errors.js';
import { authorize } from '../../access/policy.js';
import { findGroup } from '../../access/lookup.js';
import { selectSettingsRow, settingsOf, type PackageSettings } from './packages.queries.js';

export type PackageSettingsEntity = PackageSettings;

export interface UpdatePackageSettingsInput {
  id: string;
  nuget_duplicates_allowed?: boolean;
  nuget_duplicate_exception_regex?: string | null;
  nuget_symbol_server_enabled?: boolean;
}

export async function getPackageSettings(ctx: Ctx, ref: string): Promise<PackageSettingsEntity> {
  const group = await findGroup(ctx, ref);
  await authorize(ctx, 'admin_package', { kind: 'group', group });
  return settingsOf(await selectSettingsRow(ctx.db, group.id));
}

export async function updatePackageSettings(ctx: Ctx, input: UpdatePackageSettingsInput): Promise<PackageSettingsEntity> {
  const group = await findGroup(ctx, input.id);
  await authorize(ctx, 'admin_package', { kind: 'group', group });
  const regex = input.nuget_duplicate_exception_regex === null ? '' : input.nuget_duplicate_exception_regex;
  if (regex !== undefined) {
    if (regex.length > 255) throw new BadRequestError({ nuget_duplicate_exception_regex: ['is too long (maximum is 255 characters)'] });
    try {
      new RegExp(regex);
    } catch (err) {
      throw new BadRequestError({ nuget_duplicate_exception_regex: [`not valid regular expression syntax: ${(err as Error).message}`] });
    }
  }
  const now = nowIso(ctx);
  return ctx.db.transaction().execute(async (trx) => {
    const current = settingsOf(await trx.selectFrom('namespace_package_settings').selectAll().where('namespace_id', '=', group.id).executeTakeFirst());
    const next: PackageSettings = {
      nuget_duplicates_allowed: input.nuget_duplicates_allowed ?? current.nuget_duplicates_allowed,
      nuget_duplicate_exception_regex: regex ?? current.nuget_duplicate_exception_regex,
      nuget_symbol_server_enabled: input.nuget_symbol_server_enabled ?? current.nuget_symbol_server_enabled,
    };
    const values = {
      nuget_duplicates_allowed: next.nuget_duplicates_allowed ? 1 : 0,
      nuget_duplicate_exception_regex: next.nuget_duplicate_exception_regex,
      nuget_symbol_server_enabled: next.nuget_symbol_server_enabled ? 1 : 0,
      updated_at: now,
    };
    const updated = await trx.updateTable('namespace_package_settings').set(values).where('namespace_id', '=', group.id).executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      await trx.insertInto('namespace_package_settings').values({ namespace_id: group.id, ...values, created_at: now }).execute();
    }
    return next;
  });
}
