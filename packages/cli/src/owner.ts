/**
 * `--project <p>`, `--group <g>` and (where the API has one) `--instance`: what a command that
 * manages project, group or instance resources (variables, deploy tokens) acts on.
 */
import type { Command } from 'commander';
import { UsageError } from './errors.js';

export interface OwnerFlags {
  project?: string;
  group?: string;
  instance?: boolean;
}

export type ResourceOwner = { kind: 'project' | 'group'; id: string };
export type Owner = ResourceOwner | { kind: 'instance' };

/** The options; `instance` says whether `--instance` is one of them. */
export function ownerOptions(cmd: Command, instance = true): Command {
  cmd.option('--project <project>', 'a project (id or full path)').option('--group <group>', 'a group (id or full path)');
  return instance ? cmd.option('--instance', 'the instance (administrators)') : cmd;
}

/** Exactly one owner, else a usage error naming the choices. */
export function ownerOf(flags: OwnerFlags, instance: false): ResourceOwner;
export function ownerOf(flags: OwnerFlags, instance?: boolean): Owner;
export function ownerOf(flags: OwnerFlags, instance = true): Owner {
  const chosen = [flags.project !== undefined, flags.group !== undefined, instance && flags.instance === true].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError(`give exactly one of --project, --group${instance ? ', --instance' : ''}`);
  if (flags.project !== undefined) return { kind: 'project', id: flags.project };
  if (flags.group !== undefined) return { kind: 'group', id: flags.group };
  return { kind: 'instance' };
}
