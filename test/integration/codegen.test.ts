import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentNode } from '../../src/rpc/agent-node.js';
import { RpcError } from '../../src/errors.js';
import { MemoryFleet } from '../support/fleet.js';
import { runCliProcess } from '../support/run-cli-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT_DIR = fileURLToPath(new URL('../.generated', import.meta.url));
const CLIENT = `${OUT_DIR}/pr-reviewer-client.ts`;
const capabilitiesFile = fileURLToPath(new URL('../fixtures/config/reviewer/capabilities.yaml', import.meta.url));

// How an application would use the generated client; the ts-expect-error lines fail the
// type check if the generated types were too loose.
const USAGE = `import { AgentNode } from '../../src/index.js';
import { createPrReviewerClient, type ReviewPrOutput } from './pr-reviewer-client.js';
export async function use(node: AgentNode): Promise<string[]> {
  const client = createPrReviewerClient(node);
  const output: ReviewPrOutput = await client.reviewPr({ prUrl: 'https://git.example/pull/7' });
  // @ts-expect-error prUrl is required
  void client.reviewPr({});
  // @ts-expect-error unknown properties are refused (additionalProperties: false)
  void client.reviewPr({ prUrl: 'x', url: 'y' });
  // @ts-expect-error findings is string[]
  const wrong: number[] = output.findings;
  void wrong;
  return output.findings;
}
`;

beforeAll(async () => {
  mkdirSync(OUT_DIR, { recursive: true });
  const run = await runCliProcess(['codegen', capabilitiesFile, '--agent', 'pr-reviewer', '--runtime', '../../src/index.js', '--out', CLIENT]);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  writeFileSync(`${OUT_DIR}/use-client.ts`, USAGE);
}, 60_000);

let fleet: MemoryFleet;
afterAll(() => fleet?.close());

describe('codegen', () => {
  it('codegen - the generated client type-checks, and loose calls do not', async () => {
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
    const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', '--types', 'node', `${OUT_DIR}/use-client.ts`];
    const result = await promisify(execFile)(process.execPath, [tsc, ...args], { cwd: ROOT }).then(
      () => ({ ok: true, output: '' }),
      (error: { stdout: string }) => ({ ok: false, output: error.stdout }),
    );
    expect(result).toEqual({ ok: true, output: '' });
  }, 60_000);

  it('codegen - the client calls a live agent like a typed function; failures reject with the RpcError', async () => {
    fleet = new MemoryFleet();
    const reviewer = await fleet.node('pr-reviewer');
    reviewer.handle<{ prUrl: string }>('review-pr', (input) => ({ findings: [`looked at ${input.prUrl}`] }));
    const caller = await fleet.node('caller');
    // Typed by hand: the generated file exists only once beforeAll wrote it, and the
    // type check of a fresh checkout must not depend on it (that test compiles it with tsc).
    const { createPrReviewerClient } = (await import(CLIENT)) as {
      createPrReviewerClient: (node: AgentNode) => { reviewPr(input: { prUrl: string }): Promise<{ findings: string[] }> };
    };
    const client = createPrReviewerClient(caller);
    expect(await client.reviewPr({ prUrl: 'pull/7' })).toEqual({ findings: ['looked at pull/7'] });
    // The published input schema is checked before sending.
    const refused = await client.reviewPr({ prUrl: 7 } as never).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RpcError);
    expect(refused).toMatchObject({ code: 'EAGENTRPC_SCHEMA_VIOLATION', details: { pointer: '/prUrl' } });
  });
});
