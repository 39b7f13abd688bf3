import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HistogramMetric, perLabel, perLabels, ValueMetric } from '../../src/observability/series-metrics.js';
import { PrometheusMetrics } from '../../src/observability/prometheus-metrics.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const LABELS = ['agent', 'capability'];

describe('series metrics', () => {
  it('series metrics - /metrics text is what prom-client writes for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const histogram = new HistogramMetric({ name: 'h_seconds', help: 'A histogram.', labelNames: LABELS, buckets: BUCKETS, registers: [ours] });
    const counter = new ValueMetric('counter', { name: 'c_total', help: 'A counter.', labelNames: LABELS, registers: [ours] });
    const gauge = new ValueMetric('gauge', { name: 'g', help: 'A gauge with "quotes" \\ and a backslash.', labelNames: ['agent'], registers: [ours] });
    const reference = {
      histogram: new Histogram({ name: 'h_seconds', help: 'A histogram.', labelNames: LABELS, buckets: BUCKETS, registers: [theirs] }),
      counter: new Counter({ name: 'c_total', help: 'A counter.', labelNames: LABELS, registers: [theirs] }),
      gauge: new Gauge({ name: 'g', help: 'A gauge with "quotes" \\ and a backslash.', labelNames: ['agent'], registers: [theirs] }),
    };
    const observations: Array<[string, string, number]> = [
      ['a', 'echo', 0.0004],
      ['a', 'echo', 0.01],
      ['a', 'echo', 7],
      ['a', 'say "hi"\n', 0.05],
      ['b', 'echo', 1],
    ];
    for (const [agent, capability, value] of observations) {
      histogram.observe(histogram.series({ agent, capability }), value);
      counter.series({ agent, capability }).value += 2;
      reference.histogram.observe({ agent, capability }, value);
      reference.counter.inc({ agent, capability }, 2);
    }
    gauge.series({ agent: 'a' }).value = 3;
    gauge.series({ agent: 'a' }).value--;
    reference.gauge.set({ agent: 'a' }, 2);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect((await ours.getSingleMetric('c_total')?.get())?.values).toEqual((await theirs.getSingleMetric('c_total')?.get())?.values);
  });

  it('series metrics - a value that is not a finite number is not counted', async () => {
    const registry = new Registry();
    const histogram = new HistogramMetric({ name: 'h', help: 'h', labelNames: ['agent'], buckets: BUCKETS, registers: [registry] });
    const series = histogram.series({ agent: 'a' });
    histogram.observe(series, Number.NaN);
    histogram.observe(series, Number.POSITIVE_INFINITY);
    histogram.observe(series, 0.5);
    expect(series.count).toBe(1);
    expect(series.sum).toBe(0.5);
  });

  it('series metrics - the same label set is one series, however often it is asked for', () => {
    const counter = new ValueMetric('counter', { name: 'c', help: 'c', labelNames: LABELS, registers: [] });
    expect(counter.series({ agent: 'a', capability: 'x' })).toBe(counter.series({ capability: 'x', agent: 'a' }));
    expect(counter.series({ agent: 'a', capability: 'x' })).not.toBe(counter.series({ agent: 'a', capability: 'y' }));
    let made = 0;
    const pair = perLabels((a, b) => ({ a, b, n: ++made }));
    const single = perLabel((a) => ({ a, n: ++made }));
    expect(pair('x', 'y')).toBe(pair('x', 'y'));
    expect(single('x')).toBe(single('x'));
    expect(made).toBe(2);
  });

  it('series metrics - the hooks of PrometheusMetrics count into the series a scrape reads', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const hooks = metrics.forAgent('svc');
    hooks.handlerStarted?.('echo');
    hooks.handlerStarted?.('echo');
    hooks.handlerCompleted?.('echo', true, 2);
    hooks.authDecision?.('hmac', 'reject', 'stale');
    hooks.authDecision?.('hmac', 'reject', 'stale');
    hooks.callCompleted?.('echo', 'ok', 30);
    const text = await metrics.registry.metrics();
    expect(text).toContain('agent_rpc_handlers_in_flight{agent="svc",capability="echo"} 1');
    expect(text).toContain('agent_rpc_handler_duration_seconds_bucket{le="0.0025",agent="svc",capability="echo",result="ok"} 1');
    expect(text).toContain('agent_rpc_auth_decisions_total{agent="svc",provider="hmac",decision="reject",reason="stale"} 2');
    expect(text).toContain('agent_rpc_call_duration_seconds_count{agent="svc",capability="echo",status="ok"} 1');
    expect(text).not.toContain('agent_rpc_pending_calls{');
  });
});
