/** Typed clients generated from capabilities.yaml, for the CLI and the tools entry point. */
export { generateClient } from './generate-client.js';
