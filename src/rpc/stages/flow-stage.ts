import { toRpcError } from '../../errors.js';
import { isPromise } from '../../maybe-promise.js';
import type { FlowObserver } from '../../observability/index.js';
import type { Middleware } from '../middleware.js';

/**
 * Flow recording as a stage, in a node's pipeline only when something records flows: each
 * handler run (its start, end, error code and duration), and each call from just before it
 * is published (`sending`) to its outcome — refusals before sending included.
 */
export function flowStage(flows: FlowObserver, from: string): Middleware {
  return {
    name: 'flow-recording',
    handler: (next) => (input, ctx) => {
      const { envelope } = ctx;
      flows.handlerStarted?.(envelope);
      const started = performance.now();
      const end = (errorCode: string | undefined): void => flows.handlerEnded?.(envelope, errorCode, performance.now() - started);
      let running: unknown;
      try {
        running = next(input, ctx);
      } catch (error) {
        end(toRpcError(error).code);
        throw error;
      }
      if (!isPromise(running)) {
        end(undefined);
        return running;
      }
      return running.then(
        (value) => {
          end(undefined);
          return value;
        },
        (error: unknown) => {
          end(toRpcError(error).code);
          throw error;
        },
      );
    },
    sending: flows.callStarted ? (call) => flows.callStarted!(call.envelope!) : undefined,
    call: flows.callEnded
      ? (next) => (call) =>
          next(call).then((result) => {
            // A call refused before its envelope was built is heard as its parts.
            flows.callEnded!(call.envelope ?? { correlationId: call.correlationId, causedBy: call.parent?.messageId, from, to: call.to, capability: call.capability }, result);
            return result;
          })
      : undefined,
  };
}
