import { describe, expect, it } from 'vitest';
import type { RpcError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { ConnectionWatch } from '../../src/rpc/connection-watch.js';
import { PendingRegistry, type PendingOutcome } from '../../src/rpc/pending-registry.js';
import { until } from '../../src/testing/wait.js';
import type { ConnectionState, RpcTransport } from '../../src/transport.js';
import { ConnectionStateReporter } from '../../transports/shared/connection-state.js';

/** A transport that only reports connection states, driven by the test. */
function reporting(kind: string): { transport: RpcTransport; report: (state: ConnectionState) => void } {
  const listeners: Array<(state: ConnectionState) => void> = [];
  const transport = { kind, onConnectionState: (listener: (state: ConnectionState) => void) => listeners.push(listener) } as unknown as RpcTransport;
  return { transport, report: (state) => listeners.forEach((listener) => listener(state)) };
}

function waiting(registry: PendingRegistry, requestId: string, transport: string): PendingOutcome[] {
  const outcomes: PendingOutcome[] = [];
  const refused = registry.register({ requestId, correlationId: 'c', capability: 'x', transport, deadline: Date.now() + 60_000, onProgress: undefined, onSettle: (o) => outcomes.push(o) });
  if (refused) outcomes.push({ ok: false, error: refused });
  return outcomes;
}

describe('connection watch', () => {
  it('connection watch - calls on a transport lost past the grace are abandoned; others and later calls after it is back wait', async () => {
    const registry = new PendingRegistry({ now: () => Date.now() });
    const watch = new ConnectionWatch(registry, 20, silentLogger);
    const nats = reporting('nats');
    watch.watch(nats.transport);
    const onNats = waiting(registry, 'r1', 'nats');
    const onKafka = waiting(registry, 'r2', 'kafka');
    nats.report('lost');
    await until(() => onNats.length === 1);
    expect((onNats[0] as { error: RpcError }).error).toMatchObject({ code: 'EAGENTRPC_ABANDONED', details: { reason: 'connection-lost', transport: 'nats', requestId: 'r1' } });
    expect(onKafka).toEqual([]);
    expect((waiting(registry, 'r3', 'nats')[0] as { error: RpcError }).error.code).toBe('EAGENTRPC_ABANDONED');
    nats.report('connected');
    expect(waiting(registry, 'r4', 'nats')).toEqual([]);
    expect(registry.size).toBe(2);
    watch.stop();
    registry.close();
  });

  it('connection watch - a connection back within the grace leaves the calls waiting', async () => {
    const registry = new PendingRegistry({ now: () => Date.now() });
    const watch = new ConnectionWatch(registry, 60_000, silentLogger);
    const nats = reporting('nats');
    watch.watch(nats.transport);
    const outcomes = waiting(registry, 'r1', 'nats');
    nats.report('lost');
    nats.report('connected');
    watch.stop();
    expect(outcomes).toEqual([]);
    expect(registry.size).toBe(1);
    registry.close();
  });

  it('connection state - lost while any part is lost, connected once all are back', () => {
    const reporter = new ConnectionStateReporter();
    const states: ConnectionState[] = [];
    reporter.listen((state) => states.push(state));
    const [a, b] = [{}, {}];
    reporter.lost(a);
    reporter.lost(b);
    reporter.lost(a);
    reporter.back(a);
    expect(states).toEqual(['lost']);
    reporter.back(b);
    reporter.back(b);
    expect(states).toEqual(['lost', 'connected']);
  });
});
