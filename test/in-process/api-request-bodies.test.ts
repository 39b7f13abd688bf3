import { cpSync, mkdtempSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { startDaemon, type RunningDaemon } from '../../src/runtime/daemon.js';
import { builtinPlugins } from '../../transports/plugins.js';

// Raw node:http requests, as any client sends them, against the session API's body rules.
const TOKEN = 'alice-bodies-token';
const LIMIT = 1024 * 1024; // the API's default body limit
const configDir = mkdtempSync(join(tmpdir(), 'bodies-node-'));
let daemon: RunningDaemon;

beforeAll(async () => {
  cpSync(new URL('../fixtures/config/session-node', import.meta.url).pathname, configDir, { recursive: true });
  const env = { ALICE_TOKEN: TOKEN, BOB_TOKEN: 'b', CAROL_TOKEN: 'c', VIC_TOKEN: 'v', AGENT_HTTP_PORT: '0', AGENT_DATA_DIR: join(configDir, 'data') };
  daemon = await startDaemon(configDir, builtinPlugins, { env, logger: silentLogger });
});
afterAll(() => daemon?.stop());

interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

/**
 * POSTs `chunks` one by one, each written after the previous one drained (as a client
 * streaming an upload does), with `headers`; resolves with the answer once it is complete.
 * Chunked transfer encoding unless a content-length is given.
 */
function post(headers: Record<string, string | number>, chunks: readonly Buffer[]): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: daemon.http.port, method: 'POST', path: '/api/v1/agent/sessions', headers: { authorization: `Bearer ${TOKEN}`, ...headers } });
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text.length > 0 ? JSON.parse(text) : undefined });
      });
    });
    const writeNext = (index: number): void => {
      if (index === chunks.length) return void req.end();
      if (req.write(chunks[index]!)) writeNext(index + 1);
      else req.once('drain', () => writeNext(index + 1));
    };
    writeNext(0);
  });
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');
const chunked = (total: number, size = 64 * 1024): Buffer[] => Array.from({ length: Math.ceil(total / size) }, (_, i) => Buffer.alloc(Math.min(size, total - i * size), 0x20));
const errorShape = { error: expect.any(String) };

describe('API request bodies', () => {
  it('bodies - a body twice the limit, sent in chunks with its length, is answered 413 with a JSON error', async () => {
    const chunks = chunked(2 * LIMIT);
    const answer = await post({ 'content-type': 'application/json', 'content-length': 2 * LIMIT }, chunks);
    expect(answer.status).toBe(413);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body).toEqual(errorShape);
  });

  it('bodies - a chunked body far over the limit is answered 413 with a JSON error, not a reset', async () => {
    const answer = await post({ 'content-type': 'application/json' }, chunked(8 * LIMIT));
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual(errorShape);
  });

  it('bodies - the connection that got a 413 still serves the next request', async () => {
    const first = await post({ 'content-type': 'application/json', connection: 'keep-alive' }, chunked(2 * LIMIT));
    expect(first.status).toBe(413);
    const next = await post({ 'content-type': 'application/json' }, [json({ message: 'echo: after' })]);
    expect(next.status).toBe(201);
  });

  it('bodies - a body that is not JSON is answered 400 with a JSON error', async () => {
    const answer = await post({ 'content-type': 'application/json' }, [Buffer.from('{not json', 'utf8')]);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(errorShape);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx'])('bodies - a body of type %s is answered 415 with a JSON error', async (type) => {
    const answer = await post({ 'content-type': type }, [json({ message: 'echo: x' })]);
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual(errorShape);
  });

  it('bodies - a body without a Content-Type is answered 415', async () => {
    const answer = await post({}, [json({ message: 'echo: x' })]);
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual(errorShape);
  });

  it('bodies - application/json with parameters, and +json types, are accepted', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/vnd.agent-rpc+json']) {
      expect((await post({ 'content-type': type }, [json({ message: 'echo: typed' })])).status).toBe(201);
    }
  });
});
