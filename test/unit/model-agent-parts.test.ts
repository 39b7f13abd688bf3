import { describe, expect, it } from 'vitest';
import { fillTemplate } from '../../src/model-agents/message-template.js';
import { outputCheck } from '../../src/model-agents/output-check.js';
import { ToolSelection, toolEntryProblem } from '../../src/model-agents/tool-selection.js';
import { peerToolName } from '../../src/model-agents/tools/peer-tools.js';
import { checkBudget, DEFAULT_GUARD_LIMITS } from '../../src/guard/guard-rules.js';
import { decodeUsage, encodeUsage, type Usage } from '../../src/flow-usage.js';
import { MASKED, SecretMasker } from '../../src/secrets/secret-masker.js';

describe('model agent parts - pure logic', () => {
  it('message template - fills ${input.<path>} from the payload; strings as they are, the rest as JSON, missing as empty', () => {
    const input = { issue: { url: 'https://git.example/7', labels: ['bug'] }, text: 'crash' };
    expect(fillTemplate('Triage ${input.issue.url}: ${input.text} ${input.issue.labels} [${input.nope}]', input)).toBe('Triage https://git.example/7: crash ["bug"] []');
    expect(fillTemplate('All: ${input}', 'plain')).toBe('All: plain');
    expect(fillTemplate('Kept: ${env:HOME} ${other}', {})).toBe('Kept: ${env:HOME} ${other}');
  });

  it('output check - parses JSON (fenced or not) and checks it against the schema, naming what is wrong', () => {
    const check = outputCheck({ type: 'object', properties: { label: { enum: ['bug', 'feature'] } }, required: ['label'] });
    expect(check.check('{"label":"bug"}')).toEqual({ ok: true, data: { label: 'bug' } });
    expect(check.check('```json\n{"label":"feature"}\n```')).toEqual({ ok: true, data: { label: 'feature' } });
    expect(check.check('a bug')).toEqual({ ok: false, problem: 'it is not valid JSON' });
    expect(check.check('{"label":"chore"}')).toMatchObject({ ok: false, problem: expect.stringContaining('/label') });
  });

  it('tool selection - enabled lists exactly; without it the built-ins and every peer; policy false removes, true adds remote tools', () => {
    const all = new ToolSelection(undefined, {});
    expect(['bash', 'read', 'patch', 'think', 'read_schema', 'web_search'].every((name) => all.has(name))).toBe(true);
    expect(all.has('remote_agent')).toBe(false);
    expect(all.hasPeer('agent://linter', 'lint')).toBe(true);
    const listed = new ToolSelection(['read', 'remote_agent', 'peer:agent://linter/*'], { remote_agent: true });
    expect([listed.has('read'), listed.has('bash'), listed.has('remote_agent')]).toEqual([true, false, true]);
    expect([listed.hasPeer('agent://linter', 'lint'), listed.hasPeer('agent://billing', 'refund')]).toEqual([true, false]);
    const policed = new ToolSelection(undefined, { bash: false, list_remote_nodes: true });
    expect([policed.has('bash'), policed.has('list_remote_nodes')]).toEqual([false, true]);
    expect(new ToolSelection(['read'], {}).hasPeer('agent://linter', 'lint')).toBe(false);
    expect(toolEntryProblem('peer:')).toMatch(/needs a glob/);
    expect(toolEntryProblem('navigate')).toMatch(/unknown tool navigate/);
    expect(toolEntryProblem('peer:agent://*/lint')).toBeUndefined();
  });

  it('peer tool names - <agent>__<capability> in the characters and length providers accept', () => {
    expect(peerToolName('agent://pr-reviewer', 'review-pr')).toBe('pr-reviewer__review-pr');
    expect(peerToolName('agent://a.b', 'x.y')).toBe('a_b__x_y');
    expect(peerToolName(`agent://${'a'.repeat(80)}`, 'c')).toHaveLength(64);
  });

  it('secret masker - cuts every known secret, longest first; short values and duplicates are ignored', () => {
    const masker = new SecretMasker();
    masker.add('abc');
    masker.add('s3cret-value');
    masker.add('s3cret-value-long');
    masker.addEnvironment({ GITHUB_TOKEN: 'ghp_123456', PATH: '/usr/bin:/bin', HOME: '/root' });
    expect(masker.mask('abc s3cret-value-long s3cret-value ghp_123456 /usr/bin:/bin')).toBe(`abc ${MASKED} ${MASKED} ${MASKED} /usr/bin:/bin`);
    expect(masker.values).toHaveLength(3);
  });

  it('usage header - round-trips; a malformed header is unknown, never guessed', () => {
    const usage: Usage = { inputTokens: 1200, outputTokens: 300, cachedInputTokens: 1000, costUsd: 0.004512, modelRequests: 3 };
    expect(decodeUsage(encodeUsage(usage))).toEqual(usage);
    expect(decodeUsage(encodeUsage({ ...usage, costUsd: 1e-9 }))?.costUsd).toBe(1e-9);
    for (const bad of ['', '2;1;1;1;0;1', '1;1;1;1;0', '1;-1;1;1;0;1', '1;1;1;1;NaN;1', '1;a;1;1;0;1']) expect(decodeUsage(bad)).toBeUndefined();
  });

  it('guard budgets - refused once the flow spent its tokens or its cost; no budget, no refusal', () => {
    expect(checkBudget({ tokens: 10_000, costUsd: 5 }, DEFAULT_GUARD_LIMITS)).toBeUndefined();
    expect(checkBudget({ tokens: 100, costUsd: 0 }, { ...DEFAULT_GUARD_LIMITS, maxTokens: 100 })).toMatchObject({ rule: 'tokens', value: 100, limit: 100 });
    expect(checkBudget({ tokens: 99, costUsd: 0.5 }, { ...DEFAULT_GUARD_LIMITS, maxTokens: 100, maxCostUsd: 0.25 })).toMatchObject({ rule: 'cost', limit: 0.25 });
  });
});
