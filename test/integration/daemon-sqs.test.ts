import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { copyEchoFixtureOn } from '../support/echo-fixture.js';
import { runCliProcess } from '../support/run-cli-process.js';
import { runSqs } from '../support/sqs-target.js';

const sqs = await runSqs();
const configDir = mkdtempSync(join(tmpdir(), 'daemon-sqs-'));
let env: NodeJS.ProcessEnv;
let daemon: DaemonProcess;

// capabilities.yaml and rpc-peers.yaml as a user writes them for SQS: the secret key by reference.
const transport = `sqs: { endpoint: "\${env:SQS_ENDPOINT}", region: elasticmq, queuePrefix: ${sqs.queuePrefix}, waitTimeSeconds: 1, credentials: { accessKeyId: agent-rpc, secretAccessKeyRef: "\${env:SQS_SECRET_KEY}" } }`;

beforeAll(async () => {
  copyEchoFixtureOn(configDir, transport, 'sqs');
  env = { SQS_ENDPOINT: sqs.endpoint, SQS_SECRET_KEY: 'agent-rpc', AGENT_DATA_DIR: join(configDir, 'data'), AGENT_HTTP_PORT: '0' };
  daemon = await DaemonProcess.start(configDir, env, await freePort());
}, 180_000);
afterAll(async () => {
  daemon?.signal('SIGTERM');
  await daemon?.exited;
}, 60_000);

describe('agent-rpc serve and the operator commands, on SQS (ElasticMQ)', () => {
  it('daemon sqs - call, rpc peers --verify and dlq list from capabilities.yaml and rpc-peers.yaml', async () => {
    const call = await runCliProcess(['call', 'agent://echo-agent', 'echo', '--payload', '{"over":"sqs"}', '--timeout', '30000', '--config', configDir], env);
    expect(JSON.parse(call.stdout)).toMatchObject({ status: 'ok', response: { over: 'sqs' } });
    const peers = await runCliProcess(['rpc', 'peers', '--verify', '--timeout', '30000', '--json', '--config', configDir], env);
    expect(JSON.parse(peers.stdout)).toMatchObject({ id: 'agent://echo-agent', transports: 'sqs', verify: { ok: true } });
    const unknown = await runCliProcess(['call', 'agent://echo-agent', 'nope', '--timeout', '30000', '--config', configDir], env);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_UNKNOWN_CAPABILITY' } });
    const dlq = await runCliProcess(['dlq', 'list', '--json', '--config', configDir], env);
    expect(dlq.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual(['unknown-capability']);
  }, 120_000);
});
