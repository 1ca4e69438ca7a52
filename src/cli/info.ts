/** `heightbench info FILE [--json]`: format, size, bit depth, code and metre ranges, non-finite counts, sidecar. */
import { summarizeHeightfieldFile } from '../io/heightfield-file.js';
import { readSettingsFrom, type InputFlags } from './input-flags.js';
import type { CliIO } from './io.js';
import { metresPerCode } from '../core/grid.js';

export async function infoCommand(file: string, opts: { json?: boolean } & InputFlags, io: CliIO): Promise<number> {
  const { summary: s, conventions } = await summarizeHeightfieldFile(file, readSettingsFrom(opts, false));
  if (opts.json) {
    io.out(`${JSON.stringify({ ...s, conventions }, null, 2)}\n`);
    return 0;
  }
  const g = s.grid;
  const lines = [
    `file        ${file}`,
    `format      ${s.format}${s.interlaced ? ' (Adam7 interlaced)' : ''}, ${s.bitDepth}-bit, ${s.format === 'png16' ? 'big-endian (PNG)' : s.endian === 'le' ? 'little-endian' : 'big-endian'}`,
    `size        ${s.width} x ${s.height}`,
    `grid        ${g.convention}, x ${g.xmin}..${g.xmin + g.sizeX} m, y ${g.ymin}..${g.ymin + g.sizeY} m, ${g.rowDirection}`,
  ];
  if (s.range) {
    lines.push(`range       ${s.range.min}..${s.range.max} m, ${metresPerCode(s.range).toPrecision(6)} m per code`);
    lines.push(`codes       ${s.minCode}..${s.maxCode}`);
  }
  lines.push(`metres      ${fmt(s.minMetres)}..${fmt(s.maxMetres)}`);
  lines.push(`non-finite  NaN ${s.nan}, +Inf ${s.posInf}, -Inf ${s.negInf}`);
  lines.push(
    s.sidecar
      ? `sidecar     ${s.sidecarPath} (stage ${s.sidecar.stage ?? '-'}, request ${s.sidecar.request ?? '-'}, ${s.sidecar.producer.name} ${s.sidecar.producer.version}, sha256 ${s.sidecar.payload.sha256.slice(0, 12)}…)`
      : 'sidecar     none',
  );
  for (const n of conventions.notes) lines.push(`convention  ${n}`);
  for (const n of s.notes) lines.push(`note        ${n}`);
  io.out(`${lines.join('\n')}\n`);
  return 0;
}

function fmt(v: number | null): string {
  return v === null ? '-' : String(Math.round(v * 1e6) / 1e6);
}
