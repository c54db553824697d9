/** GitLab's access levels. */
export const NO_ACCESS = 0;
export const MINIMAL_ACCESS = 5;
export const GUEST = 10;
export const PLANNER = 15;
export const REPORTER = 20;
export const SECURITY_MANAGER = 25;
export const DEVELOPER = 30;
export const MAINTAINER = 40;
export const OWNER = 50;
export const ADMIN = 60;

/** Levels a membership may hold. */
export const MEMBER_ACCESS_LEVELS = [MINIMAL_ACCESS, GUEST, PLANNER, REPORTER, SECURITY_MANAGER, DEVELOPER, MAINTAINER, OWNER] as const;
export type MemberAccessLevel = (typeof MEMBER_ACCESS_LEVELS)[number];

export const ACCESS_LEVEL_NAMES: Record<number, string> = {
  0: 'No access',
  5: 'Minimal Access',
  10: 'Guest',
  15: 'Planner',
  20: 'Reporter',
  25: 'Security Manager',
  30: 'Developer',
  40: 'Maintainer',
  50: 'Owner',
};
