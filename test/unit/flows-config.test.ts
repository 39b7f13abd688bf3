import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { builtinPlugins } from '../../transports/plugins.js';

const FIXTURE = new URL('../fixtures/config/reviewer', import.meta.url).pathname;
const env = { REVIEWER_DATA_DIR: '/var/lib/reviewer' };

function withFlows(flows: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'flows-config-'));
  cpSync(FIXTURE, dir, { recursive: true });
  writeFileSync(join(dir, 'agent.yaml'), `${readFileSync(join(dir, 'agent.yaml'), 'utf8')}\nflows: ${flows}\n`);
  return dir;
}

describe('flows config', () => {
  it('flows config - defaults fill what agent.yaml leaves out', async () => {
    const config = await loadAgentConfig(withFlows('{ view: true, retain: { flows: 50 } }'), builtinPlugins, env);
    expect((config.agent.value as Record<string, unknown>).flows).toEqual({
      record: true,
      publish: false,
      view: true,
      topic: 'agents.flows',
      retain: { flows: 50, maxAgeMs: 3_600_000, callsPerFlow: 500 },
      sampleRatio: 1,
    });
  });

  it('flows config - unknown fields and out-of-range values name the file, line and field', async () => {
    for (const [flows, field] of [
      ['{ publsh: true }', 'flows'],
      ['{ sampleRatio: 2 }', 'flows.sampleRatio'],
      ['{ retain: { maxAgeMs: 10 } }', 'flows.retain.maxAgeMs'],
      ['{ topic: "a topic" }', 'flows.topic'],
    ] as const) {
      const error = await loadAgentConfig(withFlows(flows), builtinPlugins, env).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(new RegExp(`agent\\.yaml:\\d+: ${field.replace('.', '\\.')}`));
    }
  });
});
