import type { AuthProvider } from './provider.js';

/**
 * Trusts the bus: whoever can publish on the topic (broker ACLs, network scope) is let in.
 * Nothing is attached on send; the subject is the transport identity when there is one.
 */
export const internalAuth: AuthProvider = {
  name: 'internal',
  verify: (_envelope, context) => ({ ok: true, subject: context.transportIdentity?.subject }),
};
