/**
 * Writes an atlas (src/compare/atlas.ts) into a folder: `index.html` (every block difference map in a grid on one
 * shared diverging scale, and a table sorted by effect), `atlas.json` (the numbers), `maps/<name>.png` and `scale.png`.
 * The folder is built under a temporary name beside DIR and moved into place at the end, so an interrupted run never
 * leaves a partial atlas under DIR; an existing atlas in DIR is replaced only then. A DIR holding anything other than
 * a previous atlas is refused.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MismatchError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { diverging, scalarPng } from './pictures.js';
import type { Atlas, AtlasEntry } from './atlas.js';

/**
 * [R] The shared diverging scale is signed-logarithmic: t = sign(v)·ln(1 + |v|/v0) / ln(1 + S/v0), S the largest
 * |block value| of the whole atlas and v0 = 1 µm, so a 2 m shift and a 0.1 mm rounding difference are both visible on
 * the same scale (a linear one would leave every sub-millimetre map white).
 */
export const SCALE_FLOOR_M = 1e-6;

export function scaleColour(v: number, S: number): ReturnType<typeof diverging> {
  const top = Math.log1p((S > 0 ? S : 1) / SCALE_FLOOR_M);
  return diverging((Math.sign(v) * Math.log1p(Math.abs(v) / SCALE_FLOOR_M)) / top);
}

/** The JSON document: every number, maps referenced by file. */
export function atlasJson(a: Atlas): Record<string, unknown> {
  return {
    format: 'heightbench.atlas',
    version: 1,
    request: a.request,
    size: a.size,
    precision: a.precision,
    scaleM: a.scaleM,
    scale: { kind: 'signed-log', floorM: SCALE_FLOOR_M, maxM: a.scaleM },
    correctRunMs: a.correctRunMs,
    entries: a.entries.map((e) => {
      const { map, ...rest } = e;
      return { ...rest, map: { file: `maps/${e.name}.png`, block: map.block, columns: map.columns, rows: map.rows, maxAbsM: map.maxAbsM } };
    }),
  };
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function num(v: number, digits = 4): string {
  if (!Number.isFinite(v)) return '–';
  if (v === 0) return '0';
  return Math.abs(v) >= 0.01 ? v.toFixed(Math.max(0, digits - 1)) : v.toPrecision(3);
}

function histogramText(h: Record<string, number>): string {
  return Object.entries(h)
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([d, c]) => `${d}: ${c}`)
    .join(', ');
}

function entryRow(e: AtlasEntry, rank: number): string {
  const diag = e.diagnosisAtFirstStage ?? e.diagnosis;
  const named = e.namedFirst === null ? '' : e.namedFirst ? ' ✓' : ` ✗ (expected ${e.expect?.join(' or ')})`;
  return `<tr><td>${rank}</td><td><b>${escapeHtml(e.name)}</b><br><span class="note">${escapeHtml(e.label)}</span></td>
<td>${num(e.final.exactPercent, 5)}</td><td>${num(e.final.rmsMm)}</td><td>${e.final.maxAbsCode}</td><td>${num(e.final.floatRmsMm)}</td>
<td>${num(e.final.floatMaxAbsMm)}</td><td>${e.firstDivergentStage ?? 'none'}</td>
<td>${e.stages.map((s) => `${s.stage}: ${num(s.innerRmsMm)}`).join('<br>')}</td>
<td class="l">${escapeHtml(`[${diag.stage}] ${diag.summary}`)}${named}</td>
<td class="l small">${escapeHtml(histogramText(e.final.histogram))}</td></tr>`;
}

/** Where ±1 µm, ±1 mm, ±1 m and ±S fall along the colour bar (fraction from the left edge). */
function scaleTicks(S: number): string {
  const top = Math.log1p((S > 0 ? S : 1) / SCALE_FLOOR_M);
  const at = (v: number) => (0.5 + (0.5 * Math.sign(v) * Math.log1p(Math.abs(v) / SCALE_FLOOR_M)) / top).toFixed(2);
  const ticks = [1e-6, 1e-3, 1].filter((v) => v < S).map((v) => `±${v === 1e-6 ? '1 µm' : v === 1e-3 ? '1 mm' : '1 m'} at ${at(-v)} / ${at(v)}`);
  return `colour-bar positions (0 = left, 1 = right): 0 at 0.50; ${ticks.join('; ')}; ±S at 0 / 1`;
}

export function atlasHtml(a: Atlas): string {
  const cells = a.entries
    .map(
      (e) => `<figure><img src="maps/${e.name}.png" alt="${escapeHtml(e.name)}" width="256"><figcaption><b>${escapeHtml(e.name)}</b><br>
${escapeHtml(e.label)}<br>max |Δ| ${num(e.map.maxAbsM * 1000)} mm · RMS ${num(e.final.floatRmsMm)} mm<br>
<i>${escapeHtml((e.diagnosisAtFirstStage ?? e.diagnosis).top?.kind ?? (e.diagnosisAtFirstStage ?? e.diagnosis).verdict)}</i></figcaption></figure>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>heightbench ablation atlas: ${escapeHtml(a.request)} ${a.size}²</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1500px}.grid{display:flex;flex-wrap:wrap;gap:14px}
figure{margin:0;width:256px;font-size:12px}img{image-rendering:pixelated;border:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px;text-align:right;vertical-align:top}
th{background:#f3f3f3}td.l{text-align:left;max-width:420px}.small{font-size:11px}.note{color:#555;font-size:12px}</style></head><body>
<h1>Ablation atlas — ${escapeHtml(a.request)} at ${a.size}² (${a.precision})</h1>
<p class="note">Each ablation breaks one convention and runs the whole pipeline; every number compares it with the correct
run of the same request, size and precision. Maps: pre-encode difference (ablation − correct), the signed value of the
largest |Δ| in each ${a.entries[0]?.map.block ?? 0}×${a.entries[0]?.map.block ?? 0} block, drawn north-up on one shared
signed-logarithmic diverging scale, t = sign(Δ)·ln(1 + |Δ|/1 µm) / ln(1 + S/1 µm) with S = ${num(a.scaleM * 1000)} mm, the largest |Δ| of
the whole atlas: blue below zero, red above, white at zero; every decade of |Δ| gets the same share of colour.</p>
<p><img src="scale.png" alt="colour scale" width="512" height="12"><br><span class="note">${scaleTicks(a.scaleM)}</span></p>
<div class="grid">
${cells}
</div>
<h2>Sorted by effect (pre-encode float RMS, largest first)</h2>
<table><tr><th>#</th><th>ablation</th><th>exact codes %</th><th>RMS mm (codes)</th><th>max |Δq|</th><th>float RMS mm</th>
<th>float max mm</th><th>first divergent stage</th><th>inner-400 m RMS mm per stage</th><th>diagnose (at the first divergent stage)</th><th>Δq histogram</th></tr>
${a.entries.map((e, k) => entryRow(e, k + 1)).join('\n')}
</table>
<p class="note">Correct run: ${num(a.correctRunMs / 1000)} s. Numbers: atlas.json. A stage diverges when its float RMS exceeds 0.01 mm.
diagnose reads floats against floats at the first divergent stage, where the ablation's own signature is cleanest
(later stages add detail the signature fields of the reference would have to explain).</p>
</body></html>
`;
}

/** Refuses an output folder that holds something other than a previous atlas (call before the runs). */
export function checkAtlasOut(dir: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new MismatchError(`--out ${dir}: exists and is not a folder`);
  const present = readdirSync(dir);
  if (present.length > 0 && !present.includes('atlas.json')) {
    throw new MismatchError(`--out ${dir}: the folder holds ${present.length} entries but no atlas.json; refusing to replace it (give an empty or new folder)`);
  }
}

/** Writes the atlas into `dir` (see the header for the temporary-folder rule). Returns the files written, relative. */
export function writeAtlas(dir: string, a: Atlas): string[] {
  checkAtlasOut(dir);
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.${basename(dir)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const files: string[] = [];
  try {
    mkdirSync(join(tmp, 'maps'), { recursive: true });
    for (const e of a.entries) {
      const png = scalarPng(e.map.signedMaxM, e.map.columns, e.map.rows, (v) => scaleColour(v, a.scaleM), true);
      writeFileAtomic(join(tmp, 'maps', `${e.name}.png`), png);
      files.push(`maps/${e.name}.png`);
    }
    const bar = new Float32Array(512 * 12);
    for (let j = 0; j < 12; j++) for (let i = 0; i < 512; i++) bar[j * 512 + i] = (i / 511) * 2 - 1;
    writeFileAtomic(join(tmp, 'scale.png'), scalarPng(bar, 512, 12, diverging, false));
    writeFileAtomic(join(tmp, 'atlas.json'), `${JSON.stringify(atlasJson(a), null, 2)}\n`);
    writeFileAtomic(join(tmp, 'index.html'), atlasHtml(a));
    files.push('scale.png', 'atlas.json', 'index.html');
    // Swap into place: the old atlas (if any) moves aside first, and is removed only after the new one is in place.
    const old = existsSync(dir) ? `${tmp}.old` : null;
    if (old) renameSync(dir, old);
    renameSync(tmp, dir);
    if (old) rmSync(old, { recursive: true, force: true });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return files;
}
