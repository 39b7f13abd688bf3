/**
 * One error class and one table of stable codes. Tests and callers branch on `code`,
 * never on message text. `docs/errors.md` documents every code in this table; a unit test
 * keeps the two in step.
 */

export const RPC_ERROR_CODES = {
  EAGENTRPC_TIMEOUT: { retriable: true, summary: 'No final response arrived before the deadline.' },
  EAGENTRPC_ABANDONED: { retriable: true, summary: 'The caller stopped waiting: its node closed, the call was cancelled, or its transport connection stayed lost.' },
  EAGENTRPC_BUSY: { retriable: true, summary: 'A capacity limit was reached (pending registry, transport backlog); nothing was sent.' },
  EAGENTRPC_NO_PEER: { retriable: false, summary: 'The peer table has no entry for the target agent.' },
  EAGENTRPC_NO_TRANSPORT: { retriable: false, summary: "The peer's transport kind is not loaded on this node." },
  EAGENTRPC_PERMISSION_DENIED: { retriable: false, summary: 'The permission list denies this call; nothing was sent.' },
  EAGENTRPC_UNKNOWN_CAPABILITY: { retriable: false, summary: 'The target agent has no handler for the capability.' },
  EAGENTRPC_HANDLER_FAILED: { retriable: false, summary: 'The handler threw an error that carried no code of its own.' },
  EAGENTRPC_DEADLINE_EXCEEDED: { retriable: false, summary: 'The request reached the target after its deadline and was not dispatched.' },
  EAGENTRPC_AUTH_REJECTED: { retriable: false, summary: 'The receiver could not verify the identity carried by the envelope.' },
  EAGENTRPC_AUTH_UNAVAILABLE: { retriable: true, summary: 'No credentials could be obtained for the peer (token endpoint unreachable or refusing); nothing was sent.' },
  EAGENTRPC_GUARD_REJECTED: { retriable: false, summary: 'The runaway guard refused an agent-to-agent call (loop, depth, too many agents, flow too old, rate or total); details name the rule and the figures.' },
  EAGENTRPC_SCHEMA_VIOLATION: { retriable: false, summary: "A payload or result does not match the capability's JSON Schema; details name the direction and the JSON pointer." },
  EAGENTRPC_INVALID_RESPONSE: { retriable: false, summary: 'A response envelope carried a payload that is not a result object.' },
  EAGENTRPC_REMOTE_NODE_UNKNOWN: { retriable: false, summary: 'No remote node of that name is configured; details list the available nodes.' },
  EAGENTRPC_REMOTE_UNREACHABLE: { retriable: true, summary: 'The remote node could not be reached over HTTP (connection refused, DNS, TLS, connect timeout).' },
  EAGENTRPC_REMOTE_API: { retriable: false, summary: "The remote node's session API answered with an HTTP error status (401, 403, 503, ...); details carry the status." },
  EAGENTRPC_REMOTE_POLL_FAILED: { retriable: true, summary: 'Polling a remote session failed more than 3 times in a row; details carry the session id.' },
  EAGENTRPC_REMOTE_TIMEOUT: { retriable: true, summary: "The remote session did not finish within the node's timeout; it was cancelled remotely; details carry the session id." },
  EAGENTRPC_REMOTE_AGENT_FAILED: { retriable: false, summary: 'The remote agent ran and failed; the message is its own, details carry the session id.' },
  EAGENTRPC_REMOTE_EXECUTION_NOT_SUPPORTED: { retriable: false, summary: 'A component of the context (a local file store, local tracing) cannot leave this process; nothing was sent.' },
  EAGENTRPC_CREDENTIAL_INVALID: { retriable: false, summary: 'A stored credential failed authenticated decryption: tampered, moved to another record, or sealed with another key.' },
  EAGENTRPC_REMOTE_NODE_UNREADABLE: { retriable: false, summary: 'An entry of the remote node store is not a node record (edited by hand or damaged); it is skipped and reported.' },
  EAGENTRPC_MISSING_PACKAGE: { retriable: false, summary: 'An optional package the configured component needs is not installed.' },
  EAGENTRPC_CONNECT_FAILED: { retriable: true, summary: 'The transport could not reach its broker (connect timeout or client retries exhausted); the message names the servers and the last error.' },
  EAGENTRPC_TRANSPORT_CLOSED: { retriable: true, summary: 'The transport was closed before or while the operation ran.' },
  EAGENTRPC_PUBLISH_FAILED: { retriable: true, summary: 'The transport could not publish the envelope.' },
  EAGENTRPC_DLQ_WRITE_FAILED: { retriable: true, summary: 'The DLQ sink could not store a record; the message is delivered again while it has attempts left, then acked and logged.' },
  EAGENTRPC_DLQ_RECORD_NOT_FOUND: { retriable: false, summary: 'A requeue named a DLQ record the agent does not have.' },
  EAGENTRPC_IDP_UNREACHABLE: { retriable: true, summary: "The OpenID provider's discovery document or key set could not be fetched, and no fresh keys were cached." },
  EAGENTRPC_FLOW_STORE_UNAVAILABLE: { retriable: true, summary: 'The shared flow store of the runaway guard did not answer in time.' },
  EAGENTRPC_AUDIT_CLOSED: { retriable: false, summary: 'A record was appended to an audit log after it was closed.' },
  EAGENTRPC_AUDIT_WRITE_FAILED: { retriable: false, summary: 'Writing the audit log failed; the log records nothing more until it is reopened.' },
  EAGENTRPC_AUDIT_CHAIN_BROKEN: { retriable: false, summary: 'An existing audit log is truncated, modified or malformed at its end, so appending to it is refused; details name the problem.' },
  EAGENTRPC_MODEL_FAILED: { retriable: true, summary: 'The model provider answered with an error or could not be reached; retriable for 408, 409, 429, 5xx, connection errors and timeouts only; details name the model, provider and HTTP status.' },
  EAGENTRPC_AGENT_MAX_ITERATIONS: { retriable: false, summary: 'A model agent reached its maxIterations without a final answer; details carry the partial transcript.' },
  EAGENTRPC_BROKER_SETUP_FAILED: { retriable: true, summary: 'The broker refused or failed to set up what a topic needs (a JetStream stream, a Kafka topic); details name the topic.' },
  EAGENTRPC_WORKFLOW_STEP_FAILED: { retriable: false, summary: 'A workflow run failed because a step failed; details name the step and the code of its error.' },
  EAGENTRPC_WORKFLOW_STEP_TIMEOUT: { retriable: true, summary: "A workflow step did not finish within its timeoutMs and was aborted; details name the step and the timeout." },
  EAGENTRPC_PEER_FAILED: { retriable: false, summary: "An A2A peer's task failed, was rejected or was canceled by the peer; details carry the task id and its state." },
  EAGENTRPC_PEER_CARD_INVALID: { retriable: true, summary: "An A2A peer's agent card could not be fetched or read, or offers no interface this node speaks; details carry the card URL." },
  EAGENTRPC_PEER_INPUT_REQUIRED: { retriable: false, summary: 'An A2A peer asked for more input (or authorization) in the middle of a task; the task was canceled; details carry its question.' },
} as const satisfies Record<string, { retriable: boolean; summary: string }>;

export type RpcErrorCode = keyof typeof RPC_ERROR_CODES;

/** The form an error takes inside a response envelope: data, never a stack trace. */
export interface WireError {
  code: string;
  message: string;
  retriable: boolean;
  details?: Record<string, unknown>;
}

export interface RpcErrorOptions {
  retriable?: boolean;
  cause?: unknown;
  details?: Record<string, unknown>;
}

function isKnownCode(code: string): code is RpcErrorCode {
  return Object.hasOwn(RPC_ERROR_CODES, code);
}

/**
 * `code` is one of RPC_ERROR_CODES for the runtime's own failures, or an application code
 * a handler chose (e.g. `PR_NOT_FOUND`); application codes cross the wire verbatim.
 */
export class RpcError extends Error {
  readonly code: string;
  readonly retriable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: RpcErrorCode | (string & {}), message: string, options: RpcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RpcError';
    this.code = code;
    this.retriable = options.retriable ?? (isKnownCode(code) ? RPC_ERROR_CODES[code].retriable : false);
    this.details = options.details;
  }

  toWire(): WireError {
    // Members in RFC 8785 order, as the envelope encoder writes them.
    return this.details === undefined
      ? { code: this.code, message: this.message, retriable: this.retriable }
      : { code: this.code, details: this.details, message: this.message, retriable: this.retriable };
  }

  static fromWire(wire: WireError): RpcError {
    return new RpcError(wire.code, wire.message, { retriable: wire.retriable, details: wire.details });
  }
}

/**
 * Turns anything a handler threw into an RpcError. Errors that carry a string `code`
 * (RpcError or an application error shaped like one) keep it; everything else becomes
 * EAGENTRPC_HANDLER_FAILED with the original kept as `cause` locally (never sent).
 */
export function toRpcError(thrown: unknown): RpcError {
  if (thrown instanceof RpcError) return thrown;
  if (thrown instanceof Error) {
    const code = (thrown as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0) {
      return new RpcError(code, thrown.message, { cause: thrown });
    }
    return new RpcError('EAGENTRPC_HANDLER_FAILED', thrown.message, { cause: thrown });
  }
  return new RpcError('EAGENTRPC_HANDLER_FAILED', String(thrown));
}

export function isWireError(value: unknown): value is WireError {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.code === 'string' &&
    typeof v.message === 'string' &&
    typeof v.retriable === 'boolean' &&
    (v.details === undefined || (typeof v.details === 'object' && v.details !== null && !Array.isArray(v.details)))
  );
}
