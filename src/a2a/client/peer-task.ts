import type { Message, SendMessageRequest, StreamResponse, Task, TaskStatus } from '@a2a-js/sdk';
import { RpcError } from '../../errors.js';
import { isFinal, progressOf, resultOf, TASK_STATES, taskError, taskResult } from '../a2a-mapping.js';
import type { PeerClient } from './peer-clients.js';

/** What following a task reports, in order: progress (any number), then one outcome. */
export interface TaskListener {
  /** The peer made a task of the message: from now on it can be canceled. */
  taskStarted(taskId: string): void;
  progress(data: { state: string; message?: string }): void;
}

export interface PeerTaskOptions {
  readonly signal: AbortSignal;
  /** Between two polls of a task when the peer does not stream. */
  readonly pollIntervalMs: number;
  /** HTTP headers of every request of this call (the caller's bearer token). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Sends the message and follows what the peer makes of it: over SSE when its card offers
 * streaming, else by sending without waiting (`returnImmediately`) and polling `GetTask`.
 * Resolves with the result; rejects with the typed error of a task that did not complete,
 * or with the SDK's error when the peer could not be reached.
 */
export async function runPeerTask(peer: PeerClient, message: Message, listener: TaskListener, options: PeerTaskOptions): Promise<unknown> {
  const request: SendMessageRequest = {
    tenant: '',
    message,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: !peer.streaming },
    metadata: undefined,
  };
  const requestOptions = requestOptionsOf(options);
  let task: Task | undefined;
  if (peer.streaming) {
    const follower = new StreamFollower(peer.url, listener);
    for await (const event of peer.client.sendMessageStream(request, requestOptions)) {
      const done = follower.take(event);
      if (done) return done.result;
    }
    task = follower.task;
    // A stream that ended before the task did: poll the rest, from the status it last reported.
    if (task === undefined) throw new RpcError('EAGENTRPC_PEER_FAILED', `${peer.url} ended its stream without a task or message`, { details: { url: peer.url } });
    return pollTask(peer, task, listener, options, task.status === undefined ? undefined : progressKey(progressOf(task.status)));
  } else {
    const sent = await peer.client.sendMessage(request, requestOptions);
    if (!isTask(sent)) return resultOf(sent.parts);
    task = sent;
    listener.taskStarted(task.id);
  }
  return pollTask(peer, task, listener, options);
}

/** Polls the task until it ends; `reported` is the progress already reported (over a stream), not reported again. */
async function pollTask(peer: PeerClient, first: Task, listener: TaskListener, options: PeerTaskOptions, reported?: string): Promise<unknown> {
  let task = first;
  for (;;) {
    if (isFinal(task.status)) return finish(peer.url, task);
    const progress = progressOf(task.status);
    const key = progressKey(progress);
    if (key !== reported) listener.progress(progress);
    reported = key;
    await pause(options.pollIntervalMs, options.signal);
    task = await peer.client.getTask({ tenant: '', id: task.id }, requestOptionsOf(options));
  }
}

function progressKey(progress: ReturnType<typeof progressOf>): string {
  return JSON.stringify(progress);
}

function finish(url: string, task: Task): unknown {
  if (task.status?.state === TASK_STATES.completed) return taskResult(task);
  throw taskError(url, task.id, task.status);
}

/** Keeps the task as the stream builds it (status and artifacts) and says when it is over. */
class StreamFollower {
  task: Task | undefined;

  constructor(
    private readonly url: string,
    private readonly listener: TaskListener,
  ) {}

  take(event: StreamResponse): { result: unknown } | undefined {
    const payload = event.payload;
    if (payload === undefined) return undefined;
    switch (payload.$case) {
      case 'message':
        return { result: resultOf(payload.value.parts) };
      case 'task':
        if (this.task === undefined) this.listener.taskStarted(payload.value.id);
        this.task = payload.value;
        return this.status(payload.value.status);
      case 'statusUpdate':
        this.ensureTask(payload.value.taskId, payload.value.contextId);
        this.task!.status = payload.value.status;
        return this.status(payload.value.status);
      case 'artifactUpdate': {
        const artifact = payload.value.artifact;
        this.ensureTask(payload.value.taskId, payload.value.contextId);
        if (artifact === undefined) return undefined;
        const artifacts = this.task!.artifacts;
        const same = artifacts.find((a) => a.artifactId === artifact.artifactId);
        if (same && payload.value.append) same.parts.push(...artifact.parts);
        else if (same) same.parts = [...artifact.parts];
        else artifacts.push({ ...artifact, parts: [...artifact.parts] });
        return undefined;
      }
    }
  }

  private ensureTask(id: string, contextId: string): void {
    if (this.task !== undefined) return;
    this.listener.taskStarted(id);
    this.task = { id, contextId, status: undefined, artifacts: [], history: [], metadata: undefined };
  }

  private status(status: TaskStatus | undefined): { result: unknown } | undefined {
    if (isFinal(status)) return { result: finish(this.url, this.task!) };
    if (status !== undefined) this.listener.progress(progressOf(status));
    return undefined;
  }
}

function isTask(value: Message | Task): value is Task {
  return 'status' in value && 'artifacts' in value;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function requestOptionsOf(options: PeerTaskOptions): { signal: AbortSignal; serviceParameters?: Record<string, string> } {
  return options.headers === undefined ? { signal: options.signal } : { signal: options.signal, serviceParameters: { ...options.headers } };
}
