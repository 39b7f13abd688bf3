import { describe, expect, it } from 'vitest';
import { costUsd, modelsConfigSchema, resolveModelId, type ModelConfig } from '../../src/model-agents/models/index.js';

/** Each issue as `path: message`, the path as zod reports it. */
function issues(input: unknown): Array<{ path: PropertyKey[]; message: string }> {
  const result = modelsConfigSchema.safeParse(input);
  expect(result.success).toBe(false);
  return result.success ? [] : result.error.issues.map(({ path, message }) => ({ path, message }));
}

const openai = { id: 'gpt', provider: 'openai', model: 'gpt-5', apiKeyRef: '${env:OPENAI_API_KEY}' };
const claude = { id: 'claude', provider: 'anthropic', model: 'claude-sonnet-4-5', apiKeyRef: 'secret://anthropic-key' };
const local = { id: 'local', provider: 'openai-compatible', model: 'llama3', baseUrl: 'http://127.0.0.1:11434/v1/' };

function model(id: string, extra: Partial<ModelConfig> = {}): ModelConfig {
  return { id, provider: 'openai', model: 'm', apiKeyRef: '${env:K}', timeoutMs: 120_000, maxRetries: 2, ...extra };
}

describe('models config', () => {
  it('models config - accepts the three providers and applies the defaults', () => {
    const parsed = modelsConfigSchema.parse([
      { ...openai, pricing: { inputPer1M: 1.25, outputPer1M: 10, cachedInputPer1M: 0.125 }, default: true },
      { ...claude, maxOutputTokens: 8192, timeoutMs: 60_000, maxRetries: 0 },
      local,
    ]);
    expect(parsed[0]).toEqual({ ...openai, pricing: { inputPer1M: 1.25, outputPer1M: 10, cachedInputPer1M: 0.125 }, default: true, timeoutMs: 120_000, maxRetries: 2 });
    expect(parsed[1]).toMatchObject({ provider: 'anthropic', maxOutputTokens: 8192, timeoutMs: 60_000, maxRetries: 0 });
    // No key is fine for a local server; a trailing slash is dropped.
    expect(parsed[2]).toEqual({ ...local, baseUrl: 'http://127.0.0.1:11434/v1', timeoutMs: 120_000, maxRetries: 2 });
  });

  it('models config - openai-compatible without baseUrl is refused naming the field', () => {
    expect(issues([{ id: 'local', provider: 'openai-compatible', model: 'llama3' }])).toEqual([
      { path: [0, 'baseUrl'], message: 'is required when provider is openai-compatible' },
    ]);
  });

  it('models config - openai and anthropic need an apiKeyRef, and an inline key is refused without being echoed', () => {
    expect(issues([{ id: 'gpt', provider: 'openai', model: 'gpt-5' }])).toEqual([{ path: [0, 'apiKeyRef'], message: 'is required when provider is openai' }]);
    const inline = issues([{ ...claude, apiKeyRef: 'sk-ant-not a reference' }]);
    expect(inline.map((issue) => issue.path)).toEqual([[0, 'apiKeyRef']]);
    expect(JSON.stringify(inline)).not.toContain('sk-ant');
  });

  it('models config - bad ids, providers, URLs, prices and retries are refused naming the field', () => {
    const found = issues([
      { ...openai, id: '-gpt' },
      { ...openai, id: 'b', provider: 'azure' },
      { ...local, id: 'c', baseUrl: 'ftp://example.com' },
      { ...openai, id: 'd', pricing: { inputPer1M: -1, outputPer1M: 1 } },
      { ...openai, id: 'e', pricing: { inputPer1M: 1, outputPer1M: 1, perRequest: 2 } },
      { ...openai, id: 'f', maxRetries: 11 },
      { ...openai, id: 'g', timeoutMs: 1.5 },
      { ...openai, id: 'h', model: '' },
    ]);
    expect(found.map((issue) => issue.path)).toEqual([
      [0, 'id'],
      [1, 'provider'],
      [2, 'baseUrl'],
      [3, 'pricing', 'inputPer1M'],
      [4, 'pricing'],
      [5, 'maxRetries'],
      [6, 'timeoutMs'],
      [7, 'model'],
    ]);
  });

  it('models config - duplicate ids and a second default are refused with the index path', () => {
    expect(issues([openai, { ...claude, id: 'gpt' }])).toEqual([{ path: [1, 'id'], message: 'gpt is listed twice' }]);
    expect(issues([{ ...openai, default: true }, claude, { ...local, default: true }])).toEqual([
      { path: [2, 'default'], message: 'only one model may be the default; models[0] already is' },
    ]);
  });
});

describe('models config - resolveModelId', () => {
  const a = model('a');
  const b = model('b', { default: true });
  const c = model('c');

  it('models config - a named model resolves to its entry, an unknown one lists the known ids', () => {
    expect(resolveModelId('c', [a, b, c])).toEqual({ ok: true, model: c });
    const unknown = resolveModelId('z', [a, b, c]);
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.problem).toBe('no model z; the models are a, b, c');
    expect(resolveModelId('z', [])).toEqual({ ok: false, problem: 'no model z: agent.yaml lists no models' });
  });

  it('models config - without a name, the default: true model, else the only one', () => {
    expect(resolveModelId(undefined, [a, b, c])).toEqual({ ok: true, model: b });
    expect(resolveModelId(undefined, [c])).toEqual({ ok: true, model: c });
  });

  it('models config - without a name, several models and no default, or none at all, is a problem', () => {
    const several = resolveModelId(undefined, [a, c]);
    expect(several.ok).toBe(false);
    expect(!several.ok && several.problem).toMatch(/2 models are configured \(a, c\) and none is the default: set default: true on one of them, or name the model/);
    expect(resolveModelId(undefined, [])).toEqual({ ok: false, problem: 'no model is configured: add one to agent.yaml models' });
  });
});

describe('models config - pricing', () => {
  const usage = { inputTokens: 1_000_000, outputTokens: 200_000, cachedInputTokens: 600_000 };

  it('pricing - cached input tokens are billed at cachedInputPer1M, the rest of the input at inputPer1M', () => {
    // 400k × $2 + 600k × $0.5 + 200k × $8, per million.
    expect(costUsd(usage, { inputPer1M: 2, outputPer1M: 8, cachedInputPer1M: 0.5 })).toBeCloseTo(0.8 + 0.3 + 1.6, 10);
  });

  it('pricing - without a cached price every input token is billed at inputPer1M; without pricing the cost is 0', () => {
    expect(costUsd(usage, { inputPer1M: 2, outputPer1M: 8 })).toBeCloseTo(2 + 1.6, 10);
    expect(costUsd(usage)).toBe(0);
  });
});
