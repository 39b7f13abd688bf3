/**
 * Glob allow/deny lists over permission keys such as
 * `RequestAgent:agent://pr-reviewer/review-pr`. `*` matches any run of characters
 * (including `/`), `?` one character. Deny wins; with an allow list, a key must match it;
 * without one, everything not denied is allowed.
 */

export interface PermissionRules {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
}

export type PermissionCheck = (key: string) => boolean;

export function compilePermissions(rules: PermissionRules = {}): PermissionCheck {
  const allow = rules.allow?.map((pattern, i) => compileGlob(pattern, `permissions.allow[${i}]`));
  const deny = (rules.deny ?? []).map((pattern, i) => compileGlob(pattern, `permissions.deny[${i}]`));
  // Decisions are pure functions of the key; remember them for the hot path.
  const decided = new Map<string, boolean>();
  return (key) => {
    let allowed = decided.get(key);
    if (allowed === undefined) {
      allowed = !deny.some((re) => re.test(key)) && (allow === undefined || allow.some((re) => re.test(key)));
      if (decided.size < 10_000) decided.set(key, allowed);
    }
    return allowed;
  };
}

export function requestPermissionKey(toUri: string, capability: string): string {
  return `RequestAgent:${toUri}/${capability}`;
}

function compileGlob(pattern: unknown, field: string): RegExp {
  if (typeof pattern !== 'string' || pattern.length === 0) throw new TypeError(`${field} must be a non-empty string`);
  let source = '';
  for (const ch of pattern) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}
