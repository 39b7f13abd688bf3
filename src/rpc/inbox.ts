import type { AgentRpcEnvelope } from '../envelope/index.js';
import { RpcError } from '../errors.js';
import { isPromise } from '../maybe-promise.js';
import type { Delivery } from '../transport.js';
import type { InboxCore } from './node-core.js';
import { Receipt, type DeliverySource } from './receipt.js';
import { receiveStages, type Invokers, type ReceiveStage } from './receive-stages.js';
import { runStages, timedStages, type StageTimes } from './stage-runner.js';

/**
 * The receiving pipeline, the same for every transport and for the inbound port: the
 * node's receive stages (receive-stages.ts) run on each delivery, synchronously as far as
 * every stage answers synchronously. Every delivery ends acked (dispatched, answered or
 * dead-lettered) or nacked (to be redelivered), through its Receipt; nothing is dropped
 * without a DLQ record, a metric and a log line.
 */
export class Inbox {
  private readonly active = new Set<Promise<void>>();
  readonly stages: readonly ReceiveStage[];

  constructor(
    private readonly core: InboxCore,
    invokers: Invokers,
    times?: StageTimes,
  ) {
    const stages = receiveStages(core, invokers);
    this.stages = times ? timedStages('receive', stages, times) : stages;
  }

  /** Deliveries being processed; `drain()` waits for them on shutdown. */
  get activeCount(): number {
    return this.active.size;
  }

  /**
   * `decoded`: the envelope of `delivery.body`, when whoever hands it in has already decoded
   * it with `decodeEnvelope` under this node's limits (the inbound port), so it is not
   * parsed twice.
   */
  receive(delivery: Delivery, source: DeliverySource, decoded?: AgentRpcEnvelope): void {
    const receipt = new Receipt(this.core, delivery, source);
    if (decoded) receipt.envelope = decoded;
    let work: Promise<void> | void;
    try {
      work = runStages(this.stages, receipt);
    } catch (error) {
      work = Promise.reject(error);
    }
    if (!isPromise(work)) return receipt.span?.end();
    const tracked = work.catch((error: unknown) => this.unfinished(receipt, error));
    this.active.add(tracked);
    void tracked.finally(() => {
      this.active.delete(tracked);
      receipt.span?.end();
    });
  }

  async drain(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
  }

  /** A delivery a stage could not finish (even the DLQ failed it): never lost, never looping. */
  private unfinished(receipt: Receipt, error: unknown): void {
    const { delivery } = receipt;
    // A DLQ that cannot store the message's record after its last attempt (or once its
    // broker gave up on it) would send it round for ever: acked, logged and counted instead.
    if (error instanceof RpcError && error.code === 'EAGENTRPC_DLQ_WRITE_FAILED' && (delivery.exhausted || !receipt.mayRetry)) return this.dropUnrecorded(receipt, error);
    // Reached only when even the DLQ could not take the message: hand it back to the
    // transport so it is delivered again rather than lost.
    this.core.logger.error({ err: error, topic: delivery.coordinates.topic }, 'inbox could not finish a delivery; redelivering');
    receipt.retryLater();
  }

  private dropUnrecorded(receipt: Receipt, error: RpcError): void {
    const { delivery, source } = receipt;
    this.core.logger.error(
      { err: error, ...error.details, transport: source.kind, coordinates: delivery.coordinates, attempt: delivery.attempt, messageId: receipt.envelope?.messageId },
      'the DLQ could not keep a message after its last attempt: acked without a record',
    );
    this.core.metrics.transportDropped?.(source.kind, 'dlq-write-failed');
    delivery.ack();
  }
}
