/**
 * The A2A server's paths, headers and defaults, apart from the modules that serve A2A: those
 * import the A2A SDK (an optional package), these are read by processes that may not have it.
 */

export const A2A_PATH_PREFIX = '/a2a/';
/** Tasks kept readable per user and agent unless configured otherwise. */
export const DEFAULT_A2A_TASKS_PER_USER = 1000;

/** Who an A2A task's request comes from; the API user is named in a header. */
export const A2A_CALLER = 'agent://a2a';
export const A2A_TASK_HEADER = 'agent-rpc-a2a-task';
export const A2A_USER_HEADER = 'agent-rpc-a2a-user';
