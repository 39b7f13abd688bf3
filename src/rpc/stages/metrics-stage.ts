import { isPromise } from '../../maybe-promise.js';
import type { RpcMetrics } from '../../observability/index.js';
import type { Middleware } from '../middleware.js';

/**
 * Handler and call metrics as a stage: in a node's pipeline only when it reports metrics.
 * A handler's outcome counts as failed when it throws (its output schema included).
 */
export function metricsStage(metrics: RpcMetrics): Middleware {
  const { handlerStarted, handlerCompleted, callCompleted } = metrics;
  return {
    name: 'metrics',
    handler: handlerStarted || handlerCompleted
      ? (next, capability) => (input, ctx) => {
          handlerStarted?.call(metrics, capability);
          const started = performance.now();
          const done = (ok: boolean): void => handlerCompleted?.call(metrics, capability, ok, performance.now() - started);
          let running: unknown;
          try {
            running = next(input, ctx);
          } catch (error) {
            done(false);
            throw error;
          }
          if (!isPromise(running)) {
            done(true);
            return running;
          }
          return running.then(
            (value) => {
              done(true);
              return value;
            },
            (error: unknown) => {
              done(false);
              throw error;
            },
          );
        }
      : undefined,
    call: callCompleted
      ? (next) => (call) =>
          next(call).then((result) => {
            callCompleted.call(metrics, call.capability, result.status, result.latencyMs);
            return result;
          })
      : undefined,
  };
}
