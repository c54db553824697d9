/** Forgelet's own version. */
export const FORGELET_VERSION = '0.1.0';
/** The GitLab version whose API Forgelet answers as (clients and migration sources check it). */
export const GITLAB_COMPATIBLE_VERSION = '17.8.0-forgelet';
