import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface HttpNodeSpec {
  readonly id: string;
  /** Agents reached over `http`, all through one remote node named `peer-node`. */
  readonly peers: readonly string[];
  readonly hmac?: { readonly keyId: string; readonly keysRefEnv: string };
}

/**
 * Writes the config directory of a node whose agent serves `assist` (the scripted handler
 * of test/fixtures/config/session-node) and reaches its peers through the session API of
 * the node at $PEER_URL with $PEER_TOKEN. Inbound, $INBOUND_TOKEN is an operator and
 * $ADMIN_TOKEN an admin; the node store's key is $NODE_STORE_KEY.
 */
export function writeHttpNodeConfig(spec: HttpNodeSpec): string {
  const dir = mkdtempSync(join(tmpdir(), `http-node-${spec.id}-`));
  mkdirSync(join(dir, 'handlers'));
  cpSync(new URL('../fixtures/config/session-node/handlers/assist.js', import.meta.url).pathname, join(dir, 'handlers', 'assist.js'));
  const auth = spec.hmac ? `rpc:\n  auth: { required: hmac, signingKeyId: ${spec.hmac.keyId}, keysRef: "\${env:${spec.hmac.keysRefEnv}}" }\n` : '';
  writeFileSync(
    join(dir, 'agent.yaml'),
    `version: 1
agent: { id: ${spec.id} }
permissions: { allow: ["RequestAgent:*"] }
${auth}handlers: { assist: ./handlers/assist.js }
log: { level: warn }
http: { port: "\${env:AGENT_HTTP_PORT}" }
api:
  tokens:
    - { user: peer, role: operator, tokenRef: "\${env:INBOUND_TOKEN}" }
    - { user: admin, role: admin, tokenRef: "\${env:ADMIN_TOKEN}" }
session: { capability: assist }
remote_nodes:
  - name: peer-node
    description: the node across the wire
    api_base_url: "\${env:PEER_URL}"
    auth_type: token
    auth_token: "\${env:PEER_TOKEN}"
    timeout: 30s
remote_node_store: { keyRef: "\${env:NODE_STORE_KEY}" }
dataDir: ./data
`,
  );
  writeFileSync(
    join(dir, 'capabilities.yaml'),
    `version: 1
transports: { memory: {} }
capabilities:
  - name: assist
    description: Answers a message.
    inputSchema: { type: object, required: [message], properties: { message: { type: string } }, additionalProperties: false }
`,
  );
  const peers = spec.peers.map((peer) => `  - id: agent://${peer}\n    transports: [{ kind: http, node: peer-node }]\n`).join('');
  writeFileSync(join(dir, 'rpc-peers.yaml'), `version: 1\npeers:\n${peers}`);
  return dir;
}
