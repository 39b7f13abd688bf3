import { describe, expect, it } from 'vitest';
import { messagingAttributes, messagingSpanName, modelRequestAttributes, modelUsageAttributes, toolCallAttributes } from '../../src/observability/tracing/attributes.js';

const message = { capability: 'review-pr', from: 'agent://a', to: 'agent://b', correlationId: 'c-1', messageId: 'm-1', kind: 'request' };

describe('tracing - attributes', () => {
  it('tracing - messaging spans are named operation + destination and carry the semantic-convention attributes', () => {
    expect(messagingSpanName('send', 'agents.b.requests')).toBe('send agents.b.requests');
    expect(messagingAttributes('process', 'nats', 'agents.b.requests', message)).toEqual({
      'messaging.system': 'nats',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': 'agents.b.requests',
      'messaging.message.id': 'm-1',
      'messaging.message.conversation_id': 'c-1',
      'peer.service': 'a',
      'agent_rpc.capability': 'review-pr',
      'agent_rpc.from': 'agent://a',
      'agent_rpc.to': 'agent://b',
      'agent_rpc.kind': 'request',
    });
  });

  it('tracing - a call not yet built has no message id or kind', () => {
    const attributes = messagingAttributes('send', 'memory', 'agents.b.requests', { capability: 'x', from: 'agent://a', to: 'agent://b', correlationId: 'c' });
    expect(attributes).not.toHaveProperty('messaging.message.id');
    expect(attributes).not.toHaveProperty('agent_rpc.kind');
    // The peer of a send is the callee.
    expect(attributes['peer.service']).toBe('b');
  });

  it('tracing - messaging spans name the broker as server.address and server.port when the transport has one', () => {
    const send = messagingAttributes('send', 'nats', 'agents.b.requests', message, { address: 'nats-1.internal', port: 4222 });
    expect(send).toMatchObject({ 'server.address': 'nats-1.internal', 'server.port': 4222, 'messaging.destination.name': 'agents.b.requests' });
    expect(messagingAttributes('process', 'mqtt', 'agents.b.requests', message, { address: '::1', port: undefined })).not.toHaveProperty('server.port');
    const memory = messagingAttributes('process', 'memory', 'agents.b.requests', message, undefined);
    expect(memory).not.toHaveProperty('server.address');
    expect(memory).not.toHaveProperty('server.port');
  });

  it('tracing - model requests carry gen_ai model and token attributes and the cost; cached tokens only when there are some', () => {
    expect(modelRequestAttributes('fast', 'openai', 'gpt-x')).toEqual({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-x', 'agent_rpc.model.id': 'fast' });
    expect(modelUsageAttributes({ inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 }, 0.0001, 'stop')).toEqual({
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
      'agent_rpc.cost_usd': 0.0001,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(modelUsageAttributes({ inputTokens: 10, outputTokens: 5, cachedInputTokens: 4 }, 0, undefined)).toEqual({
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
      'agent_rpc.cost_usd': 0,
      'agent_rpc.usage.cached_input_tokens': 4,
    });
  });

  it('tracing - tool calls are execute_tool with the tool name and call id', () => {
    expect(toolCallAttributes('think', 'call_1')).toEqual({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'think', 'gen_ai.tool.call.id': 'call_1' });
  });
});
