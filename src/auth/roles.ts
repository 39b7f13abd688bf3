/**
 * API token roles, from least to most privileged. A role holds every permission of the
 * roles below it: `viewer` reads, `developer` also reads configuration, `operator` and
 * up may execute (create and drive sessions), `admin` also manages remote nodes.
 */
export const ROLES = ['viewer', 'developer', 'operator', 'manager', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = ['read', 'execute', 'admin'] as const;
export type Permission = (typeof PERMISSIONS)[number];

const LEAST_ROLE_FOR: Record<Permission, Role> = { read: 'viewer', execute: 'operator', admin: 'admin' };

export function roleCan(role: Role, permission: Permission): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(LEAST_ROLE_FOR[permission]);
}

/** Who made an API request: the user its bearer token belongs to, and that token's role. */
export interface Principal {
  readonly user: string;
  readonly role: Role;
}
