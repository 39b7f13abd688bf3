import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CapabilitySchema } from '../../src/rpc/capability-schemas.js';
import { MemoryFleet } from '../support/fleet.js';

const reviewPr: CapabilitySchema = {
  name: 'review-pr',
  inputSchema: { type: 'object', required: ['prUrl'], properties: { prUrl: { type: 'string' }, files: { type: 'array', items: { type: 'string' } } }, additionalProperties: false },
  outputSchema: { type: 'object', required: ['findings'], properties: { findings: { type: 'array', items: { type: 'string' } } } },
};

let fleet: MemoryFleet;
beforeEach(() => {
  fleet = new MemoryFleet();
});
afterEach(() => fleet.close());

async function reviewer(output: unknown = { findings: ['ok'] }) {
  const node = await fleet.node('reviewer', { capabilities: [reviewPr] });
  let runs = 0;
  node.handle('review-pr', () => {
    runs++;
    return output;
  });
  return { node, runs: () => runs };
}

describe('capability schemas', () => {
  it('schemas - a conforming call passes both ways', async () => {
    await reviewer();
    const caller = await fleet.node('caller');
    expect(await caller.requestAgent({ to: 'reviewer', capability: 'review-pr', payload: { prUrl: 'pull/7', files: ['a.ts'] } })).toMatchObject({ status: 'ok', response: { findings: ['ok'] } });
  });

  it('schemas - a bad input is refused before dispatch with the JSON pointer, and kept in the DLQ', async () => {
    const { node, runs } = await reviewer();
    const caller = await fleet.node('caller');
    const result = await caller.requestAgent({ to: 'reviewer', capability: 'review-pr', payload: { prUrl: 'pull/7', files: ['a.ts', 42] } });
    expect(result.status).toBe('schema-violation');
    expect(result.error).toMatchObject({ code: 'EAGENTRPC_SCHEMA_VIOLATION', details: { direction: 'input', pointer: '/files/1', capability: 'review-pr' } });
    expect(runs()).toBe(0);
    expect((await node.dlq.list()).map((r) => [r.kind, r.reason])).toEqual([['schema-violation', 'input']]);
  });

  it('schemas - a result that breaks the output schema reaches the caller as a violation, not as success', async () => {
    await reviewer({ findings: 'all good' });
    const caller = await fleet.node('caller');
    const result = await caller.requestAgent({ to: 'reviewer', capability: 'review-pr', payload: { prUrl: 'pull/7' } });
    expect(result).toMatchObject({ status: 'schema-violation', error: { details: { direction: 'output', pointer: '/findings' } } });
  });

  it('schemas - the caller checks against the schema the peer publishes and sends nothing when it fails', async () => {
    const { runs } = await reviewer();
    const caller = await fleet.node('caller');
    expect(await caller.learnPeerCapabilities('reviewer')).toEqual(['review-pr']);
    const result = await caller.requestAgent({ to: 'reviewer', capability: 'review-pr', payload: { url: 'pull/7' } });
    expect(result).toMatchObject({ status: 'schema-violation', error: { details: { direction: 'input', pointer: '/' } } });
    expect(result.messageId).toBeUndefined();
    expect(runs()).toBe(0);
  });

  it('schemas - $ping answers on every agent', async () => {
    await reviewer();
    const caller = await fleet.node('caller');
    expect(await caller.requestAgent({ to: 'reviewer', capability: '$ping', payload: null })).toMatchObject({ status: 'ok', response: { agent: 'agent://reviewer' } });
  });

  it('schemas - an invalid JSON Schema is refused when the agent is built, naming the capability', async () => {
    await expect(fleet.node('broken', { capabilities: [{ name: 'x', inputSchema: { type: 'no-such-type' } }] })).rejects.toThrow(/agent broken: x\.inputSchema is not a valid JSON Schema/);
  });
});
