import type { DlqRecord } from '../dlq/index.js';
import type { RpcTransport } from '../transport.js';
import type { InboxCore } from './node-core.js';
import { LogThrottle } from '../observability/index.js';

const WARN_EVERY_MS = 10_000;

/** Per node: the warning about unpublished copies, at most every WARN_EVERY_MS. */
const warnings = new WeakMap<InboxCore, LogThrottle>();

/**
 * Publishes a DLQ record's copy to the agent's DLQ topic, best effort: the local sink
 * already holds the record. Only transports that consume what others publish
 * (`traits.remoteSubscribe`: brokers and the in-process bus) get one — not gateways (they
 * are no transports: http's addresses are remote node names), not the inbound port. A copy that
 * cannot be published (a broker away, an in-process topic nobody reads that is full) is
 * logged at most every 10 s with the count since, not once per record.
 */
export async function publishDlqCopy(core: InboxCore, carrier: RpcTransport | undefined, record: DlqRecord): Promise<void> {
  if (!carrier?.traits.remoteSubscribe) return;
  try {
    await carrier.publish(core.topics.dlq, { body: Buffer.from(JSON.stringify(record)), key: record.id });
  } catch (error) {
    let throttle = warnings.get(core);
    if (!throttle) warnings.set(core, (throttle = new LogThrottle(WARN_EVERY_MS, () => core.clock.now())));
    const notPublished = throttle.due();
    if (notPublished === undefined) {
      core.logger.debug({ err: error, dlqId: record.id }, 'DLQ record kept locally but not published to the DLQ topic');
      return;
    }
    core.logger.warn({ err: error, dlqId: record.id, topic: core.topics.dlq, notPublished }, 'DLQ record kept locally but not published to the DLQ topic');
  }
}
