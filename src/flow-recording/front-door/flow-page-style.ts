import { STATUS_COLOURS } from './flow-colours.js';

const statusClasses = Object.entries(STATUS_COLOURS)
  .map(([status, colour]) => `.s-${status} { color: ${colour}; }\n.b-${status} { background: ${colour}; }`)
  .join('\n');

/** The flow pages' stylesheet, served as `/flows/assets/flow-page.css` (the pages allow no inline style). */
export const FLOW_PAGE_CSS = `${statusClasses}
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #212121; }
h1 { font-size: 1.3rem; margin: 0 0 .5rem; }
a { color: #1565c0; }
code { font: 12px ui-monospace, monospace; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #e0e0e0; font-size: 13px; }
th { background: #fafafa; }
.status { font-weight: 600; }
.summary { margin: .5rem 0 1rem; color: #424242; }
#graph { width: 100%; height: 380px; border: 1px solid #e0e0e0; border-radius: 4px; }
#waterfall { margin-top: 1rem; }
.row { display: grid; grid-template-columns: 320px 1fr 360px; gap: .5rem; align-items: center; font-size: 12px; padding: 2px 0; }
.track { position: relative; height: 14px; background: #f5f5f5; }
.bar { position: absolute; top: 0; height: 14px; border-radius: 2px; min-width: 2px; }
.legend span { display: inline-block; margin-right: .8rem; font-size: 12px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; }
.muted { color: #757575; }
`;
