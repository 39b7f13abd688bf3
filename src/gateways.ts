import { a2aGatewayPlugin } from './a2a/index.js';
import type { GatewayPlugin } from './gateway-plugin.js';
import { httpGatewayPlugin } from './remote-nodes/http-gateway/index.js';

/**
 * The gateways the `agent-rpc` command and daemon know, one line each. Importing this list
 * loads no protocol client: a gateway loads its package when it first calls a peer.
 */
export const builtinGateways: readonly GatewayPlugin[] = [httpGatewayPlugin, a2aGatewayPlugin];
