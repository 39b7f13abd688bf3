/** The daemon's parts the CLI uses; the daemon itself (`daemon.ts`) is imported on its own, by `serve` only, as it brings the HTTP server and the A2A SDK. */
export { buildAgent } from './build-agent.js';
export { transportsFromConfig } from './transports-from-config.js';
export { builtinFrontDoors } from './front-doors.js';
export { gatewaysFromConfig, transportSections } from './gateways-from-config.js';
export { builtinHandlerTypes } from './handler-types.js';
export type { DaemonPlugins } from './plugins.js';
