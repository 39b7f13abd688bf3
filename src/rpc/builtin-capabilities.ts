import type { CapabilitySchema } from './capability-schemas.js';
import type { Handler } from './handler.js';

export const PING_CAPABILITY = '$ping';
export const CAPABILITIES_CAPABILITY = '$capabilities';

/** What `$capabilities` answers: the agent's published RPC surface. */
export interface CapabilitiesAnswer {
  readonly agent: string;
  readonly capabilities: readonly CapabilitySchema[];
}

/** `$ping` answers liveness with the agent's identity; `$capabilities` answers discovery. */
export function builtinHandlers(agentUri: string, instanceId: string, capabilities: readonly CapabilitySchema[], startedAt: number): Map<string, Handler> {
  return new Map<string, Handler>([
    [PING_CAPABILITY, () => ({ agent: agentUri, instanceId, uptimeMs: Date.now() - startedAt })],
    [CAPABILITIES_CAPABILITY, (): CapabilitiesAnswer => ({ agent: agentUri, capabilities })],
  ]);
}
