import { z } from 'zod';
import { RpcError, toRpcError } from '../errors.js';
import { REMOTE_NODE_NAME_RE } from './remote-nodes-config.js';
import { REMOTE_AUTH_TYPES, type RemoteNode } from './remote-node.js';
import type { StoredRemoteNode } from './remote-node-store.js';

/** An entry of the node store that cannot be used, as logs and the admin API report it. */
export interface UnreadableNode {
  readonly name: string;
  /** EAGENTRPC_CREDENTIAL_INVALID (the seal does not open) or EAGENTRPC_REMOTE_NODE_UNREADABLE (not a node record). */
  readonly code: string;
  /** Why, naming the field; never a credential. */
  readonly reason: string;
}

// What the store itself writes; anything else in the file was put there by another hand.
const storedNodeSchema = z.object({
  name: z.string().regex(REMOTE_NODE_NAME_RE),
  description: z.string(),
  api_base_url: z.string().regex(/^https?:\/\//),
  auth_type: z.enum(REMOTE_AUTH_TYPES),
  auth_token_sealed: z.string().optional(),
  skip_tls_verify: z.boolean(),
  timeout: z.number().int().positive(),
  updated_at: z.number(),
});

/**
 * One entry of the store file, checked as it is read: a node record whose credential (if
 * any) opens with the store's key, or the reason it is unreadable. An entry without a
 * usable name is named by its position (`#3`).
 */
export function checkStoredNode(record: unknown, index: number, open: (stored: StoredRemoteNode) => RemoteNode): { node: StoredRemoteNode } | { unreadable: UnreadableNode } {
  const rawName = (record as { name?: unknown } | null)?.name;
  const name = typeof rawName === 'string' && REMOTE_NODE_NAME_RE.test(rawName) ? rawName : `#${index}`;
  const parsed = storedNodeSchema.safeParse(record);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const error = new RpcError('EAGENTRPC_REMOTE_NODE_UNREADABLE', `remote node store entry ${name}: ${issue.path.join('.') || 'entry'}: ${issue.message}`);
    return { unreadable: { name, code: error.code, reason: error.message } };
  }
  try {
    open(parsed.data);
    return { node: parsed.data };
  } catch (thrown) {
    const error = toRpcError(thrown);
    return { unreadable: { name, code: error.code, reason: error.message } };
  }
}
