import { appendFileSync, cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';

// One `agent-rpc serve` process whose agent.yaml sets limits.maxDepth and limits.maxBytes
// away from their defaults (64 levels, 1 MiB): every HTTP front door bounds bodies by them.
const TOKEN = 'alice-front-door-limits-token';
const MAX_DEPTH = 100;
const MAX_BYTES = 1536 * 1024;
const configDir = mkdtempSync(join(tmpdir(), 'front-door-limits-'));
let daemon: DaemonProcess;
let base: string;

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/a2a-node', import.meta.url).pathname, configDir, { recursive: true });
  appendFileSync(join(configDir, 'agent.yaml'), `limits: { maxDepth: ${MAX_DEPTH}, maxBytes: ${MAX_BYTES} }\n`);
  mkdirSync(join(configDir, 'markers'));
  const port = await freePort();
  daemon = await DaemonProcess.start(configDir, { ALICE_TOKEN: TOKEN, VIC_TOKEN: 'vic-token', AGENT_DATA_DIR: join(configDir, 'data'), A2A_MARKER_DIR: join(configDir, 'markers') }, port);
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => daemon?.signal('SIGKILL'));

/** Arrays nested `levels` deep. */
const nest = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

// Each door and a body nested exactly `depth` levels (the body's own object is level 1).
const doors = [
  { door: 'session API', path: '/api/v1/agent/sessions', body: (depth: number) => `{"message":"echo: hi","deep":${nest(depth - 1)}}` },
  { door: '/execute', path: '/execute', body: (depth: number) => `{"user_id":"alice","agent_id":"helper-desk","context":{},"input":{"message":"echo: hi","deep":${nest(depth - 2)}}}` },
  {
    door: 'A2A',
    path: '/a2a/helper-desk',
    body: (depth: number) =>
      `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"data","data":{"deep":${nest(depth - 6)}}}]}}}`,
  },
] as const;

async function post(path: string, body: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body });
  return { status: response.status, text: await response.text() };
}

describe("front door limits - the agent's limits.maxDepth and limits.maxBytes bound the HTTP front doors", () => {
  for (const { door, path, body } of doors) {
    it(`front door limits - ${door}: a body one level deeper than limits.maxDepth is refused with 400 naming the configured limit`, async () => {
      const answer = await post(path, body(MAX_DEPTH + 1));
      expect(answer.status).toBe(400);
      expect(answer.text).toContain(`deeper than ${MAX_DEPTH} levels`);
      expect(await daemon.readyz()).toBe(200);
    });

    it(`front door limits - ${door}: a body nested deeper than 64 levels but within limits.maxDepth is read`, async () => {
      const answer = await post(path, body(MAX_DEPTH - 10));
      expect(answer.text).not.toContain('deeper than');
      const read = JSON.parse(answer.text) as { error?: unknown };
      // What each door answers once it has read the body: the session API refuses the extra field by
      // name, /execute's input reaches the agent's inbox (within its depth) and breaks the capability's
      // schema there, the A2A server runs the task.
      if (door === 'session API') expect({ status: answer.status, error: read.error }).toEqual({ status: 400, error: expect.stringMatching(/^bad request: body: /) });
      else if (door === '/execute') expect({ status: answer.status, error: read.error }).toMatchObject({ status: 400, error: { code: 'EAGENTRPC_SCHEMA_VIOLATION' } });
      else expect({ status: answer.status, error: read.error }).toEqual({ status: 200, error: undefined });
    });
  }

  it('front door limits - session API: a body over 1 MiB but within limits.maxBytes is read, one over it refused with 413', async () => {
    // A message over the API's own bound on messages (1,000,000 characters): refused by name once read.
    const within = `{"message":"${'x'.repeat(MAX_BYTES - 4096)}"}`;
    const answer = await post('/api/v1/agent/sessions', within);
    expect({ status: answer.status, error: (JSON.parse(answer.text) as { error?: unknown }).error }).toEqual({ status: 400, error: expect.stringMatching(/^bad request: message: /) });
    const over = await post('/api/v1/agent/sessions', `{"message":"${'x'.repeat(MAX_BYTES + 1)}"}`);
    expect(over.status).toBe(413);
  });

  it('front door limits - A2A: a body over 1 MiB but within limits.maxBytes is read, one over it refused with 413', async () => {
    const withId = (size: number) => doors[2].body(10).replace('"m-1"', `"m-${'x'.repeat(size)}"`);
    const answer = await post('/a2a/helper-desk', withId(MAX_BYTES - 4096));
    expect(answer.status).toBe(200);
    const over = await post('/a2a/helper-desk', withId(MAX_BYTES + 1));
    expect(over.status).toBe(413);
  });
});
