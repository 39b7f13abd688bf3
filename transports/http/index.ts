export { httpTransport, type HttpTransportOptions, type RemoteSessionRunner } from './http-transport.js';
export { HttpIngress, type ReplyListener } from './http-ingress.js';
export { runRemoteSession, unknownNodeError, type RemoteSessionOptions, type RemoteSessionRequest, type RemoteSessionResult } from './remote-session-client.js';
export { formatRemoteOutput, type RejectedPrompt } from './format-remote-output.js';
