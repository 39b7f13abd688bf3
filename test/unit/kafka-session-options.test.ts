import { describe, expect, it } from 'vitest';
import { resolveKafkaOptions } from '../../transports/kafka/kafka-options.js';

describe('kafka session options', () => {
  it('kafka options - session and heartbeat default to 10 s and 1 s, a short session gets a third of it', () => {
    expect(resolveKafkaOptions({ brokers: ['k:9092'] })).toMatchObject({ sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000 });
    expect(resolveKafkaOptions({ brokers: ['k:9092'], sessionTimeoutMs: 2_400 })).toMatchObject({ sessionTimeoutMs: 2_400, heartbeatIntervalMs: 800 });
  });

  it('kafka options - a heartbeat not below the session is a RangeError naming heartbeatIntervalMs', () => {
    expect(() => resolveKafkaOptions({ brokers: ['k:9092'], sessionTimeoutMs: 6_000, heartbeatIntervalMs: 6_000 })).toThrow(RangeError);
    expect(() => resolveKafkaOptions({ brokers: ['k:9092'], sessionTimeoutMs: 6_000, heartbeatIntervalMs: 6_000 })).toThrow(/heartbeatIntervalMs/);
  });
});
