import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody } from '../../transports/sqs/sqs-body.js';
import { queueName } from '../../transports/sqs/sqs-queues.js';

describe('sqs naming and bodies', () => {
  it('sqs - topics map to valid queue names: dots as _, other refused characters as -, .fifo appended', () => {
    expect(queueName('agents.billing.requests', '', false)).toBe('agents_billing_requests');
    expect(queueName('agents.billing.requests', 'prod-', true)).toBe('prod-agents_billing_requests.fifo');
    expect(queueName('agents.a:b/c.responses', '', false, '-dlq')).toBe('agents_a-b-c_responses-dlq');
  });

  it('sqs - a long topic is cut and ends in a hash, leaving room for -dlq and .fifo within 80 characters', () => {
    const long = `agents.${'x'.repeat(100)}.requests`;
    const other = `agents.${'x'.repeat(100)}.responses`;
    for (const fifo of [false, true]) {
      const name = queueName(long, 'p-', fifo, '-dlq');
      expect(name.length).toBeLessThanOrEqual(80);
      expect(name).toMatch(/^[A-Za-z0-9_-]+(\.fifo)?$/);
    }
    expect(queueName(long, '', false)).not.toBe(queueName(other, '', false));
  });

  it('sqs - JSON bodies go as text; bytes SQS refuses go base64 and come back the same', () => {
    const json = Buffer.from('{"héllo":"wörld 🚀"}');
    expect(encodeBody(json)).toEqual({ text: '{"héllo":"wörld 🚀"}', base64: false });
    for (const bytes of [Buffer.from([0xff, 0xfe, 0x00, 0x01]), Buffer.from('a\u0000b'), Buffer.from('\uFFFF')]) {
      const encoded = encodeBody(bytes);
      expect(encoded.base64).toBe(true);
      expect(Buffer.compare(Buffer.from(decodeBody(encoded.text, true)), bytes)).toBe(0);
    }
  });
});
