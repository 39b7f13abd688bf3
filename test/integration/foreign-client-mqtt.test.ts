import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacAuth } from '../../src/auth/hmac-provider.js';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { until } from '../../src/testing/wait.js';
import { runMqtt } from '../support/mqtt-target.js';

const CLIENT = fileURLToPath(new URL('../fixtures/processes/foreign-mqtt-client.py', import.meta.url));
const mqtt = await runMqtt();
const key = randomBytes(32);
let agent: AgentNode;

beforeAll(async () => {
  const auth = hmacAuth({ keys: new Map([['fleet-1', key]]), signingKeyId: 'fleet-1' });
  agent = new AgentNode({ id: 'echoer', transports: [await mqtt.transport({ clientId: `echoer-${randomUUID()}` })], auth });
  agent.handle('echo', (input) => ({ echoed: input }));
  await agent.start();
});
afterAll(() => agent?.close());

describe('foreign client - a Python (paho-mqtt) client written from docs/transports/mqtt.md calls an agent over Mosquitto', () => {
  it('foreign client mqtt - a signed request published with MQTT 5 content-type properties is answered; the same bytes published again are refused as replayed', async () => {
    const { hostname, port } = new URL(mqtt.url);
    const run = await promisify(execFile)('/usr/bin/python3', [CLIENT, hostname, port, mqtt.topicPrefix, 'echoer', 'fleet-1', key.toString('hex')], { timeout: 60_000 });
    const [signed, replayed] = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(signed).toEqual({ case: 'signed', answered: true, payload: { data: { echoed: { text: 'héllo ✓ from paho' } }, ok: true } });
    expect(replayed).toMatchObject({ case: 'replayed', answered: true, payload: { ok: false, error: { code: 'EAGENTRPC_AUTH_REJECTED', details: { reason: 'replayed' } } } });
    await until(async () => (await agent.dlq.list()).length > 0);
    expect((await agent.dlq.list()).map((record) => [record.kind, record.reason])).toEqual([['auth-rejected', 'replayed']]);
  });
});
