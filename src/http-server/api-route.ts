import type { Permission, Principal } from '../auth/index.js';

/** A request the API server has authenticated and parsed (JSON body, path parameters). */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  /** Named segments of the route pattern, e.g. `{ id }` for `/api/v1/agent/sessions/:id`. */
  readonly params: Readonly<Record<string, string>>;
  /** The parsed JSON body; undefined when there is none. */
  readonly body: unknown;
  readonly principal: Principal;
}

export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

/**
 * One endpoint. The server authenticates the bearer token, checks `permission` against
 * the token's role (403 otherwise) and parses the JSON body before `handle` runs.
 * Patterns use `:name` segments: `/api/v1/remote-nodes/:name`.
 */
export interface ApiRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly pattern: string;
  readonly permission: Permission;
  /** Largest body this endpoint accepts (413 above it); default the server's. */
  readonly maxBodyBytes?: number;
  handle(request: ApiRequest): Promise<ApiResponse>;
}

/** An error body in one shape for every endpoint. */
export function apiError(status: number, message: string): ApiResponse {
  return { status, body: { error: message } };
}
