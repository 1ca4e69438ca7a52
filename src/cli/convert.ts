/**
 * `heightbench convert IN OUT [--size WxH] [--endian le|be] [--range MIN,MAX] [--grid texel|vertex] [--resample N]`
 *
 * The output container follows OUT's extension. `--size`/`--endian` describe a raw input (when it has no sidecar) and
 * how a raw output is written; `--range` describes a 16-bit input without sidecar and the output's encoding.
 * A change of sample count or convention resamples through world coordinates (see core/resample.ts).
 * [R] `--grid vertex` without `--resample` gives N + 1 samples per axis (4096² → 4097²); `--grid texel` from a vertex
 *     grid gives N − 1. Same-size, same-convention conversions copy codes exactly.
 */
import { MismatchError } from '../errors.js';
import { floatHeightfield, heightsOf, type Heightfield } from '../core/heightfield.js';
import { resampleField } from '../core/resample.js';
import type { GridDescription, HeightRange, RowDirection, SampleConvention } from '../core/grid.js';
import { readHeightfieldFileAsync, writeHeightfieldFileAsync } from '../io/heightfield-file.js';
import { defaultsWarning, readSettingsFrom, type InputFlags } from './input-flags.js';
import { conventionsFromDefaults, DEFAULTS_NOTE } from '../io/input-conventions.js';
import { sidecarPathFor, type Endian } from '../io/sidecar.js';
import { inputPresent } from '../io/read-input.js';
import { checkFieldSize, checkMemoryEstimate } from '../io/limits.js';
import type { CliIO } from './io.js';

export interface ConvertOptions extends InputFlags {
  size?: { width: number; height: number };
  endian?: Endian;
  range?: HeightRange;
  grid?: SampleConvention;
  resample?: { width: number; height: number };
  extent?: { xmin: number; ymin: number; sizeX: number; sizeY: number };
  rowDirection?: RowDirection;
  interlace?: boolean;
}

export function outputGrid(input: GridDescription, opts: ConvertOptions): GridDescription {
  const convention = opts.grid ?? input.convention;
  let columns = input.columns;
  let rows = input.rows;
  if (opts.resample) {
    columns = opts.resample.width;
    rows = opts.resample.height;
  } else if (convention !== input.convention) {
    const d = convention === 'vertex' ? 1 : -1;
    columns += d;
    rows += d;
  }
  if (convention === 'vertex' && (columns < 2 || rows < 2)) {
    throw new MismatchError(`a vertex grid needs at least 2 samples per axis, got ${columns}x${rows}`);
  }
  return { ...input, convention, columns, rows };
}

export async function convertCommand(input: string, output: string, opts: ConvertOptions, io: CliIO): Promise<number> {
  // --range describes an input without sidecar and the output's encoding: beside a sidecar it only sets the output.
  const hasSidecar = inputPresent(sidecarPathFor(input)); // a dangling sidecar link is refused, not "none"
  const loaded = await readHeightfieldFileAsync(input, { ...readSettingsFrom(opts, false), range: hasSidecar ? undefined : opts.range });
  let field: Heightfield = loaded.field;
  const dstGrid = outputGrid(field.grid, opts);
  checkFieldSize('convert output (--resample/--grid)', dstGrid.columns, dstGrid.rows);
  // Input field, the float resampled field, the encoded codes and the serialized payload.
  checkMemoryEstimate(`convert to ${dstGrid.columns}x${dstGrid.rows}`, field.grid.columns * field.grid.rows * 4 + dstGrid.columns * dstGrid.rows * (4 + 2 + 4));
  const resampled = dstGrid.columns !== field.grid.columns || dstGrid.rows !== field.grid.rows || dstGrid.convention !== field.grid.convention;
  if (resampled) {
    const out = new Float32Array(dstGrid.columns * dstGrid.rows);
    field = floatHeightfield(dstGrid, resampleField(heightsOf(field), field.grid, dstGrid, out));
  }
  const outRange = opts.range ?? (loaded.field.kind === 'codes' ? loaded.field.range : undefined);
  // Conventions taken from heightbench's defaults stay defaults in the output's sidecar (input-conventions.ts
  // DEFAULTS_NOTE): the converted file is not compared on them unless they are stated or --assume-defaults says so.
  const defaulted = conventionsFromDefaults(loaded.conventions);
  const warning = defaultsWarning('input', input, loaded.conventions);
  if (warning) io.err(warning);
  const written = await writeHeightfieldFileAsync(output, field, {
    endian: opts.endian,
    range: outRange,
    interlace: opts.interlace,
    stage: loaded.sidecar?.stage ?? null,
    request: loaded.sidecar?.request ?? null,
    ...(defaulted.length ? { notes: { [DEFAULTS_NOTE]: defaulted } } : {}),
  });
  const s = written.sidecar;
  const parts = [
    `wrote ${output} (${s.container}, ${s.grid.columns}x${s.grid.rows}, ${s.grid.convention}${s.container === 'r16' ? `, ${s.endian}` : ''})`,
    resampled ? `resampled from ${loaded.field.grid.columns}x${loaded.field.grid.rows} ${loaded.field.grid.convention}` : 'no resampling',
  ];
  if (written.encodeCounts) {
    const c = written.encodeCounts;
    parts.push(`clamped below range ${c.clampedLow}, above range ${c.clampedHigh}, NaN ${c.nan}`);
  }
  for (const n of loaded.notes) parts.push(`note: ${n}`);
  io.out(`${parts.join('; ')}\n`);
  return 0;
}
