/**
 * `agent-rpc/daemon`: running agents from their YAML files — the daemon, the config
 * loaders, secret references and the client generator.
 */
export { startDaemon, serveUntilSignalled, type RunningDaemon, type DaemonOptions } from '../runtime/daemon.js';
export type { BuiltAgent } from '../runtime/build-agent.js';
export { loadAgentConfig, CONFIG_FILES, type AgentConfig } from '../config/agent-config.js';
export { ConfigError } from '../yaml/config-error.js';
export { loadPeersFile, type PeersFileOptions } from '../config/peers-file.js';
export { buildPeerAuth, buildReceiverAuth } from '../config/build-auth.js';
export { peerAuthSchema, receiverAuthSchema, type PeerAuthConfig, type ReceiverAuthConfig } from '../config/auth-config.js';
export { createSecretResolver, parseSecretRef, parseKeyRing, VaultKvReader, type SecretResolver, type SecretSchemeResolver } from '../secrets/index.js';
export { generateClient, type GenerateClientOptions } from '../codegen/generate-client.js';
