import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { webSearchTool, type ToolContext } from '../../src/model-agents/index.js';
import { noAudit } from '../../src/audit/audit-log.js';
import { silentLogger } from '../../src/logger.js';

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

/** A SearXNG stand-in on loopback: records each request's URL and answers as told. */
class SearchServer {
  readonly urls: URL[] = [];
  private waiting: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
  ) {}

  static async start(answer: Answer): Promise<SearchServer> {
    let self: SearchServer | undefined;
    const server = createServer((request, response) => {
      self!.urls.push(new URL(request.url!, self!.endpoint));
      for (const wake of self!.waiting.splice(0)) wake();
      answer(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new SearchServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/search`);
    return self;
  }

  /** Resolves once a request has arrived. */
  requested(): Promise<void> {
    return this.urls.length > 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let server: SearchServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(answer: Answer): Promise<SearchServer> {
  server = await SearchServer.start(answer);
  return server;
}

const json = (status: number, body: unknown): Answer => (_request, response) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const context = (signal?: AbortSignal): ToolContext => ({ principal: { user: 'alice', role: 'operator' }, agentId: 'assistant', audit: noAudit, logger: silentLogger, ...(signal ? { signal } : {}) });

const results = Array.from({ length: 8 }, (_, i) => ({ url: `https://example.org/${i + 1}`, title: `Result ${i + 1}`, content: `Snippet  number\n${i + 1}`, engine: 'duckduckgo' }));

describe('web_search tool against a SearXNG-shaped server', () => {
  it('web search - sends q and format=json and formats numbered results', async () => {
    const api = await serve(json(200, { query: 'agent rpc', number_of_results: 8, results }));
    const result = await webSearchTool({ endpoint: api.endpoint }).execute({ query: 'agent rpc & more' }, context());
    expect(result.isError).toBeUndefined();
    expect(result.output.split('\n\n')).toHaveLength(5);
    expect(result.output).toMatch(/^1\. Result 1\n {3}https:\/\/example\.org\/1\n {3}Snippet number 1\n\n2\. Result 2/);
    expect(api.urls).toHaveLength(1);
    expect(api.urls[0]!.pathname).toBe('/search');
    expect(Object.fromEntries(api.urls[0]!.searchParams)).toEqual({ q: 'agent rpc & more', format: 'json' });
  });

  it('web search - max_results and the maxResults option limit the results; long snippets are cut', async () => {
    const long = [{ url: 'https://example.org/long', title: '', content: 'word '.repeat(200) }, ...results];
    const api = await serve(json(200, { query: 'x', results: long }));
    const tool = webSearchTool({ endpoint: api.endpoint, maxResults: 3 });
    expect((await tool.execute({ query: 'x' }, context())).output.split('\n\n')).toHaveLength(3);
    const two = (await tool.execute({ query: 'x', max_results: 2 }, context())).output;
    expect(two.split('\n\n')).toHaveLength(2);
    expect(two).toMatch(/^1\. https:\/\/example\.org\/long\n {3}https:\/\/example\.org\/long\n {3}(word ){60}\.\.\.\n/);
    expect((await tool.execute({ query: 'x', max_results: 21 }, context())).isError).toBe(true);
  });

  it('web search - an HTTP 500 is an error result', async () => {
    const api = await serve(json(500, { error: 'engines down' }));
    expect(await webSearchTool({ endpoint: api.endpoint }).execute({ query: 'x' }, context())).toEqual({
      isError: true,
      output: 'web_search failed: the search service answered HTTP 500 Internal Server Error: {"error":"engines down"}',
    });
  });

  it('web search - an answer that is not JSON is an error result', async () => {
    const api = await serve((_request, response) => response.end('<html>rate limited</html>'));
    expect(await webSearchTool({ endpoint: api.endpoint }).execute({ query: 'x' }, context())).toEqual({
      isError: true,
      output: 'web_search failed: the search service did not answer with SearXNG JSON: <html>rate limited</html>',
    });
  });

  it('web search - no results is a plain answer', async () => {
    const api = await serve(json(200, { query: 'zzz', results: [] }));
    expect(await webSearchTool({ endpoint: api.endpoint }).execute({ query: 'zzz' }, context())).toEqual({ output: 'No results for "zzz".' });
  });

  it('web search - aborting the context signal ends a search the server never answers', async () => {
    const api = await serve(() => {});
    const controller = new AbortController();
    const pending = webSearchTool({ endpoint: api.endpoint }).execute({ query: 'slow' }, context(controller.signal));
    await api.requested();
    controller.abort();
    expect(await pending).toEqual({ isError: true, output: 'web_search failed: the search was cancelled' });
  });

  it('web search - a server slower than timeoutMs is an error result', async () => {
    const api = await serve(() => {});
    expect(await webSearchTool({ endpoint: api.endpoint, timeoutMs: 100 }).execute({ query: 'slow' }, context())).toEqual({
      isError: true,
      output: 'web_search failed: the search service did not answer within 100 ms',
    });
  });

  it('web search - bad options throw naming the field', () => {
    expect(() => webSearchTool({ endpoint: 'not a url' })).toThrow(TypeError);
    expect(() => webSearchTool({ endpoint: 'ftp://example.org' })).toThrow(/endpoint/);
    expect(() => webSearchTool({ endpoint: 'http://127.0.0.1/', maxResults: 0 })).toThrow(RangeError);
    expect(() => webSearchTool({ endpoint: 'http://127.0.0.1/', maxResults: 21 })).toThrow(/maxResults/);
    expect(() => webSearchTool({ endpoint: 'http://127.0.0.1/', timeoutMs: 1.5 })).toThrow(/timeoutMs/);
  });
});
