import type { ApiRoute } from './api-route.js';

export interface MatchedRoute {
  readonly route: ApiRoute;
  readonly params: Record<string, string>;
}

/** Finds the route for a method and path; `allowed` lists the methods the path has when only the method is wrong. */
export function matchRoute(routes: readonly ApiRoute[], method: string, path: string): MatchedRoute | { allowed: string[] } | undefined {
  const allowed: string[] = [];
  for (const route of routes) {
    const params = matchPattern(route.pattern, path);
    if (!params) continue;
    if (route.method === method) return { route, params };
    allowed.push(route.method);
  }
  return allowed.length > 0 ? { allowed } : undefined;
}

function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    if (segment.startsWith(':')) {
      if (got[i]!.length === 0) return undefined;
      try {
        params[segment.slice(1)] = decodeURIComponent(got[i]!);
      } catch {
        return undefined;
      }
    } else if (segment !== got[i]) return undefined;
  }
  return params;
}
