import { describe, expect, it } from 'vitest';
import { createSecretResolver } from '../../src/secrets/resolver.js';
import { tlsOptionsFromConfig, tlsSchema } from '../../transports/shared/tls-schema.js';

const secrets = createSecretResolver({ env: { CA: 'CA PEM', CERT: 'CERT PEM', KEY: 'KEY PEM' } });
const resolveSecret = (ref: string) => secrets.resolve(ref);

describe('tls schema', () => {
  it('tls schema - true or the settings; a certificate without its key and an unknown field are refused', () => {
    expect(tlsSchema.parse(true)).toBe(true);
    expect(tlsSchema.parse({ caRef: '${env:CA}', servername: 'broker.internal', rejectUnauthorized: false })).toEqual({ caRef: '${env:CA}', servername: 'broker.internal', rejectUnauthorized: false });
    expect(tlsSchema.safeParse({ certRef: '${env:CERT}' }).success).toBe(false);
    expect(tlsSchema.safeParse({ ca: 'inline PEM' }).success).toBe(false);
    expect(tlsSchema.safeParse(false).success).toBe(false);
  });

  it('tls schema - the references resolve to PEM text and the other settings stay as written', async () => {
    expect(await tlsOptionsFromConfig({ caRef: '${env:CA}', certRef: '${env:CERT}', keyRef: '${env:KEY}', servername: 'b' }, resolveSecret)).toEqual({ ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM', servername: 'b' });
    expect(await tlsOptionsFromConfig({ rejectUnauthorized: true }, resolveSecret)).toEqual({ rejectUnauthorized: true });
  });
});
