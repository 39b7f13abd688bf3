/** Metrics, flow observers and log throttling as interfaces with no-op defaults. The pino logger, Prometheus metrics and OpenTelemetry tracing are imported from their own modules: each brings its package. */
export { noFlows, type FlowCallIdentity, type FlowObserver } from './flow-observer.js';
export { LogThrottle } from './log-throttle.js';
export { noMetrics, type RpcMetrics } from './metrics.js';
export { RepeatedWarnings } from './repeated-warnings.js';
