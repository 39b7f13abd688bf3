/** The YAML files of an agent (agent.yaml, rpc-peers.yaml, capabilities.yaml), loaded and checked, for the server, the runtime and the CLI. */
export { CONFIG_FILES, dataDirOf, loadAgentConfig, type AgentConfig } from './agent-config.js';
export type { AgentFile } from './agent-file.js';
export { HANDLER_SECTIONS, handlerEntriesOf, type HandlerSection, type HandlerServices, type HandlerType, type HandlerTypeBase, type HandlerTypeContext } from './handler-type.js';
export { sectionOf, type ConfigContribution, type ConfigShape, type HandlerEntryContribution, type Plugins } from './plugins.js';
export { buildReceiverAuth } from './build-auth.js';
export { defaultCapabilityOf } from './default-capability.js';
export type { AgentWiring, FrontDoorPlugin, FrontDoorProcess, OpenFrontDoor, ServedAgent } from './front-door-plugin.js';
export { capabilitiesFileSchema, type CapabilityConfig } from './capabilities-file.js';
export { configKinds, type ConfigKind } from './config-kinds.js';
export { routeRequestsTopic, toPeerEntries } from './peers-file.js';
export { DEFAULT_TRACING_ENDPOINTS, type TracingConfig } from './tracing-config.js';
export type { TransportsConfig } from './transports-config.js';
