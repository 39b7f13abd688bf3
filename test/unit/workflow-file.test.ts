import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/yaml/config-error.js';
import { loadWorkflowFile, type WorkflowLoadOptions } from '../../src/workflows/index.js';

/** The example, line for line: its snake_case names (`timeout_sec` in seconds) are aliases of the camelCase fields. */
const EXAMPLE = `# workflow.yaml
version: 1
name: fix-config
params: { DB_HOST: db.internal }
steps:
  - name: analyze
    type: agent                 # the agent handler of the previous issue, inline
    agent: { model: fast, tools: { enabled: [read, bash] } }
    messages: [{ role: user, content: "Find what is wrong with \${CONFIG_PATH}." }]
    output: ANALYSIS
  - name: review
    type: call                  # an RPC to any capability of the fleet
    to: agent://reviewer
    capability: review-text
    payload: { text: "\${ANALYSIS}" }
    output: REVIEW
    depends: [analyze]
  - name: fix
    type: agent
    worker: build-farm          # run this step on a remote worker (below)
    messages: [{ role: user, content: "Fix it to point to \${DB_HOST}. Review said: \${REVIEW}" }]
    depends: [analyze, review]
    timeout_sec: 600
`;

const OPTIONS: WorkflowLoadOptions = { params: ['CONFIG_PATH'], workers: ['build-farm'] };

function write(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'workflow-')), 'workflow.yaml');
  writeFileSync(file, text);
  return file;
}

async function loadError(text: string, options: WorkflowLoadOptions = OPTIONS): Promise<string> {
  const error = await loadWorkflowFile(write(text), options).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

/** Two independent agent steps, `a` and `b`, then whatever `extra` adds. */
function workflow(extra: string, first = ''): string {
  return `version: 1
name: w
steps:
  - name: a
    type: agent
    messages: [{ role: user, content: "one" }]
    output: A${first}
  - name: b
    type: agent
    messages: [{ role: user, content: "two" }]
${extra}`;
}

describe('workflow file', () => {
  it('workflow file - the issue\'s example loads, with defaults filled and lines known', async () => {
    const loaded = await loadWorkflowFile(write(EXAMPLE), OPTIONS);
    const { value } = loaded;
    expect(value.name).toBe('fix-config');
    expect(value.params).toEqual({ DB_HOST: 'db.internal' });
    expect(value.steps.map((step) => [step.name, step.type, step.output])).toEqual([['analyze', 'agent', 'ANALYSIS'], ['review', 'call', 'REVIEW'], ['fix', 'agent', undefined]]);
    expect(value.steps[0]).toMatchObject({ agent: { model: 'fast', tools: { enabled: ['read', 'bash'] }, maxIterations: 50, safeMode: true } });
    expect(value.steps[1]).toMatchObject({ to: 'agent://reviewer', capability: 'review-text', payload: { text: '${ANALYSIS}' }, depends: ['analyze'] });
    expect(value.steps[2]).toMatchObject({ worker: 'build-farm', timeoutMs: 600_000, agent: { maxIterations: 50 } });
    expect(loaded.lineOf(['steps', 2, 'worker'])).toBe(20);
    expect(loaded.lineOf(['steps', 2, 'timeoutMs'])).toBe(23);
  });

  it('workflow file - the camelCase fields load as they are; an alias beside its field, or a timeout over a week, is refused', async () => {
    const camel = EXAMPLE.replace('    timeout_sec: 600', '    timeoutMs: 600000\n    agentId: fixer').replace('tools: { enabled: [read, bash] } }', 'tools: { enabled: [read, bash], bashPolicy: { defaultBehavior: deny } }, maxIterations: 7, safeMode: false }');
    const { value } = await loadWorkflowFile(write(camel), OPTIONS);
    expect(value.steps[0]).toMatchObject({ agent: { maxIterations: 7, safeMode: false, tools: { bashPolicy: { defaultBehavior: 'deny', denyBehavior: 'hitl' } } } });
    expect(value.steps[2]).toMatchObject({ timeoutMs: 600_000, agentId: 'fixer' });
    expect(await loadError(EXAMPLE.replace('    timeout_sec: 600', '    timeout_sec: 600\n    timeoutMs: 1000'))).toMatch(/workflow\.yaml:23: steps\[2\]\.timeout_sec: is an alias of timeoutMs, which is also given: keep one/);
    expect(await loadError(EXAMPLE.replace('timeout_sec: 600', 'timeout_sec: 604801'))).toMatch(/workflow\.yaml:23: steps\[2\]\.timeoutMs: must be at most a week/);
  });

  it('workflow file - ${env:NAME} is expanded at load time, numbers in params become text, $$ and ${input.…} are no variables', async () => {
    const text = workflow(`    depends: [a]\n`).replace('name: w\n', 'name: w\nparams: { PORT: 5432, HOST: "${env:HOST}" }\n').replace('"two"', '"${HOST}:${PORT} $${A} ${input.x}"');
    const { value } = await loadWorkflowFile(write(text), { env: { HOST: 'db' } });
    expect(value.params).toEqual({ PORT: '5432', HOST: 'db' });
  });

  it('workflow file - an unknown step in depends names file, line and field', async () => {
    expect(await loadError(workflow(`    depends: [a, nope]\n`))).toMatch(/workflow\.yaml:11: steps\[1\]\.depends\[1\]: unknown step nope; the steps are a, b/);
  });

  it('workflow file - a cycle names the steps in it', async () => {
    const text = workflow(`    depends: [a]\n`).replace('    output: A\n', '    output: A\n    depends: [b]\n');
    expect(await loadError(text)).toMatch(/workflow\.yaml:8: steps\[0\]\.depends\[0\]: cycle: a → b → a/);
  });

  it('workflow file - a step that depends on itself is a cycle', async () => {
    expect(await loadError(workflow(`    depends: [b]\n`))).toMatch(/workflow\.yaml:11: steps\[1\]\.depends\[0\]: cycle: b → b/);
  });

  it('workflow file - an undefined variable names the string it is in', async () => {
    expect(await loadError(EXAMPLE, { workers: ['build-farm'] })).toMatch(/workflow\.yaml:9: steps\[0\]\.messages\[0\]\.content: undefined variable \$\{CONFIG_PATH\}/);
    const payload = EXAMPLE.replace('{ text: "${ANALYSIS}" }', '{ text: "${ANALYSIS}", list: [1, "$2"] }');
    expect(await loadError(payload, { ...OPTIONS, args: 1 })).toMatch(/workflow\.yaml:15: steps\[1\]\.payload\.list\[1\]: \$2 is not given: the run has 1 positional param/);
  });

  it('workflow file - an output used by a step that does not depend on its step is refused', async () => {
    expect(await loadError(EXAMPLE.replace('depends: [analyze, review]', 'depends: [analyze]'))).toMatch(
      /workflow\.yaml:21: steps\[2\]\.messages\[0\]\.content: \$\{REVIEW\} is the output of step review, which this step does not depend on: add it to depends/,
    );
  });

  it('workflow file - an output reached through another step is defined', async () => {
    const text = EXAMPLE.replace('depends: [analyze, review]', 'depends: [review]').replace('Review said:', '${ANALYSIS} Review said:');
    await expect(loadWorkflowFile(write(text), OPTIONS)).resolves.toBeDefined();
  });

  it('workflow file - a duplicate step name or output name, or an output named like a param, is refused', async () => {
    expect(await loadError(workflow('').replace('name: b', 'name: a'))).toMatch(/workflow\.yaml:8: steps\[1\]\.name: step a is already defined by steps\[0\]/);
    expect(await loadError(workflow(`    output: A\n`))).toMatch(/workflow\.yaml:11: steps\[1\]\.output: A is already the output of step a/);
    expect(await loadError(workflow(`    output: B\n`).replace('name: w\n', 'name: w\nparams: { B: x }\n'))).toMatch(/workflow\.yaml:12: steps\[1\]\.output: B is already a param/);
  });

  it('workflow file - an unknown worker is refused when the workers are known', async () => {
    expect(await loadError(EXAMPLE, { params: ['CONFIG_PATH'], workers: ['gpu'] })).toMatch(/workflow\.yaml:20: steps\[2\]\.worker: unknown worker build-farm; the workers are gpu/);
    await expect(loadWorkflowFile(write(EXAMPLE), { params: ['CONFIG_PATH'] })).resolves.toBeDefined();
  });

  it('workflow file - a worker on a call step is refused', async () => {
    expect(await loadError(EXAMPLE.replace('capability: review-text', 'capability: review-text\n    worker: build-farm'))).toMatch(/workflow\.yaml:15: steps\[1\]\.worker: only agent steps run on a worker/);
  });

  it('workflow file - agentId (written agent_id) and capability are kept on a worker step and refused on a local one', async () => {
    const remote = await loadWorkflowFile(write(EXAMPLE.replace('worker: build-farm ', 'worker: build-farm\n    agent_id: fixer\n    capability: fix ')), OPTIONS);
    expect(remote.value.steps[2]).toMatchObject({ worker: 'build-farm', agentId: 'fixer', capability: 'fix' });
    const local = EXAMPLE.replace('type: agent                 #', 'type: agent\n    agent_id: fixer\n    #');
    expect(await loadError(local)).toMatch(/workflow\.yaml:8: steps\[0\]\.agentId: agentId names what a worker runs: only a step with worker has one/);
  });

  it('workflow file - a bad output name is refused', async () => {
    expect(await loadError(EXAMPLE.replace('output: REVIEW', 'output: review'))).toMatch(/workflow\.yaml:16: steps\[1\]\.output: must be an upper-case variable name/);
  });

  it('workflow file - an unknown field, a missing field and a bad step type name their lines', async () => {
    expect(await loadError(EXAMPLE.replace('    timeout_sec: 600', '    timeout: 600'))).toMatch(/workflow\.yaml:18: steps\[2\]: Unrecognized key: "timeout"/);
    expect(await loadError(EXAMPLE.replace('    capability: review-text\n', ''))).toMatch(/workflow\.yaml:11: steps\[1\]\.capability: /);
    expect(await loadError(EXAMPLE.replace('type: call ', 'type: rpc  '))).toMatch(/workflow\.yaml:12: steps\[1\]\.type: /);
  });
});
