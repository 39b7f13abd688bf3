export { httpTransport, type HttpTransportOptions } from './http-transport.js';
