import type { Metric, Registry } from 'prom-client';

/**
 * Counters, gauges and histograms for the series every call touches, registered on a
 * prom-client Registry and read by it at scrape time like its own. prom-client resolves
 * the labels of every `inc` and `observe` — it checks them and builds a string key from
 * them — which cost about 2.4 µs and a few hundred bytes of garbage per call for the four
 * series a daemon touches per request. Here a label set is resolved once (`series`); the
 * hot path keeps the returned object and adds to its numbers.
 */
type Labels = Readonly<Record<string, string>>;

/** One label set of a counter or gauge. */
export interface ValueSeries {
  value: number;
}

/** One label set of a histogram: counts per bucket (not cumulative), their sum and count. */
export interface HistogramSeries {
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/** A sample as prom-client's Registry reads it. */
interface Sample {
  readonly labels: Labels;
  readonly value: number;
  readonly metricName?: string;
  readonly sharedLabels?: Labels;
}

interface MetricData {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly values: Sample[];
  readonly aggregator: 'sum';
}

interface MetricOptions {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly registers: readonly Registry[];
}

abstract class SeriesMetric<S> {
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  protected readonly all = new Map<string, { readonly labels: Labels; readonly series: S }>();
  private readonly labelNames: readonly string[];

  constructor(
    readonly type: MetricData['type'],
    options: MetricOptions,
  ) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    // The Registry takes any object with prom-client's read methods; its types name only prom-client's classes.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series of `labels` (made on first use): callers keep it, so this runs once per label set. */
  series(labels: Labels): S {
    const key = this.labelNames.map((name) => labels[name] ?? '').join('\u0000');
    let known = this.all.get(key);
    if (known === undefined) this.all.set(key, (known = { labels: { ...labels }, series: this.create() }));
    return known.series;
  }

  protected abstract create(): S;
  protected abstract samples(forText: boolean): Sample[];
  abstract reset(): void;

  /** What prom-client's `get()` returns: every sample with all its labels. */
  async get(): Promise<MetricData> {
    return { name: this.name, help: this.help, type: this.type, values: this.samples(false), aggregator: this.aggregator };
  }

  /** What the Registry writes /metrics from: as prom-client's own metrics give it, so the text is the same. */
  async getForPromString(): Promise<MetricData> {
    return { name: this.name, help: this.help, type: this.type, values: this.samples(true), aggregator: this.aggregator };
  }
}

/** A counter or a gauge: one number per label set. */
export class ValueMetric extends SeriesMetric<ValueSeries> {
  protected create(): ValueSeries {
    return { value: 0 };
  }

  protected samples(): Sample[] {
    return [...this.all.values()].map(({ labels, series }) => ({ labels, value: series.value }));
  }

  reset(): void {
    for (const { series } of this.all.values()) series.value = 0;
  }
}

export class HistogramMetric extends SeriesMetric<HistogramSeries> {
  private readonly bounds: readonly number[];

  constructor(options: MetricOptions & { readonly buckets: readonly number[] }) {
    super('histogram', options);
    this.bounds = [...options.buckets].sort((a, b) => a - b);
  }

  protected create(): HistogramSeries {
    return { buckets: new Float64Array(this.bounds.length), sum: 0, count: 0 };
  }

  /** Counts `value` in `series`; a value that is not a finite number is not counted (a metric never throws into a call). */
  observe(series: HistogramSeries, value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        series.buckets[i]!++;
        break;
      }
    }
    series.sum += value;
    series.count++;
  }

  protected samples(forText: boolean): Sample[] {
    const bucketName = `${this.name}_bucket`;
    const samples: Sample[] = [];
    const sample = (metricName: string, own: Labels, shared: Labels, value: number): Sample =>
      forText ? { metricName, labels: own, sharedLabels: shared, value } : { metricName, labels: { ...shared, ...own }, value };
    for (const { labels, series } of this.all.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.buckets[i]!;
        samples.push(sample(bucketName, { le: String(bound) }, labels, cumulative));
      });
      samples.push(sample(bucketName, { le: '+Inf' }, labels, series.count));
      samples.push(sample(`${this.name}_sum`, {}, labels, series.sum));
      samples.push(sample(`${this.name}_count`, {}, labels, series.count));
    }
    return samples;
  }

  reset(): void {
    for (const { series } of this.all.values()) {
      series.buckets.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}

/** `make(a, b)` once per pair of label values, found again without building a key. */
export function perLabels<T>(make: (a: string, b: string) => T): (a: string, b: string) => T {
  const outer = new Map<string, Map<string, T>>();
  return (a, b) => {
    let inner = outer.get(a);
    if (inner === undefined) outer.set(a, (inner = new Map()));
    let made = inner.get(b);
    if (made === undefined) inner.set(b, (made = make(a, b)));
    return made;
  };
}

/** `make(a)` once per label value. */
export function perLabel<T>(make: (a: string) => T): (a: string) => T {
  const known = new Map<string, T>();
  return (a) => {
    let made = known.get(a);
    if (made === undefined) known.set(a, (made = make(a)));
    return made;
  };
}
