import { get } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { askBrokerService, serveBrokers, SharedBrokers, type BrokerService } from '../../tools/brokers/index.js';

// Servers given by the environment: nothing is started, so this runs without brokers.
const env = { NATS_URL: 'nats://10.1.2.3:4222', KAFKA_BROKERS: '10.1.2.3:9092, 10.1.2.4:9092', REDIS_URL: 'redis://10.1.2.3:6379', MQTT_URL: 'mqtt://10.1.2.3:1883', SQS_ENDPOINT: 'http://10.1.2.3:9324', RABBITMQ_URL: 'amqp://u:p@10.1.2.3:5672' };
const services: BrokerService[] = [];

afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

function status(url: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => get(url, (response) => resolve(response.resume().statusCode)).once('error', reject));
}

describe('shared brokers', () => {
  it('shared brokers - NATS_URL, KAFKA_BROKERS, REDIS_URL, MQTT_URL and SQS_ENDPOINT are handed out as they are, over the service too', async () => {
    const shared = new SharedBrokers({ env });
    expect(await shared.get('kafka')).toEqual({ brokers: ['10.1.2.3:9092', '10.1.2.4:9092'] });
    const service = await serveBrokers(shared);
    services.push(service);
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await askBrokerService(service.url, 'nats')).toEqual({ url: 'nats://10.1.2.3:4222' });
    expect(await askBrokerService(service.url, 'redis')).toEqual({ url: 'redis://10.1.2.3:6379' });
    expect(await askBrokerService(service.url, 'mqtt')).toEqual({ url: 'mqtt://10.1.2.3:1883' });
    expect(await askBrokerService(service.url, 'sqs')).toEqual({ endpoint: 'http://10.1.2.3:9324' });
    expect(await askBrokerService(service.url, 'rabbitmq')).toEqual({ url: 'amqp://u:p@10.1.2.3:5672' });
    expect(await status(`${service.url}/mysql`)).toBe(404);
    await shared.stop();
  });

  it('shared brokers - once stopped, a request names the broker it cannot start, through the service as an error', async () => {
    const shared = new SharedBrokers({ env });
    const service = await serveBrokers(shared);
    services.push(service);
    await shared.stop();
    await expect(shared.get('nats')).rejects.toThrow(/stopped, cannot start nats/);
    await expect(askBrokerService(service.url, 'kafka')).rejects.toThrow(/^shared kafka: shared brokers: stopped, cannot start kafka$/);
  });
});
