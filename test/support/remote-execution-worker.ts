import type { ExecutionContext } from '../../src/remote-nodes/remote-execution-context.js';
import type { RemoteNode } from '../../src/remote-nodes/remote-node.js';
import { SecretValue } from '../../src/secrets/secret-value.js';
import { API_TOKEN, type ModelDaemonSpec } from './model-daemons.js';

// The worker's Redis credentials: its connection URL carries a password (the run's Redis
// accepts any for its default user), which must never appear in what the executor sends.
export const REDIS_PASSWORD = 'redis-pw-6d1e0b';

/** The run's Redis URL with the worker's credentials in it. */
export function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.username = 'default';
  parsed.password = REDIS_PASSWORD;
  return parsed.toString();
}

/** The worker: one model agent `fix` (think, and the shared store when named), its Redis by reference. */
export function workerSpec(redisUrl: string, extra = ''): ModelDaemonSpec {
  return {
    id: 'worker',
    capabilitiesYaml: `  - name: fix
    inputSchema: { type: object, properties: { task: { type: string } }, required: [task] }
`,
    env: { WORKER_REDIS_URL: redisUrl },
    agentYaml: `handlers:
  fix:
    type: agent
    agent: { tools: { enabled: [think] } }
    messages: [{ role: user, content: "Task: \${input.task}" }]
session: { capability: fix }
execute:
  connections: { SHARED_REDIS: { urlRef: "\${env:WORKER_REDIS_URL}" } }
${extra}`,
  };
}

/** The worker as a remote node of the executor. */
export function nodeAt(url: string, timeoutMs = 30_000): RemoteNode {
  return { name: 'build-farm', description: 'worker', apiBaseUrl: url, authType: 'token', authToken: new SecretValue(API_TOKEN), skipTlsVerify: false, timeoutMs, source: 'config' };
}

/** An executor's context after an earlier step: one message, one thought. */
export function freshContext(): ExecutionContext {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    stepId: `step-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`,
    parentStepId: 'step-analyze',
    messages: [{ role: 'user', content: 'Earlier step: the config lives at /etc/app.yaml.' }],
    thoughts: ['the executor already looked'],
    usage: [],
  };
}

/** A raw POST to the worker with the operator token. */
export async function postJson(port: number, path: string, body: unknown): Promise<{ status: number; body: { error?: unknown; handler_id?: string } }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error?: unknown; handler_id?: string } };
}
