export { httpTransport, type HttpTransportOptions, type RemoteSessionRunner } from './http-transport.js';
export { HttpIngress, type ReplyListener } from './http-ingress.js';
