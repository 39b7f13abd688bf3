import { AgentCard, Role, type Message, type Part } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { buildAgentCard, CAPABILITY_SCHEMAS_EXTENSION } from '../../src/a2a/server/agent-card.js';
import { callTargetOf, resultParts } from '../../src/a2a/server/a2a-parts.js';
import { callerContextOf } from '../../src/a2a/server/caller-context.js';
import { encodeFlowState, FLOW_HEADER } from '../../src/guard/flow-state.js';
import { publicBaseUrl } from '../../src/runtime/public-base-url.js';
import type { CapabilityConfig } from '../../src/config/capabilities-file.js';

const capabilities: CapabilityConfig[] = [
  { name: 'review-pr', description: 'Reviews a pull request.', idempotent: false, inputSchema: { type: 'object', required: ['prUrl'] }, outputSchema: { type: 'object' } },
  { name: 'chat', description: '', idempotent: true },
];

describe('A2A agent card', () => {
  it('a2a card - one skill per capability, schemas in the extension, bearer security, streaming, 1.0 and 0.3 interfaces', () => {
    const card = buildAgentCard({ agentId: 'pr-reviewer', capabilities, defaultCapability: 'chat', url: 'https://node.example/a2a/pr-reviewer', version: '1.2.3' });
    expect(card.name).toBe('pr-reviewer');
    expect(card.version).toBe('1.2.3');
    expect(card.skills.map((s) => [s.id, s.name, s.inputModes])).toEqual([
      ['review-pr', 'review-pr', ['application/json']],
      ['chat', 'chat', ['application/json', 'text/plain']],
    ]);
    expect(card.skills[0]!.description).toBe('Reviews a pull request.');
    expect(card.skills[1]!.description).not.toBe('');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.capabilities?.extensions).toEqual([
      expect.objectContaining({ uri: CAPABILITY_SCHEMAS_EXTENSION, required: false, params: { 'review-pr': { inputSchema: capabilities[0]!.inputSchema, outputSchema: capabilities[0]!.outputSchema } } }),
    ]);
    expect(card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion])).toEqual([
      ['https://node.example/a2a/pr-reviewer', 'JSONRPC', '1.0'],
      ['https://node.example/a2a/pr-reviewer', 'JSONRPC', '0.3'],
    ]);
    const wire = AgentCard.toJSON(card) as Record<string, any>;
    expect(wire['securitySchemes']).toEqual({ bearer: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'Bearer' }) } });
    expect(Object.keys(wire['securityRequirements'][0].schemes)).toEqual(['bearer']);
    expect(card.defaultInputModes).toEqual(['application/json', 'text/plain']);
  });

  it('a2a card - without a default capability text is not an input mode and no schemas mean no extension', () => {
    const card = buildAgentCard({ agentId: 'a', capabilities: [capabilities[1]!], url: 'http://127.0.0.1:1/a2a/a', version: '0.1.0' });
    expect(card.defaultInputModes).toEqual(['application/json']);
    expect(card.capabilities?.extensions).toEqual([]);
  });
});

const message = (...parts: Part[]): Message => ({ messageId: 'm', contextId: '', taskId: '', role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] });
const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
const agent = { capabilities: new Set(['review-pr', 'chat']), defaultCapability: 'chat' };

describe('A2A message parts', () => {
  it('a2a parts - a data part naming a capability calls it; text calls the default capability as {message}', () => {
    expect(callTargetOf(message(text('hi'), data({ capability: 'review-pr', input: { prUrl: 'x' } })), agent)).toEqual({ capability: 'review-pr', payload: { prUrl: 'x' } });
    expect(callTargetOf(message(text('hi'), text('there')), agent)).toEqual({ capability: 'chat', payload: { message: 'hi\nthere' } });
    expect(callTargetOf(message(data({ topic: 1 })), agent)).toEqual({ capability: 'chat', payload: { topic: 1 } });
  });

  it('a2a parts - an unknown capability, no default, or nothing to send are refused with a reason', () => {
    expect(callTargetOf(message(data({ capability: 'refund' })), agent)).toMatchObject({ code: 'EAGENTRPC_UNKNOWN_CAPABILITY' });
    expect(callTargetOf(message(text('hi')), { capabilities: agent.capabilities })).toMatchObject({ code: 'EAGENTRPC_UNKNOWN_CAPABILITY' });
    expect(callTargetOf(message(), agent)).toHaveProperty('malformed');
  });

  it('a2a parts - metadata skillId (what the a2a transport sends) names the capability; a naming data part still wins', () => {
    const withSkill = (skillId: string, ...parts: Part[]): Message => ({ ...message(...parts), metadata: { skillId } });
    expect(callTargetOf(withSkill('review-pr', data({ prUrl: 'x' })), agent)).toEqual({ capability: 'review-pr', payload: { prUrl: 'x' } });
    expect(callTargetOf(withSkill('review-pr', text('hi')), agent)).toEqual({ capability: 'review-pr', payload: { message: 'hi' } });
    expect(callTargetOf(withSkill('review-pr', data({ capability: 'chat', input: {} })), agent)).toEqual({ capability: 'chat', payload: {} });
    expect(callTargetOf(withSkill('refund', text('hi')), agent)).toMatchObject({ code: 'EAGENTRPC_UNKNOWN_CAPABILITY' });
  });

  it('a2a caller context - a carried flow is taken as is, a bare UUID correlationId kept, a deadline only shortens; a malformed flow is refused', () => {
    const state = encodeFlowState({ startedAt: 1, chain: ['alpha', 'beta'], calls: 1, recent: [1] });
    const flow = { correlationId: '01a20bed-ef43-72c0-9b9f-16faff109f81', causedBy: 'req-1', state };
    const withMetadata = (metadata: Record<string, unknown>): Message => ({ ...message(text('hi')), metadata });
    expect(callerContextOf(withMetadata({ agentRpcFlow: flow, deadline: 500 }), 1_000)).toEqual({ correlationId: flow.correlationId, causedBy: 'req-1', deadline: 500, headers: { [FLOW_HEADER]: state } });
    expect(callerContextOf(withMetadata({ correlationId: flow.correlationId, deadline: 5_000 }), 1_000)).toEqual({ correlationId: flow.correlationId, deadline: 1_000, headers: {} });
    expect(callerContextOf(withMetadata({ correlationId: 'not-a-uuid' }), 1_000)).toEqual({ deadline: 1_000, headers: {} });
    expect(callerContextOf(withMetadata({ agentRpcFlow: { ...flow, state: 'garbage' } }), 1_000)).toHaveProperty('malformed');
  });

  it('a2a parts - a string result is text; JSON is a data part, led by its text field when it has one', () => {
    expect(resultParts('ok').map((p) => p.content)).toEqual([{ $case: 'text', value: 'ok' }]);
    expect(resultParts({ sum: 5 }).map((p) => p.content)).toEqual([{ $case: 'data', value: { sum: 5 } }]);
    expect(resultParts({ text: 'done', n: 1 }).map((p) => p.content)).toEqual([
      { $case: 'text', value: 'done' },
      { $case: 'data', value: { text: 'done', n: 1 } },
    ]);
  });

  it('a2a base url - http.publicUrl wins; an any-address bind names the loopback', () => {
    expect(publicBaseUrl('https://agents.example/node-1/', '0.0.0.0', 9464)).toBe('https://agents.example/node-1');
    expect(publicBaseUrl(undefined, '0.0.0.0', 9464)).toBe('http://127.0.0.1:9464');
    expect(publicBaseUrl(undefined, '10.0.0.5', 80)).toBe('http://10.0.0.5:80');
    expect(publicBaseUrl(undefined, '::1', 8080)).toBe('http://[::1]:8080');
  });
});
