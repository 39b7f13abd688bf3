import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Role, TaskState, type StreamResponse } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { silentLogger } from '../../src/logger.js';
import { startDaemon } from '../../src/runtime/daemon.js';
import { builtinPlugins } from '../../transports/plugins.js';
import { until } from '../support/fleet.js';

describe('A2A server - shutdown', () => {
  it('a2a - stopping the node declines a pending question, so the handler finishes and the task completes', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'a2a-stop-'));
    cpSync(new URL('../fixtures/config/a2a-node', import.meta.url).pathname, configDir, { recursive: true });
    const env = { ALICE_TOKEN: 'alice-stop-token', VIC_TOKEN: 'vic-stop-token', AGENT_HTTP_PORT: '0', AGENT_DATA_DIR: join(configDir, 'data'), A2A_MARKER_DIR: configDir };
    const daemon = await startDaemon(configDir, builtinPlugins, { env, logger: silentLogger });
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', 'Bearer alice-stop-token');
      return fetch(input, { ...init, headers });
    };
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(daemon.a2a!.cardUrl()!.replace('/.well-known/agent-card.json', ''));
    const message = { messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, metadata: undefined, extensions: [], referenceTaskIds: [] };
    const parts = [{ content: { $case: 'text' as const, value: 'approve: command: restart?' }, metadata: undefined, filename: '', mediaType: 'text/plain' }];
    const asked = await client.sendMessage({ tenant: '', message: { ...message, parts }, configuration: undefined, metadata: undefined });
    if (!('status' in asked)) throw new Error('expected a task');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const seen: StreamResponse[] = [];
    const subscription = (async () => {
      for await (const event of client.resubscribeTask({ tenant: '', id: asked.id })) seen.push(event);
    })();
    await until(() => seen.length > 0, 10_000);
    await daemon.stop();
    await subscription.catch(() => undefined);
    const artifact = seen.find((e) => e.payload?.$case === 'artifactUpdate')?.payload;
    expect(artifact?.$case === 'artifactUpdate' && artifact.value.artifact?.parts[0]?.content?.value).toBe('approved=false answer=');
    const last = seen.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
