import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../support/fleet.js';
import { runCliProcess } from '../support/run-cli-process.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const QUICKSTART = join(repoRoot, 'examples', 'quickstart', 'main.ts');
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const SCREENSHOT = join(repoRoot, 'test-results', 'flow-page.png');
// #2e7d32, the colour of an ok call, as the browser reports it.
const OK_COLOUR = 'rgb(46,125,50)';

let browser: Browser | undefined;
afterAll(async () => browser?.close());

interface DrawnGraph {
  nodes: string[];
  edges: Array<{ source: string; target: string; capability: string; status: string; colour: string }>;
}

describe('flow page - in a real browser', () => {
  it('flow page - headless chromium draws the quickstart nested call (agents, edges, statuses) without any external network', async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`chromium is not installed at ${CHROMIUM}: run tools/browser/install-chromium.sh (or set CHROMIUM_PATH)`);
    const { OPENAI_API_KEY: _openai, ANTHROPIC_API_KEY: _anthropic, ...env } = process.env;
    // A working directory of its own: the fleet's files (DLQ, audit, the triager's workspace) stay apart from other runs.
    const cwd = mkdtempSync(join(tmpdir(), 'flow-page-'));
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), QUICKSTART], { cwd, detached: true, env: { ...env, PORT: '0', AGENT_RPC_TOKEN: 'flow-page-token' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let exitedEarly = false;
    void exited.then(() => (exitedEarly = true));
    try {
      await until(() => {
        if (exitedEarly) throw new Error(`the quickstart exited: ${stderr}`);
        return /^serving: /m.test(stdout);
      }, 120_000);
      const [, base, correlationId] = /^flows: (http:\/\/127\.0\.0\.1:\d+)\/flows\/([0-9a-f-]{36})/m.exec(stdout) ?? [];
      expect(base, stdout).toBeDefined();
      // The link is the nested review's flow: the one the sync line and the linter's nested call report.
      expect(/^sync .*correlationId=([0-9a-f-]{36})/m.exec(stdout)?.[1]).toBe(correlationId);

      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
      const page = await browser.newPage({ viewport: { width: 1280, height: 680 } });
      const blocked: string[] = [];
      const problems: string[] = [];
      // Only the daemon itself may be reached: every other request fails, so the page must need none.
      await page.route('**/*', (route) => {
        const host = new URL(route.request().url()).hostname;
        if (host === '127.0.0.1' || host === 'localhost') return route.continue();
        blocked.push(route.request().url());
        return route.abort();
      });
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));

      await page.goto(`${base}/flows/${correlationId}`);
      await page.waitForSelector('#flow[data-rendered]');
      await page.waitForFunction(() => (globalThis as unknown as { flowGraph?: { edges(): { length: number } } }).flowGraph?.edges().length === 2);
      const drawn = await page.evaluate((): DrawnGraph => {
        type Element = { id(): string; data(key: string): string; style(key: string): string };
        const cy = (globalThis as unknown as { flowGraph: { nodes(): Element[]; edges(): Element[] } }).flowGraph;
        return {
          nodes: cy.nodes().map((n) => n.data('agent')),
          edges: cy.edges().map((e) => ({
            source: e.data('source'),
            target: e.data('target'),
            capability: e.data('capability'),
            status: e.data('status'),
            colour: e.style('line-color').replace(/\s/g, ''),
          })),
        };
      });
      expect(drawn.nodes.sort()).toEqual(['frontdesk', 'linter', 'pr-reviewer']);
      expect(drawn.edges).toEqual([
        { source: 'agent:frontdesk', target: 'agent:pr-reviewer', capability: 'review-pr', status: 'ok', colour: OK_COLOUR },
        { source: 'agent:pr-reviewer', target: 'agent:linter', capability: 'lint', status: 'ok', colour: OK_COLOUR },
      ]);
      expect(await page.getAttribute('#flow', 'data-status')).toBe('ok');
      expect(await page.locator('#waterfall .row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')))).toEqual(['ok', 'ok']);
      // The graph is really painted: cytoscape's canvas has a size.
      expect(await page.locator('#graph canvas').first().boundingBox()).toMatchObject({ width: expect.any(Number) });
      mkdirSync(join(repoRoot, 'test-results'), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      // The list links the flow; a refused call of the demo shows as failed.
      await page.goto(`${base}/flows`);
      expect(await page.locator(`tr[data-correlation-id="${correlationId}"]`).getAttribute('data-status')).toBe('ok');
      const refusedFlow = /^refused .*correlationId=([0-9a-f-]{36})/m.exec(stdout)?.[1];
      expect(await page.locator(`tr[data-correlation-id="${refusedFlow}"]`).getAttribute('data-status')).toBe('failed');
      expect(blocked).toEqual([]);
      expect(problems).toEqual([]);

      // A daemon without the cytoscape package answers its asset with 503 (test/integration/optional-packages.test.ts): the page still draws the waterfall.
      const withoutGraph = await browser.newPage();
      await withoutGraph.route('**/flows/assets/cytoscape.min.js', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"no cytoscape"}' }));
      await withoutGraph.goto(`${base}/flows/${correlationId}`);
      await withoutGraph.waitForSelector('#flow[data-rendered]');
      expect(await withoutGraph.locator('#waterfall .row').count()).toBe(2);
      expect(await withoutGraph.locator('#graph').textContent()).toContain('npm install cytoscape');
      await withoutGraph.close();

      // The same flow in the terminal, from the running daemon.
      const tree = await runCliProcess(['flow', correlationId!, '--url', base!]);
      expect(tree.code, tree.stderr).toBe(0);
      const lines = tree.stdout.trim().split('\n');
      expect(lines[0]).toMatch(new RegExp(`^flow ${correlationId} ok · 2 calls`));
      expect(lines[1]).toMatch(/^└─ frontdesk → pr-reviewer review-pr ok [\d.]+ ms$/);
      expect(lines[2]).toMatch(/^ {3}└─ pr-reviewer → linter lint ok [\d.]+ ms$/);
      const unknown = await runCliProcess(['flow', '01a20bc9-0000-7000-8000-000000000000', '--url', base!]);
      expect(unknown.code).toBe(1);
    } finally {
      process.kill(-child.pid!, 'SIGINT');
      await exited;
    }
  }, 200_000);
});
