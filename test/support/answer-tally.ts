import { decodeEnvelope } from '../../src/envelope/index.js';
import type { Delivery, RpcTransport } from '../../src/transport.js';

export interface SeenAnswer {
  /** The response envelope's own id: a stored reply sent again has the same one. */
  readonly messageId: string;
  readonly ok: boolean;
}

/**
 * Every response a caller's transport delivers, by the request it answers — including
 * late duplicates its pending registry would quietly skip. Wrap the caller's transport
 * before the node subscribes.
 */
export class AnswerTally {
  readonly byRequest = new Map<string, SeenAnswer[]>();

  wrap(transport: RpcTransport): RpcTransport {
    return new Proxy(transport, {
      get: (target, property, receiver) => {
        if (property !== 'subscribe') return Reflect.get(target, property, receiver);
        const subscribe: RpcTransport['subscribe'] = (topic, handler, options) =>
          target.subscribe(topic, (delivery: Delivery) => {
            this.see(delivery.body);
            handler(delivery);
          }, options);
        return subscribe;
      },
    });
  }

  /** Distinct answers (response envelopes) to one request. */
  distinct(requestId: string): Set<string> {
    return new Set((this.byRequest.get(requestId) ?? []).map((answer) => answer.messageId));
  }

  /** Response deliveries of every request, duplicates included. */
  get deliveries(): number {
    let count = 0;
    for (const answers of this.byRequest.values()) count += answers.length;
    return count;
  }

  private see(body: Uint8Array): void {
    const decoded = decodeEnvelope(body);
    if (!decoded.ok || decoded.envelope.kind !== 'response' || decoded.envelope.causedBy === undefined) return;
    const payload = decoded.envelope.payload as { ok?: unknown } | null;
    const answers = this.byRequest.get(decoded.envelope.causedBy) ?? [];
    answers.push({ messageId: decoded.envelope.messageId, ok: payload?.ok === true });
    this.byRequest.set(decoded.envelope.causedBy, answers);
  }
}
