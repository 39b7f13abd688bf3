import { HANDLER_SECTIONS, type HandlerTypeBase, type HandlerTypeContext, type HandlerType } from '../config/index.js';
import type { HandlerContext } from '../rpc/index.js';

/**
 * Installs on the node the handlers of every handler type, each building those of its own
 * entries, of requests (`handlers:`) and of events (`events:`); first every type offers its
 * services, so that one (a workflow) can run its steps through another (a model agent, a
 * remote worker). Resolves with the context they were built in.
 */
export async function installHandlers(types: readonly HandlerType[], base: HandlerTypeBase): Promise<HandlerTypeContext> {
  const services = {};
  for (const type of types) Object.assign(services, await type.services?.(base));
  for (const section of HANDLER_SECTIONS) {
    const context: HandlerTypeContext = { ...base, services, section };
    for (const type of types) {
      for (const [capability, handler] of await type.handlers(context)) {
        if (section === 'handlers') base.node.handle(capability, handler);
        // A handler of agent.yaml serves events as it serves requests, with a request's context:
        // an event has no `replyTo`, so what the handler returns or responds goes nowhere.
        else
          base.node.handleEvents(capability, async (payload, ctx) => {
            await handler(payload, ctx as HandlerContext);
          });
      }
    }
  }
  return { ...base, services, section: 'handlers' };
}
