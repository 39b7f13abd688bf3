import { STATUS_COLOURS } from './flow-colours.js';

/**
 * The flow page's script, served as `/flows/assets/flow-page.js`: draws the flow with
 * cytoscape (agents as nodes, calls as edges coloured by status; left out when the daemon has
 * no cytoscape package) and a waterfall, from `/flows/<id>.json`, then redraws on every
 * `flow` event of `/flows/<id>/events`.
 * The cytoscape instance is `window.flowGraph`; the page's root element carries the flow's
 * status and counts as data attributes, for tests and scripts.
 */
export const FLOW_PAGE_SCRIPT = `(function () {
  'use strict';
  var COLOURS = ${JSON.stringify(STATUS_COLOURS)};
  var root = document.getElementById('flow');
  var id = root.getAttribute('data-correlation-id');
  var base = '/flows/' + encodeURIComponent(id);
  // cytoscape is an optional package of the daemon: without it (its asset answers 503) the page shows the waterfall only.
  var cy = typeof cytoscape !== 'function' ? undefined : cytoscape({
    container: document.getElementById('graph'),
    wheelSensitivity: 0.3,
    style: [
      { selector: 'node', style: { 'background-color': '#eceff1', 'border-color': '#546e7a', 'border-width': 2, label: 'data(label)', 'text-valign': 'center', 'font-size': 13, width: 'label', height: 34, padding: '12px', shape: 'round-rectangle' } },
      { selector: 'edge', style: { width: 2.5, 'line-color': 'data(colour)', 'target-arrow-color': 'data(colour)', 'target-arrow-shape': 'triangle', 'curve-style': 'bezier', label: 'data(label)', 'font-size': 10, 'text-wrap': 'wrap', 'text-background-color': '#ffffff', 'text-background-opacity': 0.85, 'text-background-padding': '2px', color: 'data(colour)' } }
    ]
  });
  window.flowGraph = cy;
  if (!cy) document.getElementById('graph').textContent = 'No graph: the daemon has no cytoscape package (npm install cytoscape).';

  function ms(value) { return value === undefined ? '…' : value < 10 ? value.toFixed(2) + ' ms' : Math.round(value) + ' ms'; }
  function usageText(call) {
    var u = (call.call && call.call.usage) || (call.handler && call.handler.usage);
    if (!u || (u.inputTokens + u.outputTokens === 0 && u.costUsd === 0)) return '';
    return (u.inputTokens + u.outputTokens) + ' tok · $' + u.costUsd.toFixed(6);
  }
  function errorOf(call) { return (call.call && call.call.errorCode) || (call.handler && call.handler.errorCode) || ''; }
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }

  function drawGraph(view) {
    if (!cy) return;
    var elements = view.summary.agents.map(function (agent) { return { group: 'nodes', data: { id: 'agent:' + agent, label: agent, agent: agent } }; });
    view.calls.forEach(function (call) {
      var parts = [call.capability, call.status + ' · ' + ms(call.durationMs)];
      var usage = usageText(call);
      if (usage) parts.push(usage);
      elements.push({ group: 'edges', data: { id: 'call:' + call.id, source: 'agent:' + call.from, target: 'agent:' + call.to, status: call.status, colour: COLOURS[call.status], capability: call.capability, label: parts.join('\\n') } });
    });
    cy.elements().remove();
    cy.add(elements);
    cy.layout({ name: 'breadthfirst', directed: true, spacingFactor: 1.3, padding: 20 }).run();
  }

  function drawWaterfall(view) {
    var box = document.getElementById('waterfall');
    box.textContent = '';
    var now = Date.now();
    var total = Math.max(1, view.summary.durationMs);
    view.calls.forEach(function (call) {
      if (call.durationMs === undefined) total = Math.max(total, now - view.summary.startedAt);
    });
    view.calls.forEach(function (call) {
      var row = el('div', 'row');
      row.setAttribute('data-call', call.id);
      row.setAttribute('data-status', call.status);
      row.appendChild(el('code', '', call.from + ' → ' + call.to + '/' + call.capability));
      var track = el('div', 'track');
      var bar = el('div', 'bar b-' + call.status);
      var duration = call.durationMs === undefined ? now - view.summary.startedAt - call.offsetMs : call.durationMs;
      bar.style.left = (100 * call.offsetMs / total) + '%';
      bar.style.width = Math.max(0.3, 100 * duration / total) + '%';
      track.appendChild(bar);
      row.appendChild(track);
      var info = el('span', '');
      info.appendChild(el('span', 'status s-' + call.status, call.status));
      var detail = [ms(call.durationMs), usageText(call), errorOf(call), call.handler && call.handler.dlq ? 'DLQ ' + call.handler.dlq : ''].filter(Boolean).join(' · ');
      info.appendChild(el('span', 'muted', ' ' + detail));
      row.appendChild(info);
      box.appendChild(row);
    });
  }

  function drawSummary(view) {
    var s = view.summary;
    root.setAttribute('data-status', s.status);
    root.setAttribute('data-calls', String(view.calls.length));
    root.setAttribute('data-agents', s.agents.join(','));
    var text = s.status + ' · ' + s.calls + ' calls (' + s.failed + ' not ok) · ' + s.agents.length + ' agents · ' + ms(s.durationMs) + ' · started ' + new Date(s.startedAt).toISOString();
    if (s.inputTokens + s.outputTokens > 0 || s.costUsd > 0) text += ' · ' + s.inputTokens + ' in + ' + s.outputTokens + ' out tokens · $' + s.costUsd.toFixed(6);
    if (view.droppedCalls > 0) text += ' · ' + view.droppedCalls + ' calls not kept';
    var summary = document.getElementById('summary');
    summary.textContent = text;
    summary.className = 'summary s-' + (s.status === 'failed' ? 'error' : s.status);
  }

  function render(view) {
    drawSummary(view);
    drawGraph(view);
    drawWaterfall(view);
    root.setAttribute('data-rendered', String(Number(root.getAttribute('data-rendered') || '0') + 1));
  }

  fetch(base + '.json').then(function (res) {
    if (res.ok) return res.json().then(render);
    document.getElementById('summary').textContent = 'No calls of this flow yet: waiting for them.';
  }).finally(function () {
    var events = new EventSource(base + '/events');
    events.addEventListener('flow', function (event) { render(JSON.parse(event.data)); });
  });
})();
`;
