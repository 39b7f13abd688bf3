import { toRpcError, type RpcError } from '../../errors.js';
import { isPromise } from '../../maybe-promise.js';
import type { RpcTracing } from '../../observability/tracing/rpc-tracing.js';
import type { Middleware } from '../middleware.js';
import { parseTraceparent, TRACEPARENT_HEADER } from '../../trace-context.js';

/**
 * Spans as a stage, in a node's pipeline only when a tracer is there: the handler's span
 * (under the delivery's process span, active while the handler runs so instrumentation
 * inside it nests), and each call's `send` span from its first check to its outcome, whose
 * id the request carries as its traceparent.
 */
export function tracingStage(tracing: RpcTracing, from: string): Middleware {
  return {
    name: 'tracing',
    handler: (next) => (input, ctx) => {
      const { envelope } = ctx;
      const span = tracing.startHandler(envelope, ctx.attempt);
      if (!span.isRecording()) return next(input, ctx);
      const end = (error: RpcError | undefined): void => tracing.endHandler(span, envelope, error);
      let running: unknown;
      try {
        running = tracing.withSpan(span, () => next(input, ctx));
      } catch (error) {
        end(toRpcError(error));
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
          end(toRpcError(error));
          throw error;
        },
      );
    },
    call: (next) => (call) => {
      const explicit = call.headers?.[TRACEPARENT_HEADER];
      const span = tracing.startSend(call.parent, explicit === undefined ? undefined : parseTraceparent(explicit));
      // The caller's own traceparent wins (it runs inside a traced service); else the trace of the request being handled.
      call.traceparent = tracing.outgoingTraceparent(span, explicit ?? call.parent?.headers?.[TRACEPARENT_HEADER]);
      return next(call).then((result) => {
        if (span.isRecording()) {
          const { route, envelope } = call;
          if (route) tracing.describeSend(span, route.kind, route.topic, { capability: call.capability, from, to: call.to, correlationId: call.correlationId }, route.broker);
          if (envelope) tracing.sending(span, envelope);
          // Refused before it was sent: by this node's permissions or guard.
          else if (result.error?.code === 'EAGENTRPC_PERMISSION_DENIED') tracing.permissionDenied(span, call.to, call.capability);
          else if (result.error?.code === 'EAGENTRPC_GUARD_REJECTED') {
            const details = result.error.details as { rule: string; from: string; to: string };
            tracing.guardRefused(span, details.rule, details.from, details.to);
          }
        }
        tracing.endSend(span, result.status, result.error);
        return result;
      });
    },
  };
}
