import { TestFleet } from '../../src/testing/test-fleet.js';
import { MemoryBus, memoryTransport } from '../../transports/memory/index.js';

export { gate, until } from '../../src/testing/wait.js';

/** A TestFleet on one in-process bus. */
export class MemoryFleet extends TestFleet {
  readonly bus: MemoryBus;

  constructor() {
    const bus = new MemoryBus();
    super(() => memoryTransport({ bus }));
    this.bus = bus;
  }
}
