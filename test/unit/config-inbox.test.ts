import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentConfig } from '../../src/config/agent-config.js';
import { ConfigError } from '../../src/yaml/config-error.js';
import { builtinPlugins } from '../../transports/plugins.js';

const FIXTURE = new URL('../fixtures/config/reviewer', import.meta.url).pathname;
const env = { REVIEWER_DATA_DIR: '/var/lib/reviewer' };

const source = (id: string, extra = ''): string => `  - id: ${id}\n    type: agent-inbox\n    agentId: pr-reviewer\n${extra}`;

/** The fixture with these event sources (and, optionally, capabilities.yaml topics). */
function withSources(sources: string, topics?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-config-'));
  cpSync(FIXTURE, dir, { recursive: true });
  writeFileSync(join(dir, 'event-sources.yaml'), `version: 1\nsources:\n${sources}`);
  if (topics !== undefined) {
    const capabilities = join(dir, 'capabilities.yaml');
    writeFileSync(capabilities, readFileSync(capabilities, 'utf8').replace('capabilities:\n', `topics: ${topics}\ncapabilities:\n`));
  }
  return dir;
}

async function configError(dir: string): Promise<ConfigError> {
  const error = await loadAgentConfig(dir, builtinPlugins, env).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('config - the inbox', () => {
  it('config - every source is read: what several sources set is one inbox setting', async () => {
    const config = await loadAgentConfig(
      withSources(`${source('a', '    requestsTopic: reviews.in\n')}${source('b', '    idempotency: { strategy: transport-natural, store: sqlite }\n    limits: { maxInflight: 32 }\n')}`),
      builtinPlugins,
      env,
    );
    expect(config.inbox).toEqual({ topics: { requests: 'reviews.in' }, concurrency: 16, maxInflight: 32, idempotency: { strategy: 'transport-natural', store: 'sqlite' } });
  });

  it('config - topics live in capabilities.yaml; a source may repeat them, in agreement', async () => {
    const config = await loadAgentConfig(withSources(source('a', '    requestsTopic: reviews.in\n'), '{ requests: reviews.in, events: reviews.events }'), builtinPlugins, env);
    expect(config.inbox.topics).toEqual({ requests: 'reviews.in', events: 'reviews.events' });
  });

  it.each([
    ['a topic that capabilities.yaml sets otherwise', withSources(source('a', '    requestsTopic: other.in\n'), '{ requests: reviews.in }'), { line: 6, field: 'sources[0].requestsTopic' }],
    ['a limit that agent.yaml sets otherwise', withSources(source('a', '    limits: { concurrency: 8 }\n')), { line: 6, field: 'sources[0].limits.concurrency' }],
    [
      'two sources with different dedupe',
      withSources(`${source('a', '    idempotency: { store: sqlite }\n')}${source('b', '    idempotency: { store: memory }\n')}`),
      { line: 10, field: 'sources[1].idempotency' },
    ],
    ['two sources with different topics', withSources(`${source('a', '    eventsTopic: x\n')}${source('b', '    eventsTopic: y\n')}`), { line: 10, field: 'sources[1].eventsTopic' }],
    ['a source id listed twice', withSources(`${source('a')}${source('a')}`), { line: 6, field: 'sources[1].id' }],
  ])('config - %s is an error naming file, line and field', async (_case, dir, expected) => {
    const error = await configError(dir);
    expect(error).toMatchObject({ file: join(dir, 'event-sources.yaml'), ...expected });
  });

  it('config - a conflict names where the other value is', async () => {
    const dir = withSources(source('a', '    limits: { concurrency: 8 }\n'));
    expect((await configError(dir)).message).toContain(`${join(dir, 'agent.yaml')}:10 limits.concurrency is 16`);
  });
});
