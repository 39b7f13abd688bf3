import { createHash } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { RpcError } from '../../src/errors.js';
import type { ResolvedSqsOptions, SqsModule } from './sqs-options.js';

const MAX_NAME = 80;

/**
 * The SQS queue name of a topic: `<prefix><topic>` with dots as `_` and any other character
 * SQS refuses as `-` (`agents.billing.requests` → `agents_billing_requests`), `.fifo`
 * appended for FIFO queues. A name that would pass 80 characters (with room for `-dlq`) is
 * cut and ends in a hash of the whole, so it stays unique.
 */
export function queueName(topic: string, prefix: string, fifo: boolean, suffix = ''): string {
  let base = `${prefix}${topic}`.replace(/\./g, '_').replace(/[^A-Za-z0-9_-]/g, '-');
  const room = MAX_NAME - '-dlq'.length - (fifo ? '.fifo'.length : 0);
  if (base.length > room) base = `${base.slice(0, room - 9)}-${createHash('sha256').update(base).digest('hex').slice(0, 8)}`;
  return `${base}${suffix}${fifo ? '.fifo' : ''}`;
}

export const isMissingQueue = (error: unknown): boolean => {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  return name === 'QueueDoesNotExist' || name === 'AWS.SimpleQueueService.NonExistentQueue';
};

function setupFailed(queue: string, step: string, cause: unknown): RpcError {
  return new RpcError('EAGENTRPC_BROKER_SETUP_FAILED', `sqs: ${step} of queue ${queue} failed: ${(cause as Error)?.message ?? String(cause)}`, { cause, details: { queue } });
}

/**
 * Queue URLs by topic. An inbox queue is created on first use, with its DLQ queue and a
 * redrive policy to it; an ephemeral (reply) queue is created only by its subscriber, so a
 * reply to an instance that is gone fails instead of leaving a queue nobody reads.
 */
export class SqsQueues {
  private readonly urls = new Map<string, Promise<string>>();

  constructor(
    private readonly client: SQSClient,
    private readonly sqs: SqsModule,
    private readonly options: ResolvedSqsOptions,
  ) {}

  nameOf(topic: string, suffix = ''): string {
    return queueName(topic, this.options.queuePrefix, this.options.fifo, suffix);
  }

  /** Forgets a URL (the queue was deleted, or the server lost it): the next use looks again. */
  forget(topic: string): void {
    this.urls.delete(topic);
  }

  /** The URL of the topic's queue; `create` makes it (durable: with its DLQ) when missing. */
  url(topic: string, mode: 'durable' | 'ephemeral' | 'existing'): Promise<string> {
    let url = this.urls.get(topic);
    if (url === undefined) {
      url = mode === 'existing' ? this.lookup(this.nameOf(topic)) : this.create(topic, mode === 'ephemeral');
      url.catch(() => this.urls.delete(topic));
      this.urls.set(topic, url);
    }
    return url;
  }

  /** The URL of the DLQ queue of a durable topic (created with it, or on its own when missing). */
  dlqUrl(topic: string): Promise<string> {
    const key = `${topic}\n-dlq`;
    let url = this.urls.get(key);
    if (url === undefined) {
      url = this.createQueue(this.nameOf(topic, '-dlq'), {});
      url.catch(() => this.urls.delete(key));
      this.urls.set(key, url);
    }
    return url;
  }

  /** Forgets the DLQ queue's URL (it went missing). */
  forgetDlq(topic: string): void {
    this.urls.delete(`${topic}\n-dlq`);
  }

  private async lookup(name: string): Promise<string> {
    const { QueueUrl } = await this.client.send(new this.sqs.GetQueueUrlCommand({ QueueName: name }));
    if (QueueUrl === undefined) throw new Error(`no URL for queue ${name}`);
    return QueueUrl;
  }

  private async create(topic: string, ephemeral: boolean): Promise<string> {
    const name = this.nameOf(topic);
    const attributes: Record<string, string> = { VisibilityTimeout: String(this.options.visibilityTimeoutSeconds) };
    if (!ephemeral) {
      // Asked afresh: the DLQ queue may be gone with the queue being re-created.
      this.forgetDlq(topic);
      const dlqUrl = await this.dlqUrl(topic);
      const arn = await this.arnOf(dlqUrl);
      attributes['RedrivePolicy'] = JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: this.options.maxReceiveCount });
    }
    return this.createQueue(name, attributes);
  }

  private async createQueue(name: string, attributes: Record<string, string>): Promise<string> {
    const all = this.options.fifo ? { ...attributes, FifoQueue: 'true', ContentBasedDeduplication: 'true' } : attributes;
    try {
      const { QueueUrl } = await this.client.send(new this.sqs.CreateQueueCommand({ QueueName: name, Attributes: all }));
      if (QueueUrl === undefined) throw new Error('no QueueUrl in the answer');
      return QueueUrl;
    } catch (error) {
      // Created by another agent with other attributes: use it as it is.
      if ((error as { name?: string }).name === 'QueueNameExists') return this.lookup(name).catch((cause: unknown) => Promise.reject(setupFailed(name, 'lookup', cause)));
      throw setupFailed(name, 'creation', error);
    }
  }

  private async arnOf(url: string): Promise<string> {
    try {
      const { Attributes } = await this.client.send(new this.sqs.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
      const arn = Attributes?.['QueueArn'];
      if (arn === undefined) throw new Error('no QueueArn');
      return arn;
    } catch (error) {
      throw setupFailed(url, 'reading the ARN', error);
    }
  }
}
