/** The process's one HTTP server and what its front doors are built from: routes, API tokens, bounded JSON bodies, files of JSON records. */
export { type ApiRequest, type ApiResponse, type ApiRoute, apiError } from './api-route.js';
export { ApiTokens } from './api-tokens.js';
export { startNodeHttpServer, type FrontDoor, type NodeHttpServer, type NodeHttpServerOptions } from './http-server.js';
export { JsonFileStore } from './json-file-store.js';
export { ABORTED, badBodyText, INVALID, NOT_UTF8, readJsonBody, TOO_DEEP, TOO_LARGE } from './read-body.js';
