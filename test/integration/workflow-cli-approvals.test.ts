import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentNode } from '../../src/rpc/agent-node.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing/scripted-model-server.js';
import type { WorkflowRunRecord } from '../../src/workflows/run-record.js';
import { lastToolResults } from '../support/model-requests.js';
import { runNats } from '../support/nats-target.js';
import { cliCommandLine, runCliProcess } from '../support/run-cli-process.js';

const PTY_ANSWER = fileURLToPath(new URL('../fixtures/processes/pty-answer.py', import.meta.url));
/** A run that has not ended by then hangs: the child is killed and the test fails on its exit code. */
const HANG_MS = 30_000;

let model: ScriptedModelServer;
let dir: string;
beforeEach(async () => {
  model = await startScriptedModelServer();
  dir = mkdtempSync(join(tmpdir(), 'workflow-cli-approvals-'));
  mkdirSync(join(dir, 'agent'));
  writeFileSync(
    join(dir, 'agent', 'agent.yaml'),
    `version: 1
agent: { id: runner }
log: { level: warn }
dataDir: ./data
models:
  - { id: fast, provider: openai-compatible, model: scripted-small, baseUrl: "\${env:MODEL_URL}/v1", default: true }
`,
  );
  writeFileSync(join(dir, 'agent', 'capabilities.yaml'), 'version: 1\ntransports:\n  memory: {}\ncapabilities: []\n');
});
afterEach(async () => {
  await model.close();
});

/** One model step whose bash asks (rule ask-echo, hitl) before any `echo`; safe mode is the default. */
function bashWorkflow(): string {
  const file = join(dir, 'tidy.workflow.yaml');
  writeFileSync(
    file,
    `version: 1
name: tidy
steps:
  - name: tidy
    type: agent
    agent:
      tools:
        enabled: [bash]
        bash_policy: { default_behavior: allow, deny_behavior: hitl, rules: [{ name: ask-echo, pattern: "^echo", action: deny }] }
    messages: [{ role: user, content: "Say hello with bash." }]
`,
  );
  return file;
}

const scriptBashThenAnswer = (): void => model.script({ toolCalls: [{ name: 'bash', arguments: { command: 'echo hello-from-bash' } }] }, { text: 'Done.' });
/** What the model was told of its bash call. */
const bashResult = (): string => lastToolResults(model.requests[1]!)[0] ?? '';
const run = (...extra: string[]) => runCliProcess(['run', bashWorkflow(), '--config', join(dir, 'agent'), ...extra], { MODEL_URL: model.url }, { timeoutMs: HANG_MS });

describe('workflow cli - agent-rpc run answers approvals', () => {
  it('run approvals - with --json and no terminal, a question nobody can answer is declined at once with a line on stderr and exit 1', async () => {
    scriptBashThenAnswer();
    const result = await run('--json');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/declined .*no-approver.*echo hello-from-bash/);
    expect((JSON.parse(result.stdout) as WorkflowRunRecord).status).toBe('succeeded');
    expect(bashResult()).toMatch(/declined \(no-approver\)/);
  });

  it('run approvals - without a terminal, the decline is visible and the run exits 1 even though its steps succeeded', async () => {
    scriptBashThenAnswer();
    const result = await run();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/declined .*no-approver.*echo hello-from-bash/);
    expect(result.stdout).toContain('run succeeded: 1/1 steps succeeded');
    expect(bashResult()).toMatch(/declined \(no-approver\)/);
  });

  it('run approvals - --approve approves each question: the command runs and the run exits 0', async () => {
    scriptBashThenAnswer();
    const result = await run('--approve');
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/approved \(--approve\).*echo hello-from-bash/);
    expect(bashResult()).toMatch(/^hello-from-bash\n\[exit code 0\]/);
  });

  it('run approvals - --deny declines each question: the model hears it, and the exit follows the run', async () => {
    scriptBashThenAnswer();
    const result = await run('--deny', '--json');
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/declined \(--deny\).*echo hello-from-bash/);
    expect(bashResult()).toMatch(/declined \(deny-flag\)/);
  });

  it('run approvals - --approve and --deny together are a usage error', async () => {
    const result = await run('--approve', '--deny');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--approve and --deny/);
    expect(model.requests).toHaveLength(0);
  });

  it('run approvals - on a terminal the operator is asked, with the command and the rule, and the answer decides', async () => {
    scriptBashThenAnswer();
    const args = ['run', bashWorkflow(), '--config', join(dir, 'agent')];
    const script = JSON.stringify([['approve\\? \\[y/N\\]', 'y']]);
    const { stdout } = await promisify(execFile)('python3', [PTY_ANSWER, script, String(HANG_MS / 1000), ...cliCommandLine(args)], { env: { ...process.env, MODEL_URL: model.url } });
    const terminal = JSON.parse(stdout) as { code: number; output: string; answered: number };
    expect(terminal.answered).toBe(1);
    const question = terminal.output.slice(0, terminal.output.search(/approve\? \[y\/N\]/));
    expect(question).toContain('echo hello-from-bash');
    expect(question).toContain('ask-echo');
    expect(terminal.code).toBe(0);
    expect(terminal.output).toContain('run succeeded: 1/1 steps succeeded');
    expect(bashResult()).toMatch(/^hello-from-bash\n\[exit code 0\]/);
  });

  it('run approvals - on a terminal a "n" declines the command, and the model hears it', async () => {
    scriptBashThenAnswer();
    const args = ['run', bashWorkflow(), '--config', join(dir, 'agent')];
    const script = JSON.stringify([['approve\\? \\[y/N\\]', 'n']]);
    const { stdout } = await promisify(execFile)('python3', [PTY_ANSWER, script, String(HANG_MS / 1000), ...cliCommandLine(args)], { env: { ...process.env, MODEL_URL: model.url } });
    const terminal = JSON.parse(stdout) as { code: number; output: string; answered: number };
    expect(terminal.answered).toBe(1);
    expect(terminal.code).toBe(0);
    expect(bashResult()).toMatch(/Not run: .*declined/);
    expect(bashResult()).not.toContain('hello-from-bash\n[exit code');
  });
});

describe('workflow cli - approvals asked by a peer a call step calls', () => {
  let asker: AgentNode | undefined;
  afterEach(async () => {
    await asker?.close();
    asker = undefined;
  });

  it('run approvals - a peer’s question over NATS travels up to the run, and --approve answers it', async () => {
    const nats = await runNats();
    asker = new AgentNode({ id: 'asker', transports: [await nats.transport()], peers: [] });
    asker.handle('ship', async (_payload, ctx) => {
      const answer = await ctx.requestApproval({ type: 'confirm', question: 'Ship release 1.2?' });
      return { approved: answer.approved };
    });
    await asker.start();
    writeFileSync(join(dir, 'agent', 'capabilities.yaml'), `version: 1\ntransports:\n  nats: { servers: "${nats.url}", subjectPrefix: "${nats.subjectPrefix}" }\ncapabilities: []\n`);
    writeFileSync(join(dir, 'agent', 'rpc-peers.yaml'), 'version: 1\npeers:\n  - id: agent://asker\n    transports: [{ kind: nats }]\n');
    const file = join(dir, 'ship.workflow.yaml');
    writeFileSync(file, 'version: 1\nname: ship\nsteps:\n  - name: ship\n    type: call\n    to: agent://asker\n    capability: ship\n    timeout_sec: 30\n');
    const result = await runCliProcess(['run', file, '--config', join(dir, 'agent'), '--approve', '--json'], { MODEL_URL: model.url }, { timeoutMs: HANG_MS });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/approved \(--approve\).*Ship release 1\.2\?/);
    expect((JSON.parse(result.stdout) as WorkflowRunRecord).steps[0]!.output).toEqual({ approved: true });
  });
});
