/** `agent-rpc/testing`: helpers for testing agents — a fleet, a clock that moves when told, waiting for events. */
export { TestFleet, type TestNodeOptions } from '../testing/test-fleet.js';
export { ManualClock } from '../testing/manual-clock.js';
export { until, gate } from '../testing/wait.js';
