// Access levels and visibility levels, as numbers on the wire and names in the code.

export const ACCESS = {
  NO_ACCESS: 0,
  MINIMAL_ACCESS: 5,
  GUEST: 10,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;

/** Levels a group membership may have; projects stop at Maintainer. */
export const GROUP_ACCESS_LEVELS = [5, 10, 20, 30, 40, 50] as const;
export const PROJECT_ACCESS_LEVELS = [10, 20, 30, 40] as const;

export const VISIBILITY = { private: 0, internal: 10, public: 20 } as const;
export type VisibilityName = keyof typeof VISIBILITY;
export const VISIBILITY_NAMES = ['private', 'internal', 'public'] as const;

export function visibilityName(level: number): VisibilityName {
  return level >= VISIBILITY.public ? 'public' : level >= VISIBILITY.internal ? 'internal' : 'private';
}

/** Who sees what without a membership: anonymous and external users public only, others internal too, admins all. */
export function visibleLevels(viewer: { isAdmin: boolean; external: boolean } | null): number[] {
  if (!viewer) return [VISIBILITY.public];
  if (viewer.isAdmin) return [VISIBILITY.private, VISIBILITY.internal, VISIBILITY.public];
  if (viewer.external) return [VISIBILITY.public];
  return [VISIBILITY.internal, VISIBILITY.public];
}
