import type { ExportResult } from '@opentelemetry/core';

/**
 * `--tracing`: registers the OpenTelemetry SDK as `agent-rpc serve` does (NodeTracerProvider,
 * every trace sampled, a batch processor), with an exporter that drops what it gets, so the
 * figures show what recording spans costs a call and not a backend's network.
 */
export async function registerBenchTracing(): Promise<void> {
  const { NodeTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-node');
  const dropping = {
    export: (_spans: unknown[], done: (result: ExportResult) => void) => done({ code: 0 }),
    shutdown: async () => undefined,
  };
  new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] }).register();
}
