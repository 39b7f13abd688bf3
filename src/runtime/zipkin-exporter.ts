import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { importOptional } from '../optional-package.js';

/** The attribute naming the service at the other end of a span (OpenTelemetry `peer.service`). */
const PEER_SERVICE = 'peer.service';
const STATUS_CODE_TAG = 'otel.status_code';
const STATUS_ERROR_TAG = 'error';

/**
 * Zipkin's v2 JSON exporter, as `@opentelemetry/exporter-zipkin` writes spans, plus the
 * `remoteEndpoint` Zipkin draws its dependency graph from: a span naming its peer
 * (`peer.service`, set on every send and process span) gets it as the remote service. The
 * package's exporter leaves `remoteEndpoint` out, so Zipkin's dependencies view stays empty
 * for messaging spans.
 */
export async function zipkinExporter(url: string, serviceName: string): Promise<SpanExporter> {
  const feature = 'tracing with the zipkin exporter';
  const [{ prepareSend }, { toZipkinSpan }] = await Promise.all([
    importOptional(() => import('@opentelemetry/exporter-zipkin'), feature, '@opentelemetry/exporter-zipkin'),
    importOptional(() => import('@opentelemetry/exporter-zipkin/build/src/transform.js'), feature, '@opentelemetry/exporter-zipkin'),
  ]);
  const send = prepareSend(url);
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      const zipkinSpans = spans.map((span) => {
        const zipkinSpan = toZipkinSpan(span, String(span.resource.attributes['service.name'] ?? serviceName), STATUS_CODE_TAG, STATUS_ERROR_TAG);
        const peer = span.attributes[PEER_SERVICE];
        return typeof peer === 'string' ? { ...zipkinSpan, remoteEndpoint: { serviceName: peer } } : zipkinSpan;
      });
      send(zipkinSpans, done);
    },
    shutdown: async () => undefined,
  };
}
