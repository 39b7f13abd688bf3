import type { HandlerTypeBase, HandlerTypeContext, HandlerType } from '../config/index.js';

/**
 * Installs on the node the handlers of every handler type, each building those of its own
 * entries; first every type offers its services, so that one (a workflow) can run its steps
 * through another (a model agent, a remote worker). Resolves with the context they were built in.
 */
export async function installHandlers(types: readonly HandlerType[], base: HandlerTypeBase): Promise<HandlerTypeContext> {
  const services = {};
  for (const type of types) Object.assign(services, await type.services?.(base));
  const context: HandlerTypeContext = { ...base, services };
  for (const type of types) {
    for (const [capability, handler] of await type.handlers(context)) base.node.handle(capability, handler);
  }
  return context;
}
