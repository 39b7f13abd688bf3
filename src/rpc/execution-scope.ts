/** One message of a conversation carried by the remote execution protocol. */
export interface ExecutionMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  /** The tool a `tool` message is the result of. */
  readonly name?: string;
}

/** A key-value store both sides of a remote execution point at (docs/remote-execution.md). */
export interface ExecutionStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}

/**
 * What a request handed in by `POST /execute` carries besides its payload: the executor's
 * conversation and thoughts, and the shared store. A handler appends what it adds to
 * `added`; only that delta goes back. Undefined for broker traffic.
 */
export interface ExecutionScope {
  readonly messages: readonly ExecutionMessage[];
  readonly thoughts: readonly string[];
  readonly store?: ExecutionStore;
  readonly added: { readonly messages: ExecutionMessage[]; readonly thoughts: string[] };
}
