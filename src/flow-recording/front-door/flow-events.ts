import type { IncomingMessage, ServerResponse } from 'node:http';
import { flowView, type FlowRecordStore } from '../index.js';

/** Changes within this window go out as one event: a busy flow is not sent per call. */
const COALESCE_MS = 50;
/** A comment line now and then keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;

/**
 * `/flows/<id>/events`: Server-Sent Events, one `flow` event with the whole flow view
 * (as `/flows/<id>.json`) at once and after every change, until the client goes away.
 */
export function streamFlow(req: IncomingMessage, res: ServerResponse, store: FlowRecordStore, correlationId: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
  let timer: NodeJS.Timeout | undefined;
  const send = (): void => {
    timer = undefined;
    const flow = store.get(correlationId);
    if (flow) res.write(`event: flow\ndata: ${JSON.stringify(flowView(flow))}\n\n`);
  };
  const unlisten = store.listen(correlationId, () => {
    timer ??= setTimeout(send, COALESCE_MS);
  });
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  const stop = (): void => {
    unlisten();
    clearTimeout(timer);
    clearInterval(keepalive);
  };
  req.once('close', stop);
  res.once('close', stop);
  send();
}
