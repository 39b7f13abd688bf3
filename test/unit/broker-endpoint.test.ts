import { describe, expect, it } from 'vitest';
import { amqpEndpoint, kafkaEndpoint, mqttEndpoint, natsEndpoint, sqsEndpoint } from '../../transports/shared/broker-endpoint.js';

describe('transports - the broker a transport names on its spans', () => {
  it('transports - nats names the server nats.js is connected to, else the first configured with the default port', () => {
    expect(natsEndpoint('10.0.0.7:4223', 'nats://nats-1:4222')).toEqual({ address: '10.0.0.7', port: 4223 });
    expect(natsEndpoint('[::1]:4222', 'nats://nats-1:4222')).toEqual({ address: '::1', port: 4222 });
    expect(natsEndpoint('', 'nats://nats-1')).toEqual({ address: 'nats-1', port: 4222 });
    expect(natsEndpoint('', 'nats-2:5222')).toEqual({ address: 'nats-2', port: 5222 });
    expect(natsEndpoint('', 'tls://nats-3')).toEqual({ address: 'nats-3', port: 4222 });
  });

  it('transports - mqtt names the host MQTT.js connected to, else the URL with the scheme default port', () => {
    expect(mqttEndpoint('broker-b', 1884, 'mqtt://broker-a:1883')).toEqual({ address: 'broker-b', port: 1884 });
    expect(mqttEndpoint(undefined, undefined, 'mqtts://broker-a')).toEqual({ address: 'broker-a', port: 8883 });
    expect(mqttEndpoint(undefined, undefined, 'wss://broker-a/mqtt')).toEqual({ address: 'broker-a', port: 443 });
  });

  it('transports - kafka names the first listed broker', () => {
    expect(kafkaEndpoint('kafka-1:9092')).toEqual({ address: 'kafka-1', port: 9092 });
    expect(kafkaEndpoint('[fd00::2]:9093')).toEqual({ address: 'fd00::2', port: 9093 });
  });

  it('transports - amqp names its URL without credentials, with 5672 or 5671 by default', () => {
    expect(amqpEndpoint('amqp://user:secret@rabbit:5673/vhost')).toEqual({ address: 'rabbit', port: 5673 });
    expect(amqpEndpoint('amqp://rabbit')).toEqual({ address: 'rabbit', port: 5672 });
    expect(amqpEndpoint('amqps://rabbit/vhost')).toEqual({ address: 'rabbit', port: 5671 });
  });

  it('transports - sqs names its endpoint, else AWS\'s endpoint for the region', () => {
    expect(sqsEndpoint('http://127.0.0.1:9324', 'elasticmq')).toEqual({ address: '127.0.0.1', port: 9324 });
    expect(sqsEndpoint(undefined, 'eu-west-1')).toEqual({ address: 'sqs.eu-west-1.amazonaws.com', port: 443 });
  });

  it('transports - an address that does not parse names no broker', () => {
    expect(kafkaEndpoint('not a host:port')).toBeUndefined();
    expect(natsEndpoint('', 'nats://')).toBeUndefined();
  });
});
