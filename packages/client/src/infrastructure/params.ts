/** Helpers that turn core's parsed input types into what a caller sends. */

/** A numeric id or a full path (`group/subgroup/project`). */
export type ResourceId = number | string;

/** Makes the keys K optional (fields with a server-side default). */
export type WithOptional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/** A list's params: every filter is optional, `page`/`per_page`/`order_by`/`sort` have server defaults. */
export type ListParams<T> = Partial<Omit<T, 'id'>>;

export interface PaginationParams {
  page?: number;
  per_page?: number;
}

/** At least one of T's keys must be given (Grape's `at_least_one_of`). */
export type AtLeastOne<T> = { [K in keyof T]-?: Required<Pick<T, K>> & Partial<Omit<T, K>> }[keyof T];

/** Exactly one of T's keys must be given (Grape's `exactly_one_of`). */
export type ExactlyOne<T> = { [K in keyof T]-?: Required<Pick<T, K>> & { [O in Exclude<keyof T, K>]?: never } }[keyof T];
