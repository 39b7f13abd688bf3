/** `agent-rpc/testing`: helpers for testing agents — a fleet, a clock that moves when told, waiting for events, a scripted model server. */
export { TestFleet, type TestNodeOptions } from '../testing/test-fleet.js';
export { ManualClock } from '../testing/manual-clock.js';
export { until, gate } from '../testing/wait.js';
export {
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedTurn,
  type ScriptedAnswer,
  type ScriptedToolCall,
  type ScriptedUsage,
  type RecordedModelRequest,
  type ModelApi,
} from '../testing/scripted-model-server.js';
