import { auditListCommand, auditVerifyCommand } from './audit-command.js';
import type { CliCommand } from './command.js';

/** Every command of `agent-rpc`; a new command is one more entry. */
export const COMMANDS: readonly CliCommand[] = [auditListCommand, auditVerifyCommand];
