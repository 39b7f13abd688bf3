export { writeFileAtomically, type AtomicWriteOptions } from './atomic-file.js';
