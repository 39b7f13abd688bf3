export { natsTransport } from './nats-transport.js';
export type { DurableOptions, NatsTransportOptions } from './nats-options.js';
