import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';
import { API_TOKEN, ModelDaemons } from '../support/model-daemons.js';
import { lastToolResults } from '../support/model-requests.js';

let model: ScriptedModelServer;
let daemon: DaemonProcess;
let client: Client;

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
function message(value: string, task?: Task): Message {
  return { messageId: randomUUID(), contextId: task?.contextId ?? '', taskId: task?.id ?? '', role: Role.ROLE_USER, parts: [text(value)], metadata: undefined, extensions: [], referenceTaskIds: [] };
}
async function send(value: string, task?: Task): Promise<Task> {
  const result = await client.sendMessage({ tenant: '', message: message(value, task), configuration: undefined, metadata: undefined });
  if (!('status' in result)) throw new Error('expected a task');
  return result;
}

beforeAll(async () => {
  model = await startScriptedModelServer();
  const port = await freePort();
  const { dir, env } = new ModelDaemons(model).writeConfig(
    {
      id: 'ops-desk',
      capabilitiesYaml: '  - name: assist\n    inputSchema: { type: object, properties: { message: { type: string } }, required: [message] }\n',
      agentYaml: `handlers:
  assist:
    type: agent
    agent:
      tools:
        enabled: [bash]
        bash_policy: { default_behavior: deny, deny_behavior: hitl, rules: [] }
    messages: [{ role: user, content: "\${input.message}" }]
session: { capability: assist }
`,
    },
    port,
  );
  daemon = await DaemonProcess.start(dir, env, port);
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${API_TOKEN}`);
    return fetch(input, { ...init, headers });
  };
  client = await new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(`http://127.0.0.1:${port}`);
});
afterAll(async () => {
  daemon?.signal('SIGKILL');
  await model?.close();
});

describe('A2A server - model agents', () => {
  it("a2a - a model agent's command approval is input-required; the client's next message approves it and the agent continues", async () => {
    model.script({ toolCalls: [{ name: 'bash', arguments: { command: 'echo deploying' } }] }, { text: 'Deployed.' });
    const asked = await send('deploy it');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(asked.status?.message?.parts[0]?.content?.value).toContain('echo deploying');
    expect(asked.status?.message?.metadata).toEqual({ approvalType: 'command' });
    const done = await send('yes', asked);
    expect(done.id).toBe(asked.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]!.parts[0]!.content?.value).toBe('Deployed.');
    expect(lastToolResults(model.requests[1]!)[0]).toMatch(/deploying\n\[exit code 0\]/);
  });
});
