import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RequestAgentOptions } from '../../src/rpc/request-agent.js';
import type { AgentProcessConfig, ChildMessage, ParentMessage } from './agent-process.js';

export interface RemoteCallResult {
  status: string;
  response?: unknown;
  error?: { code: string; message: string; retriable: boolean };
  correlationId: string;
  messageId?: string;
  progress: unknown[];
}

const entry = fileURLToPath(new URL('./agent-process.ts', import.meta.url));

/** An agent node in its own process, on a real broker. */
export class AgentProcess {
  readonly busEvents: Array<{ name: string; event: unknown }> = [];
  readonly exited: Promise<number | null>;
  private nextId = 0;
  private readonly waiting = new Map<number, (result: RemoteCallResult) => void>();

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'result') {
        this.waiting.get(message.id)?.(message.result as RemoteCallResult);
        this.waiting.delete(message.id);
      } else if (message.type === 'bus') this.busEvents.push({ name: message.name, event: message.event });
    });
  }

  static async start(config: AgentProcessConfig): Promise<AgentProcess> {
    const child = fork(entry, [JSON.stringify(config)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const agent = new AgentProcess(child);
    await new Promise<void>((resolve, reject) => {
      child.on('message', (message: ChildMessage) => {
        if (message.type === 'ready') resolve();
        if (message.type === 'failed') reject(new Error(`agent ${config.id} failed to start: ${message.error}`));
      });
      void agent.exited.then((code) => reject(new Error(`agent ${config.id} exited with ${code} before it was ready`)));
    });
    return agent;
  }

  /** False once the process has exited, for whatever reason. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  call(options: RequestAgentOptions): Promise<RemoteCallResult> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.send({ type: 'call', id, options } satisfies ParentMessage);
    });
  }

  /** Lets every `held` request this process is handling answer. */
  release(): void {
    this.child.send({ type: 'release' } satisfies ParentMessage);
  }

  /** SIGSTOP: the process, and its consumers, stand still until resume(). */
  pause(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  /** Graceful: the node drains and closes, the process exits 0. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.connected) this.child.send({ type: 'close' } satisfies ParentMessage);
    return this.exited;
  }

  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
