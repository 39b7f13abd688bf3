import { compilePermissions } from '../rpc/index.js';
import type { ToolPolicy } from './agent-tools.js';
import { LIST_REMOTE_NODES } from './list-remote-nodes-tool.js';
import { REMOTE_AGENT } from './remote-agent-tool.js';

/** The built-in tools, on unless `tools.enabled` leaves them out (web_search only with an endpoint). */
export const BUILTIN_TOOLS = ['bash', 'read', 'patch', 'think', 'read_schema', 'web_search'] as const;
export type BuiltinTool = (typeof BUILTIN_TOOLS)[number];
/** The tools that reach other nodes: off unless turned on. */
export const REMOTE_TOOLS = [REMOTE_AGENT, LIST_REMOTE_NODES] as const;
/** `peer:<glob>` in `tools.enabled` selects peer capabilities: the glob runs over `agent://<id>/<capability>`. */
export const PEER_TOOL_PREFIX = 'peer:';

/** Checks one `tools.enabled` entry; undefined when it names a tool, else the problem. */
export function toolEntryProblem(entry: string): string | undefined {
  if (entry.startsWith(PEER_TOOL_PREFIX)) return entry.length > PEER_TOOL_PREFIX.length ? undefined : 'peer: needs a glob such as peer:agent://linter/*';
  if ((BUILTIN_TOOLS as readonly string[]).includes(entry) || (REMOTE_TOOLS as readonly string[]).includes(entry)) return undefined;
  return `unknown tool ${entry}: one of ${[...BUILTIN_TOOLS, ...REMOTE_TOOLS].join(', ')}, or peer:<glob>`;
}

/**
 * Which tools a model agent gets: its handler's `tools.enabled` (when given, exactly those),
 * else the built-ins and every peer capability; agent.yaml `tools.policy` turns a tool off
 * for every handler (`false`) or turns an off-by-default one on (`true`).
 */
export class ToolSelection {
  private readonly peerCheck: ((key: string) => boolean) | undefined;

  constructor(
    private readonly enabled: readonly string[] | undefined,
    private readonly policy: ToolPolicy,
  ) {
    const globs = enabled?.filter((entry) => entry.startsWith(PEER_TOOL_PREFIX)).map((entry) => entry.slice(PEER_TOOL_PREFIX.length));
    this.peerCheck = globs === undefined ? undefined : compilePermissions({ allow: globs });
  }

  has(name: string): boolean {
    if (this.policy[name] === false) return false;
    if (this.enabled) return this.enabled.includes(name);
    return (BUILTIN_TOOLS as readonly string[]).includes(name) || this.policy[name] === true;
  }

  /** Whether a peer capability is offered (the agent's permissions are checked apart). */
  hasPeer(uri: string, capability: string): boolean {
    return this.peerCheck === undefined || this.peerCheck(`${uri}/${capability}`);
  }

  /** The remote tools' policy as buildAgentTools reads it: on when selected. */
  remotePolicy(): ToolPolicy {
    return Object.fromEntries(REMOTE_TOOLS.map((name) => [name, this.has(name)]));
  }
}
