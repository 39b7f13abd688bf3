import type { HandlerType } from '../config/index.js';
import { modelAgentHandlerType } from '../model-agents/handler-type/index.js';
import { moduleHandlerType } from '../module-handlers/index.js';
import { remoteWorkerHandlerType } from '../remote-execution/handler-type/index.js';
import { workflowHandlerType } from '../workflows/handler-type/index.js';

/** The handler types an agent built from YAML knows, one line each (as transports/plugins.ts lists the transports). */
export const builtinHandlerTypes: readonly HandlerType[] = [
  moduleHandlerType,
  modelAgentHandlerType,
  workflowHandlerType,
  remoteWorkerHandlerType,
];
