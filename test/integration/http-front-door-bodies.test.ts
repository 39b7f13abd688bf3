import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tools/brokers/free-port.js';
import { DaemonProcess } from '../support/daemon-process.js';

// Every HTTP front door of one `agent-rpc serve` process (session API, /execute, A2A),
// against bodies clients send: the oversized one from Python's urllib, which writes the
// whole body before it reads the answer.
const TOKEN = 'alice-front-door-token';
const CLIENT = new URL('../fixtures/processes/oversized-body-client.py', import.meta.url).pathname;
const configDir = mkdtempSync(join(tmpdir(), 'front-doors-'));
let daemon: DaemonProcess;
let base: string;

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/a2a-node', import.meta.url).pathname, configDir, { recursive: true });
  mkdirSync(join(configDir, 'markers'));
  const port = await freePort();
  daemon = await DaemonProcess.start(configDir, { ALICE_TOKEN: TOKEN, VIC_TOKEN: 'vic-token', AGENT_DATA_DIR: join(configDir, 'data'), A2A_MARKER_DIR: join(configDir, 'markers') }, port);
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => daemon?.signal('SIGKILL'));

const MiB = 1024 * 1024;
// Each door and its body limit: the API's default, execute.maxBodyBytes' default, the A2A server's.
const doors = [
  { door: 'session API', path: '/api/v1/agent/sessions', limit: MiB },
  { door: '/execute', path: '/execute', limit: 4 * MiB },
  { door: 'A2A', path: '/a2a/helper-desk', limit: MiB },
] as const;

async function python(url: string, size: number): Promise<{ status?: number; body?: unknown; error?: string }> {
  const run = await promisify(execFile)('/usr/bin/python3', [CLIENT, url, TOKEN, String(size)], { timeout: 90_000 });
  return JSON.parse(run.stdout.trim()) as { status?: number; body?: unknown };
}

describe('front door bodies - every HTTP front door of the daemon', () => {
  for (const { door, path, limit } of doors) {
    // Within the drain bound (16 times the limit): the rest is read and thrown away, then the 413 goes out.
    for (const times of [3, 12]) {
      it(`front door bodies - ${door}: a client that sends a body ${times} times the limit before reading gets the 413`, async () => {
        const answer = await python(`${base}${path}`, times * limit);
        expect(answer.error).toBeUndefined();
        expect(answer.status).toBe(413);
        // The daemon is still serving.
        expect(await daemon.readyz()).toBe(200);
      });
    }

    it(`front door bodies - ${door}: a body nested 20,000 levels deep is refused with 400 naming the limit, and the daemon lives on`, async () => {
      const nested = '['.repeat(20_000) + ']'.repeat(20_000);
      const body = path === '/execute' ? `{"user_id":"alice","agent_id":"helper-desk","context":{},"input":{"deep":${nested}}}` : `{"message":"hi","deep":${nested}}`;
      for (const target of path === '/execute' ? ['/execute', '/execute/async'] : [path]) {
        const answer = await post(target, Buffer.from(body, 'utf8'));
        expect({ target, status: answer.status }).toEqual({ target, status: 400 });
        expect(answer.text).toMatch(/64 levels/);
      }
      expect(await daemon.readyz()).toBe(200);
    });

    it(`front door bodies - ${door}: a body that is not valid UTF-8 is refused with 400`, async () => {
      const body = Buffer.concat([Buffer.from('{"message":"caf', 'utf8'), Buffer.from([0xff, 0xfe]), Buffer.from('"}', 'utf8')]);
      const answer = await post(path, body);
      expect(answer.status).toBe(400);
      expect(answer.text).toMatch(/UTF-8/);
    });
  }
});

async function post(path: string, body: Buffer): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body });
  return { status: response.status, text: await response.text() };
}
