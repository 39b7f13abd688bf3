import type { CapabilitySchema } from './capability-schemas.js';
import { RpcError } from '../errors.js';
import type { Handler } from './handler.js';

export const PING_CAPABILITY = '$ping';
export const CAPABILITIES_CAPABILITY = '$capabilities';
export const REQUEUE_CAPABILITY = '$requeue';

/** The caller id the agent's own operator tool (`agent-rpc dlq requeue`) uses: `<agent>-cli-<random>`. */
export function isOperatorOf(agentUri: string, from: string): boolean {
  return from.startsWith(`${agentUri}-cli-`);
}

/** What `$capabilities` answers: the agent's published RPC surface. */
export interface CapabilitiesAnswer {
  readonly agent: string;
  readonly capabilities: readonly CapabilitySchema[];
}

/**
 * `$ping` answers liveness with the agent's identity; `$capabilities` answers discovery;
 * `$requeue {id}` sends a DLQ record through the pipeline again, for the agent's own
 * operator tool only (the running agent holds the dedupe store the record's first attempt
 * used, so only it can requeue correctly). Who may publish as that tool is the auth
 * provider's business, as for every caller.
 */
export function builtinHandlers(
  agentUri: string,
  instanceId: string,
  capabilities: readonly CapabilitySchema[],
  startedAt: number,
  requeue: (id: string) => Promise<unknown>,
): Map<string, Handler> {
  return new Map<string, Handler>([
    [PING_CAPABILITY, () => ({ agent: agentUri, instanceId, uptimeMs: Date.now() - startedAt })],
    [CAPABILITIES_CAPABILITY, (): CapabilitiesAnswer => ({ agent: agentUri, capabilities })],
    [
      REQUEUE_CAPABILITY,
      (input, ctx) => {
        if (!isOperatorOf(agentUri, ctx.from)) throw new RpcError('EAGENTRPC_PERMISSION_DENIED', `${ctx.from} may not requeue ${agentUri}'s DLQ records`);
        const id = (input as { id?: unknown } | null)?.id;
        if (typeof id !== 'string') throw new RpcError('EAGENTRPC_SCHEMA_VIOLATION', '$requeue input at /id: must be a DLQ record id', { details: { pointer: '/id' } });
        return requeue(id).catch((error: unknown) => {
          throw error instanceof RangeError ? new RpcError('EAGENTRPC_DLQ_RECORD_NOT_FOUND', error.message) : error;
        });
      },
    ],
  ]);
}
