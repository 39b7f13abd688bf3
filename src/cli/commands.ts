import { auditListCommand, auditVerifyCommand } from './audit-command.js';
import { callCommand } from './call-command.js';
import { codegenCommand } from './codegen-command.js';
import { emitCommand } from './emit-command.js';
import type { CliCommand } from './command.js';
import { flowCommand } from './flow-command.js';
import { dlqListCommand, dlqRequeueCommand, dlqShowCommand } from './dlq-command.js';
import { rpcCapabilitiesCommand, rpcPeersCommand } from './rpc-command.js';
import { runCommand } from './run-command.js';
import { serveCommand } from './serve-command.js';

/** Every command of `agent-rpc`; a new command is one more entry. */
export const COMMANDS: readonly CliCommand[] = [
  serveCommand,
  callCommand,
  emitCommand,
  flowCommand,
  runCommand,
  codegenCommand,
  rpcPeersCommand,
  rpcCapabilitiesCommand,
  dlqListCommand,
  dlqShowCommand,
  dlqRequeueCommand,
  auditListCommand,
  auditVerifyCommand,
];
