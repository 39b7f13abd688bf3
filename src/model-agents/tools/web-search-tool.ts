import { positiveInteger } from '../../check-integer.js';
import { defineTool, type Tool, type ToolResult } from '../tool.js';

export const WEB_SEARCH = 'web_search';

const MAX_RESULTS_CEILING = 20;
const MAX_SNIPPET_CHARS = 300;
const MAX_TITLE_CHARS = 200;

export interface WebSearchToolOptions {
  /** A SearXNG-compatible search URL, asked as `<endpoint>?q=<query>&format=json`. */
  readonly endpoint: string;
  /** Results returned when the model does not say; 1..20, default 5. */
  readonly maxResults?: number;
  /** How long one search may take, default 15000 ms. */
  readonly timeoutMs?: number;
  /** Default: the global fetch. */
  readonly fetch?: typeof fetch;
}

interface SearchHit {
  readonly url: string;
  readonly title: string;
  readonly snippet: string;
}

/**
 * `web_search({query, max_results?})`: asks a SearXNG-compatible JSON endpoint and returns
 * numbered results (title, url, snippet). Every failure — HTTP status, timeout, an answer
 * that is not JSON — is a result the model reads, never a thrown error.
 */
export function webSearchTool(options: WebSearchToolOptions): Tool {
  const endpoint = checkedEndpoint(options.endpoint);
  const defaultMax = positiveInteger(options.maxResults ?? 5, 'maxResults');
  if (defaultMax > MAX_RESULTS_CEILING) throw new RangeError(`maxResults must be at most ${MAX_RESULTS_CEILING}, got ${defaultMax}`);
  const timeoutMs = positiveInteger(options.timeoutMs ?? 15_000, 'timeoutMs');
  const fetchImpl = options.fetch ?? fetch;
  return defineTool<{ query: string; max_results?: number }>({
    name: WEB_SEARCH,
    description: `Searches the web and returns the top results, numbered, each with its title, URL and a snippet. Returns ${defaultMax} results unless max_results says otherwise (at most ${MAX_RESULTS_CEILING}).`,
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'What to search for.' },
        max_results: { type: 'integer', minimum: 1, maximum: MAX_RESULTS_CEILING, description: `How many results to return. Default: ${defaultMax}.` },
      },
      required: ['query'],
      additionalProperties: false,
    },
    async run({ query, max_results = defaultMax }, context) {
      const url = new URL(endpoint);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = context.signal ? AbortSignal.any([context.signal, timeout]) : timeout;
      let body: string;
      try {
        const response = await fetchImpl(url, { headers: { accept: 'application/json' }, signal });
        body = await response.text();
        if (!response.ok) return failed(`the search service answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${excerpt(body)}`);
      } catch (error) {
        if (context.signal?.aborted) return failed('the search was cancelled');
        if (timeout.aborted) return failed(`the search service did not answer within ${timeoutMs} ms`);
        return failed(`cannot reach the search service (${(error as Error).message})`);
      }
      const hits = parseHits(body);
      if (hits === undefined) return failed(`the search service did not answer with SearXNG JSON${excerpt(body)}`);
      if (hits.length === 0) return { output: `No results for "${query}".` };
      return { output: hits.slice(0, max_results).map(format).join('\n\n') };
    },
  });
}

function checkedEndpoint(endpoint: unknown): URL {
  let url: URL;
  try {
    url = new URL(String(endpoint));
  } catch {
    throw new TypeError(`endpoint must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`endpoint must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  return url;
}

function failed(reason: string): ToolResult {
  return { isError: true, output: `web_search failed: ${reason}` };
}

/** A glimpse of a bad answer's body: enough to tell an error page from a proxy's login form. */
function excerpt(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  return text === '' ? '' : `: ${cut(text, 200)}`;
}

/** The results of a SearXNG answer (`{results: [{url, title, content}]}`), or undefined when it is not one. */
function parseHits(body: string): SearchHit[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const results = (parsed as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return undefined;
  const hits: SearchHit[] = [];
  for (const result of results as unknown[]) {
    const entry = result as { url?: unknown; title?: unknown; content?: unknown } | null;
    if (typeof entry?.url !== 'string') continue;
    const title = typeof entry.title === 'string' && entry.title.trim() !== '' ? entry.title.trim() : entry.url;
    hits.push({ url: entry.url, title, snippet: typeof entry.content === 'string' ? entry.content.replace(/\s+/g, ' ').trim() : '' });
  }
  return hits;
}

function format(hit: SearchHit, index: number): string {
  const lines = [`${index + 1}. ${cut(hit.title, MAX_TITLE_CHARS)}`, `   ${hit.url}`];
  if (hit.snippet !== '') lines.push(`   ${cut(hit.snippet, MAX_SNIPPET_CHARS)}`);
  return lines.join('\n');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
