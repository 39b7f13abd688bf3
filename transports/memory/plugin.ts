import { z } from 'zod';
import type { TransportPlugin } from '../../src/transport-plugin.js';
import { requestsTopicOf, topicRouteFields } from '../shared/topic-route.js';
import { MemoryBus } from './memory-bus.js';
import { memoryTransport } from './memory-transport.js';

/** capabilities.yaml `transports.memory`: nothing to set; the agents of one process share one bus. */
export const memoryConfigSchema = z.strictObject({});
export type MemoryTransportConfig = z.infer<typeof memoryConfigSchema>;

const memoryRouteSchema = z.strictObject(topicRouteFields);

/** The bus of this process: created by the first agent that needs it, kept in the context's shared state. */
function sharedBus(shared: Map<string, unknown>): MemoryBus {
  const existing = shared.get('memory');
  if (existing instanceof MemoryBus) return existing;
  const bus = new MemoryBus();
  shared.set('memory', bus);
  return bus;
}

export const memoryTransportPlugin: TransportPlugin<MemoryTransportConfig, z.infer<typeof memoryRouteSchema>> = {
  kind: 'memory',
  summary: 'in-process bus: the agents of one process call each other without a broker',
  configSchema: memoryConfigSchema,
  topicsField: 'topics',
  routeSchema: memoryRouteSchema,
  processLocal: true,
  async create(_config, context) {
    return memoryTransport({ bus: sharedBus(context.shared) });
  },
  requestsTopic: requestsTopicOf,
};
