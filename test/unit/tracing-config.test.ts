import { appendFileSync, cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { builtinPlugins } from '../../transports/plugins.js';

const FIXTURE = new URL('../fixtures/config/reviewer', import.meta.url).pathname;
const env = { REVIEWER_DATA_DIR: '/var/lib/reviewer' };

/** The fixture with `lines` appended to agent.yaml. */
function withAgentYaml(lines: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tracing-config-'));
  cpSync(FIXTURE, dir, { recursive: true });
  appendFileSync(join(dir, 'agent.yaml'), lines);
  return dir;
}

describe('config - tracing', () => {
  it('config - tracing: exporter and endpoint as written, sampleRatio defaulting to 1, snake_case aliases accepted', async () => {
    const zipkin = await loadAgentConfig(withAgentYaml('tracing: { exporter: zipkin, endpoint: "http://127.0.0.1:9411/api/v2/spans" }\n'), builtinPlugins, env);
    expect(zipkin.agent.value.tracing).toEqual({ exporter: 'zipkin', endpoint: 'http://127.0.0.1:9411/api/v2/spans', sampleRatio: 1 });
    const otlp = await loadAgentConfig(withAgentYaml('tracing: { exporter: otlp, sample_ratio: 0.25, service_name: reviewers }\n'), builtinPlugins, env);
    expect(otlp.agent.value.tracing).toEqual({ exporter: 'otlp', sampleRatio: 0.25, serviceName: 'reviewers' });
    const none = await loadAgentConfig(FIXTURE, builtinPlugins, env);
    expect(none.agent.value.tracing).toBeUndefined();
  });

  it.each([
    ['an unknown exporter', 'tracing: { exporter: jaeger }\n', 'tracing.exporter'],
    ['a ratio above 1', 'tracing: { exporter: otlp, sampleRatio: 1.5 }\n', 'tracing.sampleRatio'],
    ['an endpoint that is not an http URL', 'tracing: { exporter: zipkin, endpoint: "ftp://host/spans" }\n', 'tracing.endpoint'],
    ['an unknown field', 'tracing: { exporter: zipkin, batchSize: 10 }\n', 'tracing'],
  ])('config - tracing: %s is refused naming the file and field', async (_case, yaml, field) => {
    const dir = withAgentYaml(yaml);
    const error = await loadAgentConfig(dir, builtinPlugins, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe(join(dir, 'agent.yaml'));
    expect((error as ConfigError).field).toBe(field);
  });
});
