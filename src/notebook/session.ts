/**
 * What every stage notebook starts from: the fixed request regenerated at a reduced size with every stage kept, and
 * the figures a stage group shows — its input and output over the central window on one colour scale with markers
 * #0–#5, the stage delta on a symmetric scale, and the inner-400 m RMS against the DVC reference dump.
 * Display only: every number comes from the pipeline and the comparison engine.
 */
import type { GridDescription } from '../core/grid.js';
import { cropCentre } from '../core/crop.js';
import { loadRequest, requestGrid, type PipelineRequest } from '../plan/request.js';
import { FIELD_STAGES, runPipeline, type RunResult } from '../pipeline/run.js';
import { loadRunInputs } from '../pipeline/inputs.js';
import {
  difference,
  heatmapTrace,
  missionMarkers,
  plotlyFigure,
  rangeOf,
  referenceStage,
  stageAgainstReference,
  symmetricLimit,
  type Trace,
} from './figures.js';
import { InputRangeError } from '../errors.js';

export interface StageSession {
  req: PipelineRequest;
  grid: GridDescription;
  run: RunResult;
  /** Central window shown, metres. */
  window: number;
  markers: Trace;
  field(stage: string): Float32Array;
  figure(id: string, traces: readonly Trace[], layout?: Record<string, unknown>, height?: number): string;
  /** Builds a figure and hands it to the display callback. */
  show(id: string, traces: readonly Trace[], layout?: Record<string, unknown>, height?: number): void;
  /** Shows three figures: before and after on one colour scale, and after − before on a symmetric scale. */
  stageFigures(prefix: string, before: string, after: string): string[];
  /** One line: the stage's inner-400 m RMS and maximum against the reference dump (or why there is none). */
  againstReference(stage: string): string;
}

export const SQUARE_AXES = { xaxis: { title: { text: 'x (m)' } }, yaxis: { title: { text: 'y (m)' }, scaleanchor: 'x' } };

export interface StageSessionOptions {
  request?: string;
  size?: number;
  /** Run name of the references in references/ (params.yaml). */
  referenceRun?: string;
  /** Central window shown, metres. */
  window?: number;
  /** Where figures go (a notebook passes tslab.display.html); without it they are only returned. */
  display?: (html: string) => void;
}

export function stageSession(o: StageSessionOptions = {}): StageSession {
  const { request = 'tundra-r19', size = 1024, referenceRun = 'tundra-r19-1024', window = 1024, display = () => undefined } = o;
  const req = loadRequest(request, size);
  const grid = requestGrid(req);
  // The notebook API is an edge: it loads the world and the assets, then plans and executes from them.
  const run = runPipeline(req, { inputs: loadRunInputs(req), precision: 'f32', keep: [...FIELD_STAGES] });
  const markers = missionMarkers(run.plan);
  const field = (s: string) => {
    const f = run.fields.get(s);
    if (!f) throw new InputRangeError(`stage ${s} was not kept; stages: ${[...run.fields.keys()].join(', ')}`);
    return f as Float32Array;
  };
  const figure = (id: string, traces: readonly Trace[], layout: Record<string, unknown> = {}, height = 420) => plotlyFigure(id, traces, layout, height);
  return {
    req,
    grid,
    run,
    window,
    markers,
    field,
    figure,
    show(id, traces, layout, height) {
      display(figure(id, traces, layout, height));
    },
    stageFigures(prefix, before, after) {
      const a = field(before);
      const b = field(after);
      const ra = rangeOf(cropCentre(a, grid, window).data);
      const rb = rangeOf(cropCentre(b, grid, window).data);
      const lo = Math.min(ra.min, rb.min);
      const hi = Math.max(ra.max, rb.max);
      const d = difference(b, a);
      const m = symmetricLimit(d, grid, window);
      const rd = rangeOf(cropCentre(d, grid, window).data);
      const html = [
        figure(`${prefix}-before`, [heatmapTrace(a, grid, window, { zmin: lo, zmax: hi }), markers], {
          title: { text: `${before} (central ${window} m)` },
          ...SQUARE_AXES,
        }),
        figure(`${prefix}-after`, [heatmapTrace(b, grid, window, { zmin: lo, zmax: hi }), markers], {
          title: { text: `${after} (same colour scale)` },
          ...SQUARE_AXES,
        }),
        figure(`${prefix}-delta`, [heatmapTrace(d, grid, window, { zmin: -m, zmax: m, colorscale: 'RdBu', title: 'Δ m' }), markers], {
          title: { text: `${after} − ${before}: ${rd.min.toFixed(3)} … ${rd.max.toFixed(3)} m, symmetric scale` },
          ...SQUARE_AXES,
        }),
      ];
      html.forEach(display);
      return html;
    },
    againstReference(stage) {
      const ref = referenceStage(referenceRun, stage);
      if (!ref) return `no reference dump for ${stage} in references/${referenceRun} (run make reproduce first)`;
      const r = stageAgainstReference(field(stage), grid, ref);
      return `${stage} vs reference (f64): inner-400 m RMS ${r.innerRmsMm.toExponential(3)} mm, max ${r.innerMaxAbsMm.toExponential(3)} mm`;
    },
  };
}
