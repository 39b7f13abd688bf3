import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The address clients reach the node's HTTP server at: agent.yaml `http.publicUrl`, else
 * `http://<host>:<port>` (an any-address bind names the loopback, the one address sure to work).
 */
export function publicBaseUrl(publicUrl: string | undefined, host: string, port: number): string {
  if (publicUrl !== undefined) return publicUrl.replace(/\/+$/, '');
  const named = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${named.includes(':') ? `[${named}]` : named}:${port}`;
}

/** agent-rpc's version, from its package.json (this file runs from the sources or from dist/). */
export async function packageVersion(): Promise<string> {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return '0.0.0';
    dir = parent;
  }
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}
