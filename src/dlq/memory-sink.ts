import type { DlqFilter, DlqRecord, DlqSink } from './record.js';
import { positiveInteger } from '../check-integer.js';

/** Keeps the newest `capacity` records in memory; the embedded default and tests use it. */
export class MemoryDlqSink implements DlqSink {
  private readonly records: DlqRecord[] = [];

  constructor(private readonly capacity = 10_000) {
    positiveInteger(capacity, 'MemoryDlqSink: capacity');
  }

  async write(record: DlqRecord): Promise<void> {
    this.records.push(record);
    if (this.records.length > this.capacity) this.records.shift();
  }

  async list(filter: DlqFilter = {}): Promise<DlqRecord[]> {
    return selectRecords(this.records, filter);
  }

  async get(id: string): Promise<DlqRecord | undefined> {
    return this.records.find((r) => r.id === id);
  }
}

export function selectRecords(records: readonly DlqRecord[], filter: DlqFilter): DlqRecord[] {
  const matching = filter.kind === undefined ? [...records] : records.filter((r) => r.kind === filter.kind);
  return filter.limit === undefined ? matching : matching.slice(-filter.limit);
}
