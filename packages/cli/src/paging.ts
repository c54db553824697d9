/** `--page`/`--per-page`/`--all` for list commands, and the footer that tells people about more pages. */
import type { Command } from 'commander';
import type { Page, Paginated } from '@forgelet/client';
import { parsePositiveInteger } from './options.js';
import { UsageError } from './errors.js';

export interface PagingFlags {
  page?: string;
  perPage?: string;
  all?: boolean;
}

export function pagingOptions(cmd: Command, perPage = 20): Command {
  return cmd
    .option('--page <n>', 'page to show', '1')
    .option('--per-page <n>', `items per page (at most 100, default ${perPage})`, String(perPage))
    .option('--all', 'every page');
}

export function parsePaging(flags: PagingFlags): { page: number; perPage: number; all: boolean } {
  const page = parsePositiveInteger(flags.page ?? '1', 'flag', '--page');
  const perPage = parsePositiveInteger(flags.perPage ?? '20', 'flag', '--per-page');
  if (perPage > 100) throw new UsageError(`--per-page must be at most 100, got "${flags.perPage}"`);
  if (flags.all && flags.page !== undefined && flags.page !== '1') throw new UsageError('--all and --page cannot be combined');
  return { page, perPage, all: flags.all === true };
}

/** One page (or every page with --all), and a footer line for people ('' when nothing more). */
export async function fetchListing<T>(list: Paginated<T>, paging: { page: number; all: boolean }): Promise<{ items: T[]; footer: string }> {
  if (paging.all) return { items: await list.toArray(), footer: '' };
  const page: Page<T> = await list.page(paging.page);
  const p = page.pagination;
  const parts: string[] = [];
  if (p.totalPages !== null && p.totalPages > 1) parts.push(`Page ${p.page ?? paging.page} of ${p.totalPages}${p.total !== null ? ` (${p.total} in all)` : ''}`);
  if (p.nextPage !== null) parts.push(`next: --page ${p.nextPage}`);
  return { items: page.items, footer: parts.length ? `${parts.join('; ')}.\n` : '' };
}
