import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startA2aTestAgent, type A2aTestAgent } from '../support/a2a-test-agent.js';
import { runCliProcess } from '../support/run-cli-process.js';

const TOKEN = 'a2a-token-3c9e71';
let peer: A2aTestAgent | undefined;
afterEach(async () => peer?.close());

/** The config directory of an agent whose rpc-peers.yaml names the A2A agent, its token from the environment. */
function configDir(url: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-cli-'));
  writeFileSync(join(dir, 'agent.yaml'), 'version: 1\nagent: { id: front }\nlog: { level: warn }\ndataDir: ./data\n');
  writeFileSync(join(dir, 'capabilities.yaml'), 'version: 1\ntransports:\n  memory: {}\ncapabilities: []\n');
  writeFileSync(join(dir, 'rpc-peers.yaml'), `version: 1\npeers:\n  - id: agent://summarizer\n    transports: [{ kind: a2a, url: "${url}", tokenRef: "\${env:SUMMARIZER_TOKEN}" }]\n`);
  return dir;
}

describe('a2a cli - the agent-rpc command reaches an A2A agent named in rpc-peers.yaml', () => {
  it('a2a cli - rpc capabilities --peer lists the skills; call returns the task’s result; the route’s token is sent', async () => {
    peer = await startA2aTestAgent({ streaming: true, token: TOKEN });
    const dir = configDir(peer.baseUrl);
    const env = { SUMMARIZER_TOKEN: TOKEN };

    const listed = await runCliProcess(['rpc', 'capabilities', '--peer', 'summarizer', '--json', '--config', dir], env);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { name: string }).name)).toEqual(['summarize', 'explode', 'slow']);

    const called = await runCliProcess(['call', 'agent://summarizer', 'summarize', '--payload', '"one two three"', '--config', dir], env);
    expect(called.code).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ status: 'ok', response: { words: 3, skill: 'summarize' } });
  });

  it('a2a cli - a wrong token is refused by the peer: the call fails with EAGENTRPC_PEER_CARD_INVALID', async () => {
    peer = await startA2aTestAgent({ streaming: true, token: TOKEN });
    const called = await runCliProcess(['call', 'agent://summarizer', 'summarize', '--payload', '"x"', '--config', configDir(peer.baseUrl)], { SUMMARIZER_TOKEN: 'wrong' });
    expect(called.code).toBe(1);
    expect(JSON.parse(called.stdout)).toMatchObject({ status: 'error', error: { code: 'EAGENTRPC_PEER_CARD_INVALID' } });
    expect(peer.record.messages).toHaveLength(0);
  });
});
