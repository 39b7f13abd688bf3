import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ServerResponse } from 'node:http';
import { flowView, summarize, type FlowRecordStore } from '../index.js';
import { missingPackage } from '../../optional-package.js';
import type { FrontDoor } from '../../http-server/index.js';
import { streamFlow } from './flow-events.js';
import { flowListPage, flowPage } from './flow-page-html.js';
import { FLOW_PAGE_SCRIPT } from './flow-page-script.js';
import { FLOW_PAGE_CSS } from './flow-page-style.js';

export interface FlowRoutesOptions {
  readonly store: FlowRecordStore;
  /** Said on `/flows` and in `/flows.json`: whose flows these are. */
  readonly scope: 'local' | 'fleet';
}

const ID_RE = /^\/flows\/([A-Za-z0-9._:-]{1,200}?)(\.json|\/events)?$/;
// The pages load nothing from elsewhere: everything they use is served here. Scripts come
// from these files only; cytoscape styles its container inline, so inline styles are allowed.
const PAGE_HEADERS = { 'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:", 'cache-control': 'no-store' };
// cytoscape is an optional peer dependency: without it the node still serves everything else.
const CYTOSCAPE_MISSING = missingPackage("the flow pages' graph", 'cytoscape').message;

/**
 * The flow pages on the node's HTTP port: `/flows` and `/flows.json` (recent flows),
 * `/flows/<correlationId>` (graph and waterfall, live), `.json` and `/events` (SSE) of one
 * flow, and the pages' assets (cytoscape from the installed package, 503 when it is not). Like `/metrics` they
 * need no token: the records hold no payloads, and the server binds 127.0.0.1 by default.
 */
export function flowRoutes(options: FlowRoutesOptions): FrontDoor {
  const { store, scope } = options;
  const cytoscape = lazyPackageFile('cytoscape/dist/cytoscape.min.js');
  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== '/flows' && !path.startsWith('/flows/') && path !== '/flows.json') return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' }).end(JSON.stringify({ error: 'method not allowed' }));
      return true;
    }
    if (path === '/flows') return html(res, flowListPage(store.recent().map(summarize), scopeText(scope, store)));
    if (path === '/flows.json') return json(res, 200, { scope, retention: store.retention, flows: store.recent().map(summarize) });
    if (path === '/flows/assets/cytoscape.min.js') {
      const script = await cytoscape();
      return script ? asset(res, 'text/javascript', script) : json(res, 503, { error: CYTOSCAPE_MISSING });
    }
    if (path === '/flows/assets/flow-page.js') return asset(res, 'text/javascript', FLOW_PAGE_SCRIPT);
    if (path === '/flows/assets/flow-page.css') return asset(res, 'text/css', FLOW_PAGE_CSS);
    const match = ID_RE.exec(path);
    if (!match || match[1] === 'assets') return json(res, 404, { error: 'not found' });
    const [, correlationId, suffix] = match as unknown as [string, string, string | undefined];
    if (suffix === undefined) return html(res, flowPage(correlationId));
    if (suffix === '/events') {
      streamFlow(req, res, store, correlationId);
      return true;
    }
    const flow = store.get(correlationId);
    return flow ? json(res, 200, flowView(flow)) : json(res, 404, { error: `no flow ${correlationId} is kept here` });
  };
}

function scopeText(scope: FlowRoutesOptions['scope'], store: FlowRecordStore): string {
  const { maxFlows, maxAgeMs } = store.retention;
  const whose = scope === 'fleet' ? "the fleet's flows (flows topic)" : "this process's agents' calls";
  return `${whose}; the last ${maxFlows} flows, each kept ${Math.round(maxAgeMs / 60_000)} min after its last call`;
}

function html(res: ServerResponse, body: string): true {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS }).end(body);
  return true;
}

function json(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  return true;
}

function asset(res: ServerResponse, type: string, body: string | Buffer): true {
  res.writeHead(200, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'max-age=300' }).end(body);
  return true;
}

/** Read once, on first use; undefined while its package is not installed (looked up again next time). */
function lazyPackageFile(specifier: string): () => Promise<Buffer | undefined> {
  let content: Promise<Buffer> | undefined;
  return async () => {
    if (content) return content;
    let path: string;
    try {
      path = createRequire(import.meta.url).resolve(specifier);
    } catch {
      return undefined;
    }
    return (content = readFile(path));
  };
}

