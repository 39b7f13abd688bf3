import { isPromise } from '../../maybe-promise.js';
import type { CapabilitySchemas } from '../capability-schemas.js';
import type { HandlerInvoker } from '../middleware.js';
import { RequestContext } from '../request-context.js';

/**
 * The handler itself, its result checked against the capability's published output schema
 * (a result that breaks it is not sent as success): the innermost step of every handler's
 * pipeline, with no check where the capability publishes no output schema.
 */
export function checkedHandler(schemas: CapabilitySchemas, capability: string, handler: HandlerInvoker): HandlerInvoker {
  if (!schemas.hasOutput(capability)) return handler;
  const check = (value: unknown, ctx: Parameters<HandlerInvoker>[1]): unknown => {
    // A handler that sent its final answer itself (`respond`) returns nothing to check.
    if (RequestContext.responded(ctx)) return value;
    const violation = schemas.check(capability, 'output', value ?? null);
    if (violation) throw violation;
    return value;
  };
  return (input, ctx) => {
    const running = handler(input, ctx);
    return isPromise(running) ? running.then((value) => check(value, ctx)) : check(running, ctx);
  };
}
