export { memoryTransport, type MemoryTransportOptions } from './memory-transport.js';
export { MemoryBus, type MemoryBusOptions } from './memory-bus.js';
export { memoryTransportPlugin, memoryConfigSchema, type MemoryTransportConfig } from './plugin.js';
