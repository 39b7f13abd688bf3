import type { FlowSummary } from '../index.js';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c]!);
}

function page(title: string, body: string, scripts: readonly string[] = []): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(title)}</title>
<link rel="stylesheet" href="/flows/assets/flow-page.css">
${scripts.map((src) => `<script src="${esc(src)}" defer></script>`).join('\n')}
</head>
<body>
${body}
</body>
</html>
`;
}

/** `/flows`: the recent flows, newest first. */
export function flowListPage(flows: readonly FlowSummary[], scope: string): string {
  const rows = flows
    .map((flow) => {
      const tokens = flow.inputTokens + flow.outputTokens;
      return `<tr data-correlation-id="${esc(flow.correlationId)}" data-status="${flow.status}">
<td>${esc(new Date(flow.startedAt).toISOString())}</td>
<td><a href="/flows/${encodeURIComponent(flow.correlationId)}"><code>${esc(flow.correlationId)}</code></a></td>
<td>${esc(flow.agents.join(' → '))}</td>
<td>${flow.calls}</td>
<td class="status s-${flow.status === 'failed' ? 'error' : flow.status}">${flow.status}${flow.failed > 0 ? ` (${flow.failed})` : ''}</td>
<td>${flow.durationMs.toFixed(1)} ms</td>
<td>${tokens > 0 ? tokens : ''}</td>
<td>${flow.costUsd > 0 ? `$${flow.costUsd.toFixed(6)}` : ''}</td>
</tr>`;
    })
    .join('\n');
  return page(
    'agent-rpc flows',
    `<h1>Recent flows</h1>
<p class="muted">${esc(scope)} · <a href="/flows.json">JSON</a> · reload for newer flows</p>
<table>
<thead><tr><th>start</th><th>correlationId</th><th>agents</th><th>calls</th><th>status</th><th>duration</th><th>tokens</th><th>cost</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="8" class="muted">No flows recorded yet.</td></tr>'}
</tbody>
</table>`,
  );
}

/** `/flows/<id>`: the graph and waterfall of one flow, drawn and kept live by the page's script. */
export function flowPage(correlationId: string): string {
  return page(
    `flow ${correlationId}`,
    `<main id="flow" data-correlation-id="${esc(correlationId)}">
<h1>Flow <code>${esc(correlationId)}</code></h1>
<p><a href="/flows">all flows</a> · <a href="/flows/${encodeURIComponent(correlationId)}.json">JSON</a></p>
<p id="summary" class="summary muted">Loading…</p>
<div id="graph"></div>
<h2>Timeline</h2>
<div id="waterfall"></div>
</main>`,
    ['/flows/assets/cytoscape.min.js', '/flows/assets/flow-page.js'],
  );
}
