/**
 * What the comparison page's script reads: the JSON in the page's `<script id="data">`, written by
 * comparison-report.ts and read by the browser modules beside this file (one type for both sides).
 */

/** A Plotly typed array (base64 of little-endian float32, shape "rows,columns"). */
export interface PlotlyTypedArray {
  dtype: 'f4';
  bdata: string;
  shape: string;
}

/** The viewer's maps: the overview blocks, the tile index, the colour tables and the grid's placement. */
export interface ViewerData {
  /** Map size in pixels (columns, rows). */
  W: number;
  H: number;
  /** Overview block size (pixels a side) and the overview's size in blocks. */
  f: number;
  ow: number;
  oh: number;
  /** Per block the signed Δq of largest magnitude (deflated Int32, base64). */
  block: string;
  /** Per block the mean codes of each side (deflated, predicted, base64). */
  ogen: string;
  oref: string;
  /** Tile size (pixels a side), the tiles written ("tx_ty"), tiles per file a side, tiles left out by the budget. */
  tile: number;
  tiles: string[];
  group: number;
  tilesLeftOut: number;
  /** The Δq colours for |Δq| ≤ lutA (RGB triples, base64) and the terrain ramp (256 RGB triples, base64). */
  lut: string;
  lutA: number;
  terrain: string;
  /** Lowest and highest code of both sides (the terrain scale zoomed out). */
  codeLo: number;
  codeHi: number;
  /** World position of pixel (0, 0) and the step per column and per row, metres. */
  x0: number;
  dx: number;
  y0: number;
  dy: number;
  row0AtBottom: boolean;
  range: { min: number; max: number };
  /** Whether Δq keeps its sign (both sides codes). */
  signed: boolean;
  stageNames: string[];
  /** The pixel of largest |Δq| (column, row), if any. */
  maxAt: [number, number] | null;
  /** Pixels of |Δq| ≥ 4 ringed while zoomed out (column, row). */
  outliers: [number, number][];
}

export interface ComparisonPageData {
  title: string;
  viewer: ViewerData;
  /** The folded Δq histogram: [Δq, count] bins and what lies beyond ±limit. */
  hist: { bins: [number, number][]; below: { count: number }; above: { count: number }; limit: number };
  /** Rings: [radius, RMS of Δq (mm), max |Δ| (mm), RMS of the float difference (mm) or null]. */
  radial: [number, number | null, number | null, number | null][];
  radialStep: number;
  disk: {
    x: number[];
    y: number[];
    z: PlotlyTypedArray;
    c: PlotlyTypedArray;
    dq: PlotlyTypedArray;
    colorscale: [number, string][];
    ticks: { vals: number[]; text: string[] };
    zmin: number;
    zmax: number;
    radius: number;
    spacing: number;
    exaggeration: number;
  };
}
