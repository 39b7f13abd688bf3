/** A throwaway CA with a server certificate for 127.0.0.1 and a client certificate, made with openssl. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  readonly dir: string;
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  /** The client certificate and key as files, for configs that reference them (`file:`). */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  readonly strangerCertFile: string;
  readonly strangerKeyFile: string;
  /** PEM text, as a client passes it to TLS options. */
  readonly ca: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** Signed by another CA: a client the server must refuse. */
  readonly strangerCert: string;
  readonly strangerKey: string;
}

export function createTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'agent-rpc-certs-'));
  const file = (name: string): string => join(dir, name);
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const makeCa = (name: string): void => {
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.pem`);
  };
  const issue = (name: string, ca: string, extension: string): void => {
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-days', '2', '-out', `${name}.pem`, '-extfile', extension);
  };
  makeCa('test-ca');
  makeCa('other-ca');
  execFileSync('sh', ['-c', 'printf "subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth\\n" > server.ext; printf "extendedKeyUsage=clientAuth\\n" > client.ext'], { cwd: dir });
  issue('server', 'test-ca', 'server.ext');
  issue('agent-billing', 'test-ca', 'client.ext');
  issue('stranger', 'other-ca', 'client.ext');
  const read = (name: string): string => readFileSync(file(name), 'utf8');
  return {
    dir,
    caFile: file('test-ca.pem'),
    serverCertFile: file('server.pem'),
    serverKeyFile: file('server.key'),
    clientCertFile: file('agent-billing.pem'),
    clientKeyFile: file('agent-billing.key'),
    strangerCertFile: file('stranger.pem'),
    strangerKeyFile: file('stranger.key'),
    ca: read('test-ca.pem'),
    clientCert: read('agent-billing.pem'),
    clientKey: read('agent-billing.key'),
    strangerCert: read('stranger.pem'),
    strangerKey: read('stranger.key'),
  };
}
