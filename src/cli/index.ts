/** The agent-rpc command, for bin/. */
export { runCli } from './run-cli.js';
