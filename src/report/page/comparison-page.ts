/**
 * The comparison page's script entry, bundled at build time (scripts/bundle-pages.mjs) into one classic script that
 * defines the global `HBComparisonPage`; comparison-report.ts inlines it and calls `start` with the page's data.
 * The viewer draws first; Plotly and the figures follow.
 */
import type { ComparisonPageData } from './page-data.js';
import { drawPlots, loadPlotly } from './plots.js';
import { startViewer } from './viewer.js';

/** `plotlySrc`: plotly.min.js relative to the page, or null when the page carries Plotly inline; `disk3d`: draw the 3D view. */
export function start(data: ComparisonPageData, plotlySrc: string | null, disk3d: boolean): void {
  void startViewer(data.viewer, () => loadPlotly(plotlySrc, () => drawPlots(data, disk3d)));
}
