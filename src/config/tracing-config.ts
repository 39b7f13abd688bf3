import { z } from 'zod';
import { alias } from '../yaml/index.js';

export const TRACING_EXPORTERS = ['otlp', 'zipkin', 'none'] as const;
export type TracingExporter = (typeof TRACING_EXPORTERS)[number];

/** Where each exporter sends spans when `endpoint` is not given (the backends' own defaults). */
export const DEFAULT_TRACING_ENDPOINTS: Readonly<Record<Exclude<TracingExporter, 'none'>, string>> = {
  otlp: 'http://localhost:4318/v1/traces',
  zipkin: 'http://localhost:9411/api/v2/spans',
};

/** agent.yaml `tracing:`, read by `agent-rpc serve` (the library itself never sets up an SDK). */
export const tracingConfigSchema = z.strictObject({
  exporter: z.enum(TRACING_EXPORTERS).describe('Where spans go: `otlp` (OTLP over HTTP, JSON: an OpenTelemetry Collector, Jaeger, Tempo…), `zipkin`, or `none` (no SDK: spans stay no-ops).'),
  endpoint: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('The exporter\'s URL. Default: otlp `http://localhost:4318/v1/traces`, zipkin `http://localhost:9411/api/v2/spans`.'),
  sampleRatio: alias(
    z.number().min(0).max(1).default(1).describe('Share of new traces recorded (0-1); a request continues its caller\'s decision (parent-based). Default 1.'),
    'sample_ratio',
  ),
  serviceName: alias(z.string().min(1).optional().describe("`service.name` of this process's spans. Default: the agent ids of the process, comma-separated."), 'service_name'),
});
export type TracingConfig = z.infer<typeof tracingConfigSchema>;
