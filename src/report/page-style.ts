/**
 * The stylesheet the comparison and regress pages share (body, tables), each page adding its own rules after it;
 * kept to the bytes both pages held so that their HTML stays the same.
 */
export const PAGE_CSS = `body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:2px 8px;font-size:13px;text-align:right}th{background:#f3f3f3}`;
