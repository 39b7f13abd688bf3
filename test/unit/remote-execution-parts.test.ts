import { describe, expect, it } from 'vitest';
import type { InboundMessage, InboundPort, OwnRequest } from '../../src/rpc/inbound-port.js';
import { LocalStore, RedisStoreRef, RemoteExecutionNotSupportedError, serializeContext } from '../../src/remote-nodes/remote-execution-context.js';
import { executeBodySchema, inlineCredentialAt } from '../../src/remote-nodes/execute-request.js';
import { EXECUTE_USER_HEADER, runExecute, statusOf } from '../../src/remote-execution/server/execute-runner.js';

/** A port that records the request it is asked to sign and answers it with `payload`. */
function fakePort(payload: unknown): { port: InboundPort; signed: OwnRequest[]; delivered: InboundMessage[] } {
  const signed: OwnRequest[] = [];
  const delivered: InboundMessage[] = [];
  const port: InboundPort = {
    uri: 'agent://worker',
    limits: { maxBytes: 1 << 20, maxDepth: 32 },
    cancel: () => false,
    async signOwnRequest(request) {
      signed.push(request);
      return new Uint8Array();
    },
    async deliver(message) {
      delivered.push(message);
      message.execution?.added.messages.push({ role: 'assistant', content: 'added' });
      message.onReply?.({ body: new Uint8Array(), payload: payload as never });
    },
  };
  return { port, signed, delivered };
}

const body = (context: Record<string, unknown>) => executeBodySchema.parse({ user_id: 'alice', agent_id: 'worker', context, input: { task: 'x' } });

describe('remote execution - parts', () => {
  it('remote execution - trace_id becomes a traceparent, step_id the messageId, parent_step_id causedBy', async () => {
    const { port, signed, delivered } = fakePort({ data: { text: 'ok' }, ok: true });
    const outcome = await runExecute(port, body({ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', step_id: 'step-2', parent_step_id: 'step-1', messages: [{ role: 'user', content: 'hi' }] }), 'fix', undefined, 1_000);
    expect(outcome).toEqual({ ok: true, result: { text: 'ok' }, updatedContext: { messages: [{ role: 'assistant', content: 'added' }], thoughts: [], usage: [] } });
    expect(signed[0]).toMatchObject({ messageId: 'step-2', causedBy: 'step-1', capability: 'fix', payload: { task: 'x' }, from: 'agent://execute-api' });
    expect(signed[0]!.headers![EXECUTE_USER_HEADER]).toBe('alice');
    expect(signed[0]!.headers!.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(delivered[0]!.execution!.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('remote execution - a handler error keeps its code and gets a documented status', async () => {
    const { port } = fakePort({ error: { code: 'EAGENTRPC_AGENT_MAX_ITERATIONS', message: 'no answer', retriable: false }, ok: false });
    const outcome = await runExecute(port, body({}), 'fix', undefined, 1_000);
    expect(outcome).toMatchObject({ ok: false, status: 422, error: { code: 'EAGENTRPC_AGENT_MAX_ITERATIONS' } });
    expect([statusOf('EAGENTRPC_DEADLINE_EXCEEDED'), statusOf('EAGENTRPC_GUARD_REJECTED'), statusOf('EAGENTRPC_HANDLER_FAILED')]).toEqual([504, 429, 422]);
  });

  it('remote execution - inline credentials are found in component configs', () => {
    expect(inlineCredentialAt({ connection_ref: 'PROD_REDIS', key_prefix: 'p:' }, 'c')).toBeUndefined();
    expect(inlineCredentialAt({ url: 'redis://:pw@host:6379' }, 'c')).toBe('c.url');
    expect(inlineCredentialAt({ nested: { password: 'x' } }, 'c')).toBe('c.nested.password');
    expect(inlineCredentialAt({ servers: [{ access_token: 'x' }] }, 'c')).toBe('c.servers.0.access_token');
    expect(inlineCredentialAt({ url: 'redis://host:6379' }, 'c')).toBeUndefined();
  });

  it('remote execution - serializeContext sends components by reference and refuses local ones', () => {
    const base = { messages: [], thoughts: [], usage: [] };
    expect(serializeContext({ ...base, traceId: 'a'.repeat(32), store: new RedisStoreRef('PROD_REDIS') })).toEqual({
      trace_id: 'a'.repeat(32),
      messages: [],
      thoughts: [],
      usage: [],
      store: { __class__: 'agent_rpc.RedisStore', config: { connection_ref: 'PROD_REDIS' } },
    });
    expect(() => serializeContext({ ...base, store: new LocalStore('/tmp') })).toThrow(RemoteExecutionNotSupportedError);
    const leaky = { remote: true, reference: () => ({ __class__: 'agent_rpc.RedisStore', config: { password: 'x' } }) };
    expect(() => serializeContext({ ...base, store: leaky })).toThrow(TypeError);
  });
});
