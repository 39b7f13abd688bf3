/**
 * The few envelope fields the HTTP adapter needs to do its job (route a reply to the
 * session waiting for it, bound a remote session by the request's deadline). The inbox
 * decodes and verifies the envelope fully; this never decides about trust.
 */
export interface EnvelopeRouting {
  readonly kind: string;
  readonly messageId: string;
  readonly to: string;
  readonly capability: string;
  readonly causedBy?: string;
  readonly replyTo?: string;
  readonly deadline?: number;
  readonly payload?: unknown;
}

export function peekEnvelope(body: Uint8Array | string): EnvelopeRouting | undefined {
  try {
    const value = JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8')) as Record<string, unknown>;
    if (typeof value !== 'object' || value === null) return undefined;
    const { kind, messageId, to, capability, causedBy, replyTo, deadline, payload } = value;
    if (typeof kind !== 'string' || typeof messageId !== 'string' || typeof to !== 'string' || typeof capability !== 'string') return undefined;
    return {
      kind,
      messageId,
      to,
      capability,
      payload,
      ...(typeof causedBy === 'string' ? { causedBy } : {}),
      ...(typeof replyTo === 'string' ? { replyTo } : {}),
      ...(typeof deadline === 'number' ? { deadline } : {}),
    };
  } catch {
    return undefined;
  }
}
