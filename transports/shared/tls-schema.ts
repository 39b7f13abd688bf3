import { z } from 'zod';
import { secretRefSchema, type SecretValue } from '../../src/secrets/index.js';

/**
 * The settings of a TLS block that every broker client takes: PEM references (a client
 * certificate and key for mutual TLS go together), the name the server's certificate must
 * carry, and whether to check it. A client with settings of its own extends it.
 */
export const tlsOptionsSchema = z
  .strictObject({
    caRef: secretRefSchema.optional(),
    certRef: secretRefSchema.optional(),
    keyRef: secretRefSchema.optional(),
    servername: z.string().min(1).optional(),
    rejectUnauthorized: z.boolean().optional(),
  })
  .refine((tls) => (tls.certRef === undefined) === (tls.keyRef === undefined), { message: 'certRef and keyRef go together', path: ['keyRef'] });
export type TlsOptionsConfig = z.infer<typeof tlsOptionsSchema>;

/** A TLS block of capabilities.yaml: `true` for the system's CAs, or its settings. */
export const tlsSchema = z.union([z.literal(true), tlsOptionsSchema]);

/** The PEM texts a block's references name. */
export interface ResolvedPems {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

/**
 * The settings of a TLS block as node's `tls.connect` takes them (and the broker clients pass
 * through): the references resolved to PEM text, every other field as written.
 */
export async function tlsOptionsFromConfig<T extends TlsOptionsConfig>(
  config: T,
  resolveSecret: (ref: string) => Promise<SecretValue>,
): Promise<Omit<T, 'caRef' | 'certRef' | 'keyRef'> & ResolvedPems> {
  const { caRef, certRef, keyRef, ...plain } = config;
  const text = async (ref: string | undefined): Promise<string | undefined> => (ref === undefined ? undefined : (await resolveSecret(ref)).reveal());
  const [ca, cert, key] = await Promise.all([text(caRef), text(certRef), text(keyRef)]);
  return { ...plain, ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }) };
}
