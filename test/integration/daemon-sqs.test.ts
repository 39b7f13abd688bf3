import { describe, it } from 'vitest';
import { expectOperatorCommandsWork, serveEchoFixtureOn } from '../support/daemon-on-broker.js';
import { runSqs } from '../support/sqs-target.js';

const sqs = await runSqs();

// capabilities.yaml and rpc-peers.yaml as a user writes them for SQS: the secret key by reference.
const transport = `sqs: { endpoint: "\${env:SQS_ENDPOINT}", region: elasticmq, queuePrefix: ${sqs.queuePrefix}, waitTimeSeconds: 1, credentials: { accessKeyId: agent-rpc, secretAccessKeyRef: "\${env:SQS_SECRET_KEY}" } }`;
const served = serveEchoFixtureOn({ kind: 'sqs', transport, env: { SQS_ENDPOINT: sqs.endpoint, SQS_SECRET_KEY: 'agent-rpc' } });

describe('agent-rpc serve and the operator commands, on SQS (ElasticMQ)', () => {
  it('daemon sqs - call, rpc peers --verify and dlq list from capabilities.yaml and rpc-peers.yaml', async () => {
    await expectOperatorCommandsWork(served, 'sqs');
  }, 120_000);
});
