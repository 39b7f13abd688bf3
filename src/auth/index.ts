/** Message auth (signing and verifying envelopes, replay protection) and the API token roles, for the core and the layers above. JWT and OAuth 2 providers are imported from their own modules: they bring jose. */
export { attachAuth } from './attach.js';
export { hmacAuth } from './hmac-provider.js';
export { internalAuth } from './internal-provider.js';
export type { AuthProvider, AuthVerdict } from './provider.js';
export { deny } from './reasons.js';
export type { SharedReplayStore } from './replay-guard.js';
export { replayStoreErrorReporter } from './replay-memory.js';
export { roleCan, ROLES, type Permission, type Principal, type Role } from './roles.js';
