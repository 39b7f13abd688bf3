import { Kafka, logLevel } from 'kafkajs';

/**
 * One readiness attempt: a real client round trip. describeCluster only lists unfenced
 * brokers, so once ours is listed, topics can be created and produced to.
 */
export async function probeKafka(brokers: readonly string[], clusterId: string): Promise<void> {
  const kafka = new Kafka({
    clientId: 'agent-rpc-broker-probe',
    brokers: [...brokers],
    // The caller retries; kafkajs' own retries and error logs would only add noise.
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 5_000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    // Another broker on the port (ours then fails to bind) would have another cluster id.
    if (cluster.clusterId !== clusterId) throw new Error(`${brokers.join(',')} belongs to cluster ${cluster.clusterId}`);
    if (cluster.brokers.length === 0) throw new Error('no unfenced broker yet');
    await admin.listTopics();
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
