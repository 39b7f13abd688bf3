/** ~200 bytes of JSON, as in the reference method (../shared/BENCHMARKS.md). */
export const BENCH_PAYLOAD = {
  id: 'order-000042',
  customer: { name: 'Ada Lovelace', tier: 'gold' },
  items: [
    { sku: 'A-1', qty: 2 },
    { sku: 'B-7', qty: 1 },
  ],
  note: 'deliver to the back door, ring twice',
};
