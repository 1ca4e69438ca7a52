/**
 * The pages' one stylesheet: the rules every heightbench page shares — the body's font and margin, and tables of
 * numbers (collapsed borders, right-aligned cells, a grey header) — written once here. Each page passes its own few
 * rules (its width, its figures, a table of text aligned left), kept beside the page, and they follow the shared ones,
 * so a page's rule wins where both set the same property.
 */
const SHARED = `body{font-family:system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:2px 8px;font-size:13px;text-align:right;vertical-align:top}th{background:#f3f3f3}`;

/** The text of a page's `<style>` element: the shared rules, then the page's own. */
export function pageCss(pageRules = ''): string {
  return pageRules ? `${SHARED}\n${pageRules}` : SHARED;
}

/** Rules for a page whose tables hold text rather than numbers. */
export const TEXT_TABLES = 'td,th{text-align:left}';
