import { MemoryBus, memoryTransport } from '../../transports/memory/index.js';
import { transportConformance } from '../conformance/transport-suite.js';

let bus = new MemoryBus();

transportConformance({
  name: 'memory',
  expectedTraits: { redelivery: true, orderedByKey: true, retainsUnconsumed: true, remoteSubscribe: true },
  expectedBroker: undefined,
  setup: async () => {
    bus = new MemoryBus();
  },
  connect: async () => {
    const transport = memoryTransport({ bus });
    await transport.connect();
    return transport;
  },
  teardown: async () => {},
});
