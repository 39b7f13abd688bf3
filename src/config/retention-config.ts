import { z } from 'zod';

const MIB = 1024 * 1024;
const DAY_MS = 86_400_000;

/** agent.yaml `audit`: rotation and retention of the audit log, and what it records (docs/audit.md). */
export const auditConfigSchema = z.strictObject({
  rotate: z
    .strictObject({
      maxBytes: z.int().min(1024).default(64 * MIB).describe('A segment is closed and a new one started once it holds this many bytes. Default 67,108,864 (64 MiB).'),
      maxAgeMs: z.int().min(1000).default(DAY_MS).describe('A segment is closed and a new one started at the first append once its first record is this old. Default 86,400,000 (1 day).'),
    })
    .prefault({})
    .describe('When `audit.jsonl` is renamed to a segment `audit.jsonl.<first seq>` and a new file started; the hash chain runs on across segments.'),
  retain: z
    .strictObject({
      maxBytes: z.int().min(1024).default(1024 * MIB).describe('Bytes of all segments together (the file being written included); the oldest segments are deleted beyond it. Default 1,073,741,824 (1 GiB).'),
      maxAgeMs: z.int().min(1000).default(90 * DAY_MS).describe('A closed segment is deleted once its last record is this old. Default 7,776,000,000 (90 days).'),
    })
    .prefault({})
    .describe('How much of the audit log is kept; each deletion is itself recorded (`audit_retention`), so `agent-rpc audit verify` tells retention from tampering.'),
  exclude: z
    .array(z.string().regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_-]*)?$/, 'must be a record kind (`auth_check`) or a kind and decision (`auth_check.accept`)'))
    .default([])
    .describe('Records not written: a kind (`tool_bash`) or a kind and decision (`auth_check.accept`, `tool_bash.allow`). Default: none, every decision is recorded.'),
});
export type AuditConfig = z.infer<typeof auditConfigSchema>;

/** agent.yaml `dlq`: bounds of the JSONL DLQ (docs/delivery.md). */
export const dlqConfigSchema = z.strictObject({
  retain: z
    .strictObject({
      maxRecords: z.int().min(4).default(100_000).describe('Records kept; the oldest go first. Default 100,000.'),
      maxBytes: z.int().min(4096).default(256 * MIB).describe('Bytes kept, all DLQ files together. Default 268,435,456 (256 MiB).'),
      maxAgeMs: z.int().min(1000).default(30 * DAY_MS).describe('Records are dropped once this old. Default 2,592,000,000 (30 days).'),
    })
    .prefault({})
    .describe('Bounds of `dlq.jsonl`: past any of them, the oldest records are dropped (a quarter of the bound at a time), counted in `agent_rpc_dlq_dropped_total` and logged.'),
});
export type DlqConfig = z.infer<typeof dlqConfigSchema>;
