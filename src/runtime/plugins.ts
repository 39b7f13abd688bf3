import type { FrontDoorPlugin, HandlerType, Plugins } from '../config/index.js';

/** The plug-ins a daemon runs with: transports, front doors and handler types, each list one line per plug-in. */
export type DaemonPlugins = Plugins<FrontDoorPlugin, HandlerType>;
