/**
 * `heightbench/notebook`: every helper the tslab notebooks use — Plotly figures and traces, the stage session that
 * runs a request once and serves its stages, number checks, palettes. The package root re-exports the ones the
 * notebooks call today.
 */
export {
  plotlyFigure,
  heatmapData,
  heatmapTrace,
  mapLayout,
  blockMapTrace,
  radialFigure,
  missionMarkers,
  symmetricLimit,
  difference,
  referenceStage,
  stageAgainstReference,
  checkNumber,
  rangeOf,
} from '../notebook/figures.js';
export type { Trace } from '../notebook/figures.js';
export { stageSession, SQUARE_AXES } from '../notebook/session.js';
export type { StageSession, StageSessionOptions } from '../notebook/session.js';
export { plotlyColorscale, DIVERGING_STOPS, TERRAIN_STOPS, MAGNITUDE_STOPS } from '../compare/pictures.js';
export type { ColourStops, Rgb } from '../compare/pictures.js';
export { verticalExaggeration, signedBlockDq } from '../compare/report.js';
