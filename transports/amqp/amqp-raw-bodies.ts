import type { Connection } from 'rabbitmq-client';

/** What rabbitmq-client's channels look like inside (5.x): the header frame of each incoming message. */
interface HeaderFrame {
  fields: { contentType?: string; contentEncoding?: string };
}
interface ChannelInternals {
  _onHeader(frame: HeaderFrame): void;
}

/**
 * rabbitmq-client decodes a message whose `content-type` is `text/plain` (to a string) or
 * `application/json` (JSON.parse, to any value) before a consumer sees it, and keeps no
 * bytes: an inbox then got 0 bytes for a string, or a buffer as large as a number asked for
 * (`{"buffer": 5000000}`). The transport moves bytes and nothing else, so on its own
 * connection every channel's header frames go through without a content type (whose
 * decoding the client keys on): the consumer gets exactly the published bytes, whatever the
 * message's properties. The agent reads no content type; the publisher's stays on the wire.
 */
export function keepRawBodies(rabbit: Connection): void {
  const acquire = rabbit.acquire.bind(rabbit);
  rabbit.acquire = async (...args: Parameters<Connection['acquire']>) => {
    const channel = await acquire(...args);
    const internals = channel as unknown as ChannelInternals;
    const onHeader = internals._onHeader.bind(channel);
    internals._onHeader = (frame) => {
      if (frame.fields.contentType !== undefined) frame.fields = { ...frame.fields, contentType: undefined };
      onHeader(frame);
    };
    return channel;
  };
}
