import type { DisplayStatus } from '../index.js';

/** One colour per status, shared by the graph's edges, the waterfall's bars and the list. */
export const STATUS_COLOURS: Readonly<Record<DisplayStatus, string>> = {
  ok: '#2e7d32',
  error: '#c62828',
  timeout: '#ef6c00',
  refused: '#6a1b9a',
  pending: '#1565c0',
  running: '#1565c0',
  abandoned: '#757575',
  busy: '#f9a825',
  'schema-violation': '#ad1457',
  'dead-lettered': '#4e342e',
};
