/**
 * Throughput of the envelope hot path on one core: what every message pays on the way in
 * (decode) and out (encode, canonical form for signing, a fresh id).
 */
import {
  canonicalizeForSigning,
  decodeEnvelope,
  encodeEnvelope,
  newMessageId,
  type AgentRpcEnvelope,
} from '../src/envelope/index.js';

/** A request as the runtime sends it: ids, routing, deadline, headers, a small payload. */
const SAMPLE: AgentRpcEnvelope = {
  version: 1,
  kind: 'request',
  messageId: '0190b6a2-3c4d-7e5f-8a6b-1c2d3e4f5a6b',
  correlationId: '0190b6a2-3c4d-7e5f-8a6b-000000000001',
  from: 'agent://orchestrator',
  to: 'agent://code-reviewer',
  capability: 'review-pr',
  replyTo: 'kafka://agents.orchestrator.responses',
  deadline: 1_767_225_600_000,
  tenantId: 'acme',
  headers: { 'x-source': 'ci', 'x-attempt': '1' },
  payload: { repo: 'acme/web', pr: 4711, strict: true },
  auth: { kind: 'internal' },
};

let sink: unknown;

function measure(name: string, run: () => unknown): { name: string; opsPerSec: number } {
  // Warm up long enough for the optimizing compiler to settle.
  for (let i = 0; i < 20_000; i++) sink = run();
  const batch = 1_000;
  let ops = 0;
  const start = process.hrtime.bigint();
  const budget = 1_000_000_000n;
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < batch; i++) sink = run();
    ops += batch;
    elapsed = process.hrtime.bigint() - start;
  }
  return { name, opsPerSec: Math.round((ops * 1e9) / Number(elapsed)) };
}

export function benchEnvelope(): Array<{ name: string; opsPerSec: number }> {
  const bytes = encodeEnvelope(SAMPLE);
  const decoded = decodeEnvelope(bytes);
  if (!decoded.ok) throw new Error(`sample envelope does not decode: ${decoded.reason}`);
  const envelope = decoded.envelope;
  const results = [
    measure(`decodeEnvelope (${bytes.byteLength} B)`, () => decodeEnvelope(bytes)),
    measure(`encodeEnvelope (${bytes.byteLength} B)`, () => encodeEnvelope(envelope)),
    measure('canonicalizeForSigning', () => canonicalizeForSigning(envelope)),
    measure('newMessageId', () => newMessageId()),
  ];
  void sink;
  return results;
}
