import type { AsyncMessage } from 'rabbitmq-client';
import { describe, expect, it } from 'vitest';
import { DELIVERY_ID_HEADER, DeliveryIds } from '../../transports/amqp/amqp-delivery-ids.js';

/** Only the fields DeliveryIds reads. */
function message(fields: { messageId?: string; redelivered?: boolean; exchange?: string; headers?: Record<string, unknown> }): AsyncMessage {
  return { exchange: 'agentrpc', redelivered: false, ...fields } as unknown as AsyncMessage;
}

describe('amqp delivery ids', () => {
  it('amqp delivery ids - a broker redelivery gets back the id its message-id was given; a fresh delivery of the same message-id does not', () => {
    const ids = new DeliveryIds(4, new Set(['']));
    const first = ids.of(message({ messageId: 'm1' }));
    expect(ids.of(message({ messageId: 'm1', redelivered: true }))).toBe(first);
    // Published again by anyone (not redelivered by the broker): another broker message.
    expect(ids.of(message({ messageId: 'm1' }))).not.toBe(first);
  });

  it('amqp delivery ids - only the last `capacity` message-ids are remembered, oldest forgotten first, over many rounds of the ring', () => {
    const ids = new DeliveryIds(3, new Set());
    const given = new Map<string, string>();
    for (let i = 0; i < 10; i++) given.set(`m${i}`, ids.of(message({ messageId: `m${i}` })));
    for (let i = 7; i < 10; i++) expect(ids.of(message({ messageId: `m${i}`, redelivered: true }))).toBe(given.get(`m${i}`));
    for (let i = 0; i < 7; i++) expect(ids.of(message({ messageId: `m${i}`, redelivered: true }))).not.toBe(given.get(`m${i}`));
  });

  it('amqp delivery ids - a message-id seen again keeps its newest id when its older slot in the ring is reused', () => {
    const ids = new DeliveryIds(2, new Set());
    ids.of(message({ messageId: 'same' }));
    const newest = ids.of(message({ messageId: 'same' }));
    ids.of(message({ messageId: 'other' })); // reuses the slot of the first 'same'
    expect(ids.of(message({ messageId: 'same', redelivered: true }))).toBe(newest);
  });

  it('amqp delivery ids - the delivery-id header is believed only through a trusted exchange', () => {
    const ids = new DeliveryIds(4, new Set(['', 'agentrpc.dlx']));
    const headers = { [DELIVERY_ID_HEADER]: 'amqp:kept.7' };
    expect(ids.of(message({ exchange: '', headers }))).toBe('amqp:kept.7');
    expect(ids.of(message({ exchange: 'agentrpc.dlx', headers }))).toBe('amqp:kept.7');
    expect(ids.of(message({ exchange: 'agentrpc', headers }))).not.toBe('amqp:kept.7');
  });
});
