import type { TracerProvider } from '@opentelemetry/api';
import { DEFAULT_TRACING_ENDPOINTS, type TracingConfig } from '../config/index.js';
import type { Logger } from '../logger.js';
import { importOptional } from '../optional-package.js';
import { zipkinExporter } from './zipkin-exporter.js';

/** The OpenTelemetry SDK of an `agent-rpc serve` process, when agent.yaml asks for one. */
export interface ProcessTracing {
  /** Given to every node of the process; undefined with `exporter: none` or no `tracing:` block. */
  readonly provider: TracerProvider | undefined;
  /** Exports what is still buffered, then stops: the spans of the last calls reach the backend on a clean stop. */
  shutdown(): Promise<void>;
}

const NO_TRACING: ProcessTracing = { provider: undefined, shutdown: async () => undefined };
/** The SDK packages are optional peer dependencies: a missing one names itself. */
const TRACING = 'tracing (agent.yaml `tracing:`)';

/**
 * Builds and registers the SDK from agent.yaml `tracing:` — a NodeTracerProvider named after
 * the process's agents, parent-based sampling at `sampleRatio` for new traces, a batch
 * processor with the Zipkin or OTLP/HTTP exporter. The SDK packages are loaded only here,
 * so a process without tracing never loads them, nor needs them installed.
 */
export async function startProcessTracing(config: TracingConfig | undefined, agentIds: readonly string[], logger: Logger): Promise<ProcessTracing> {
  if (config === undefined || config.exporter === 'none') return NO_TRACING;
  const [{ NodeTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler }, { resourceFromAttributes }] = await Promise.all([
    importOptional(() => import('@opentelemetry/sdk-trace-node'), TRACING, '@opentelemetry/sdk-trace-node'),
    importOptional(() => import('@opentelemetry/resources'), TRACING, '@opentelemetry/resources'),
  ]);
  const url = config.endpoint ?? DEFAULT_TRACING_ENDPOINTS[config.exporter];
  const serviceName = config.serviceName ?? agentIds.join(',');
  const exporter =
    config.exporter === 'zipkin'
      ? await zipkinExporter(url, serviceName)
      : new (await importOptional(() => import('@opentelemetry/exporter-trace-otlp-http'), TRACING, '@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // The process's global provider, context manager and propagator: handlers' own
  // OpenTelemetry instrumentation joins the same traces.
  provider.register();
  logger.info({ exporter: config.exporter, endpoint: url, sampleRatio: config.sampleRatio, serviceName }, 'tracing enabled');
  return {
    provider,
    async shutdown() {
      try {
        await provider.shutdown();
      } catch (error) {
        logger.warn({ err: error }, 'tracing: could not export the last spans');
      }
    },
  };
}
