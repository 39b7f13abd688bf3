import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpRemoteAgent } from '../../src/remote-nodes/http-remote-agent.js';
import { freshContext, nodeAt } from '../support/remote-execution-worker.js';

// A worker on loopback that answers what each test scripts: the executor's side of the
// protocol faced with replies a worker written from the docs could get wrong.
let worker: Server | undefined;
afterEach(async () => {
  worker?.closeAllConnections();
  await new Promise<void>((resolve) => (worker ? worker.close(() => resolve()) : resolve()));
  worker = undefined;
});

type Answer = { status: number; text: string };
const json = (status: number, body: unknown): Answer => ({ status, text: JSON.stringify(body) });

/** Answers `POST /execute` with `execute`, `POST /execute/async` with 202, and every status poll with `poll(n)`. */
async function startWorker(execute: Answer, poll: (n: number) => Answer = () => json(200, { status: 'running' })): Promise<{ url: string; polls: () => number }> {
  let polls = 0;
  const answer = (res: ServerResponse, { status, text }: Answer): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(text);
  worker = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/execute') return answer(res, execute);
      if (req.url === '/execute/async') return answer(res, json(202, { handler_id: 'h-1' }));
      answer(res, poll(++polls));
    });
  });
  await new Promise<void>((resolve) => worker!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(worker.address() as AddressInfo).port}`, polls: () => polls };
}

const delta = { messages: [], thoughts: [], usage: [] };

describe('remote execution - malformed worker replies', () => {
  for (const [name, reply] of [
    ['a body that is not JSON', { status: 200, text: '<html>ok</html>' }],
    ['an empty body', { status: 200, text: '' }],
    ['a JSON body that is not an object', json(200, ['done'])],
    ['a body without result', json(200, { updated_context: delta })],
    ['a body without updated_context', json(200, { result: 'done' })],
  ] as const) {
    it(`remote execution - a 200 with ${name} is EAGENTRPC_REMOTE_API, never a success`, async () => {
      const { url } = await startWorker(reply);
      const attempt = new HttpRemoteAgent(nodeAt(url), 'worker').execute('alice', freshContext(), { task: 'x' });
      await expect(attempt).rejects.toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 200, malformed: true } });
    });
  }

  // JSON nested 20,000 levels: a recursive reader downstream (the envelope encoder, the canonical form) would overflow its stack.
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const deepReply = { status: 200, text: `{"result":${deep(20_000)},"updated_context":${JSON.stringify(delta)}}` };

  it('remote execution - a 200 whose body nests 20,000 levels deep is EAGENTRPC_REMOTE_API (malformed reply), never parsed into a result', async () => {
    const { url } = await startWorker(deepReply);
    const attempt = new HttpRemoteAgent(nodeAt(url), 'worker').execute('alice', freshContext(), { task: 'x' });
    await expect(attempt).rejects.toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 200, malformed: true } });
  });

  it('remote execution - an error answer whose body nests 20,000 levels deep is EAGENTRPC_REMOTE_API with its status', async () => {
    const { url } = await startWorker({ status: 500, text: `{"error":${deep(20_000)}}` });
    const attempt = new HttpRemoteAgent(nodeAt(url), 'worker').execute('alice', freshContext(), { task: 'x' });
    await expect(attempt).rejects.toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 500 } });
  });

  it('remote execution - status polls nested 20,000 levels deep count as malformed polls: the fourth in a row fails the call', async () => {
    const { url, polls } = await startWorker(json(500, {}), () => ({ status: 200, text: `{"status":"completed","result":${deep(20_000)},"updated_context":${JSON.stringify(delta)}}` }));
    const attempt = new HttpRemoteAgent(nodeAt(url), 'worker').execute('alice', freshContext(), { task: 'x' }, { async: true });
    await expect(attempt).rejects.toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 200, malformed: true } });
    expect(polls()).toBe(4);
  });

  it('remote execution - a well-formed 200 with a null result is still a success', async () => {
    const { url } = await startWorker(json(200, { result: null, updated_context: delta }));
    await expect(new HttpRemoteAgent(nodeAt(url), 'worker').execute('alice', freshContext(), { task: 'x' })).resolves.toBeNull();
  });

  it('remote execution - malformed status polls count as failed polls: the fourth in a row fails the call', async () => {
    const malformed = [{ status: 200, text: 'not json' }, json(200, { status: 'done' }), json(200, { status: 'completed' }), json(200, { status: 'completed', result: 'x' })];
    const { url, polls } = await startWorker(json(500, {}), (n) => malformed[n - 1] ?? json(200, { status: 'completed', result: 'late', updated_context: delta }));
    const attempt = new HttpRemoteAgent(nodeAt(url), 'worker').execute('alice', freshContext(), { task: 'x' }, { async: true });
    await expect(attempt).rejects.toMatchObject({ code: 'EAGENTRPC_REMOTE_API', details: { status: 200, malformed: true } });
    expect(polls()).toBe(4);
  });

  it('remote execution - a malformed poll between running ones is tolerated and the completed status is the result', async () => {
    const answers = [json(200, { status: 'running' }), { status: 200, text: 'garbage' }, json(200, { status: 'completed', result: 'fixed', updated_context: delta })];
    const { url, polls } = await startWorker(json(500, {}), (n) => answers[n - 1]!);
    await expect(new HttpRemoteAgent(nodeAt(url), 'worker').execute('alice', freshContext(), { task: 'x' }, { async: true })).resolves.toBe('fixed');
    expect(polls()).toBe(3);
  });
});
