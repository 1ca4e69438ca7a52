/**
 * The diagnosis in every report: a base capture stored with its rows in reverse order (the wrong row direction) beside
 * a pre-encode stage that agrees — `check` warns that a capture's conventions are the likely cause and names the row
 * flip; `check --diagnose` writes each differing stage's diagnosis into summary.md, index.html and metrics.json;
 * `diagnose RUN_DIR REF_DIR` works on the folders; `compare --diagnose --report` writes its diagnosis into the report;
 * a shift on both axes is named on both in the headline; check's stage lines give the whole map first, so a difference
 * near the edge (outside the inner 400 m disk) shows.
 * The reference fields here are built by the test (smooth analytic surfaces), independent of the pipeline.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../src/compare/diagnose.js';
import { domainGrid } from '../src/core/grid.js';
import { codeHeightfield, floatHeightfield } from '../src/core/heightfield.js';
import { writeHeightfieldFile } from '../src/io/heightfield-file.js';
import { cli, tempDir } from './helpers.js';
import { STAGE_COLOURS, ringTint } from '../src/report/report-maps.js';
import { mmColour } from '../src/report/pictures.js';

const N = 128;
const grid = domainGrid(N); // −1024…1024 m, 16 m texels
const surface = (phase: number) =>
  Float32Array.from({ length: N * N }, (_, k) => {
    const i = k % N;
    const j = (k - i) / N;
    return 40 * Math.sin((i + phase) / 9) + 25 * Math.cos((j * 1.3 + phase) / 11) + 0.3 * j;
  });
const flipRows = (a: Float32Array) => {
  const out = new Float32Array(a.length);
  for (let j = 0; j < N; j++) out.set(a.subarray(j * N, (j + 1) * N), (N - 1 - j) * N);
  return out;
};

/** A run folder pair: every stage equal except those `change` alters on the generated side. */
function folders(change: Record<string, (a: Float32Array) => Float32Array>): { gen: string; ref: string } {
  const d = tempDir('hb-diag-rep-');
  const gen = join(d, 'gen');
  const ref = join(d, 'ref');
  for (const dir of [gen, ref]) mkdirSync(dir);
  ['raster', 'base', 'after-support', 'pre-encode'].forEach((s, n) => {
    const h = surface(n);
    writeHeightfieldFile(join(ref, `${s}.r32`), floatHeightfield(grid, h));
    writeHeightfieldFile(join(gen, `${s}.r32`), floatHeightfield(grid, change[s] ? change[s](h) : h));
  });
  const codes = Uint16Array.from(surface(3), (h) => Math.round(((h + 500) / 1000) * 65535));
  for (const dir of [gen, ref]) writeHeightfieldFile(join(dir, 'final.r16'), codeHeightfield(grid, codes));
  return { gen, ref };
}

describe('a stage captured with the wrong row direction', () => {
  const { gen, ref } = folders({ base: flipRows });

  it('check warns that a capture convention is the likely cause and names the row flip, without --diagnose', async () => {
    const r = await cli('check', gen, ref);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /warning: stage base differs grossly \(RMS [\d.e+]+ mm, .*\) while the stage before it, raster \(RMS 0 mm\) and the next stage, after-support \(RMS 0 mm\) agree: .*the conventions of a base capture/,
    );
    expect(r.out).toMatch(/Diagnosis of base: generated is the reference with its rows in reverse order/);
    expect(r.err).toMatch(/^heightbench: warning: stage base differs grossly/);
    // The stage lines give the whole map first.
    expect(r.out).toMatch(/stage base: max \|Δ\| [\d.e+]+ mm, RMS [\d.e+]+ mm, \d+ of 16384 px differ; inner 400 m RMS/);
    expect(r.out).toMatch(/stage raster: max \|Δ\| 0 mm, RMS 0 mm, 0 of 16384 px differ/);
  });

  it('check --diagnose writes each differing stage’s diagnosis into summary.md, index.html and metrics.json', async () => {
    const report = join(tempDir('hb-diag-rep-out-'), 'report');
    const r = await cli('check', gen, ref, '--diagnose', '--report', report);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/diagnosis of base: generated is the reference with its rows in reverse order/);
    const md = readFileSync(join(report, 'summary.md'), 'utf8');
    expect(md).toMatch(/## Diagnosis/);
    expect(md).toMatch(/- \*\*base\*\*: generated is the reference with its rows in reverse order/);
    expect(md).toMatch(/\*\*Warning:\*\* stage base differs grossly/);
    expect(md).not.toMatch(/\*\*raster\*\*/); // equal stages are not diagnosed
    const html = readFileSync(join(report, 'index.html'), 'utf8');
    expect(html).toContain('rows in reverse order');
    const m = JSON.parse(readFileSync(join(report, 'metrics.json'), 'utf8')) as Record<string, number>;
    expect(m['diagnosis.base.explained']).toBe(1);
    expect(m['diagnosis.base.explainedPercent']).toBeGreaterThan(0);
    expect(m['stages.base.differing']).toBeGreaterThan(0);
    const stagesJson = JSON.parse(readFileSync(join(report, 'stages.json'), 'utf8')) as { warnings: string[]; diagnoses: { scope: string }[] };
    expect(stagesJson.warnings).toHaveLength(1);
    expect(stagesJson.diagnoses.map((d) => d.scope)).toEqual(['base']);
  });

  it('diagnose RUN_DIR REF_DIR works on the folders', async () => {
    const r = await cli('diagnose', gen, ref);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/## base\ndiagnosis: generated is the reference with its rows in reverse order/);
    const j = JSON.parse((await cli('diagnose', gen, ref, '--json')).out) as { diagnoses: { scope: string }[]; warnings: string[] };
    expect(j.diagnoses.map((d) => d.scope)).toEqual(['base']);
    expect(j.warnings).toHaveLength(1);
    const mixed = await cli('diagnose', gen, join(ref, 'base.r32'));
    expect(mixed.code).toBe(2);
  });
});

describe('a difference near the edge', () => {
  it('shows in the whole-map figures of the stage line although the inner disk agrees', async () => {
    const { gen, ref } = folders({
      raster: (a) => {
        const b = a.slice();
        b[3 * N + 2] += 5; // 5 m at pixel (2, 3): ~990 m from the centre
        return b;
      },
    });
    const r = await cli('check', gen, ref);
    expect(r.out).toMatch(/stage raster: max \|Δ\| 5\.00e\+3 mm, RMS [\d.e+]+ mm, 1 of 16384 px differ; inner 400 m RMS 0 mm/);
  });
});

describe('compare --diagnose --report, and the headline of a shift on both axes', () => {
  it('names both axes and writes the diagnosis into the report', async () => {
    // The generated side is the reference sampled half a texel off in x and in y (an analytic surface, exact).
    const f = (x: number, y: number) => 40 * Math.sin(x / 9) + 25 * Math.cos(y / 11);
    const refH = Float32Array.from({ length: N * N }, (_, k) => f(k % N, Math.floor(k / N)));
    const genH = Float32Array.from({ length: N * N }, (_, k) => f((k % N) - 0.5, Math.floor(k / N) - 0.5));
    const d = diagnose(floatHeightfield(grid, genH), floatHeightfield(grid, refH));
    expect(d.summary).toMatch(/texel in x/);
    expect(d.summary).toMatch(/texel in y/);
    const dir = tempDir('hb-diag-cmp-');
    writeHeightfieldFile(join(dir, 'gen.r32'), floatHeightfield(grid, genH));
    writeHeightfieldFile(join(dir, 'ref.r32'), floatHeightfield(grid, refH));
    const report = join(dir, 'report');
    const r = await cli('compare', join(dir, 'gen.r32'), join(dir, 'ref.r32'), '--diagnose', '--report', report);
    expect(r.code, r.err).toBe(0);
    for (const file of ['summary.md', 'index.html']) expect(readFileSync(join(report, file), 'utf8')).toMatch(/texel in x.*texel in y|texel in y.*texel in x/s);
    const m = JSON.parse(readFileSync(join(report, 'metrics.json'), 'utf8')) as Record<string, number>;
    expect(m['diagnosis.comparison.explained']).toBe(1);
  });
});

/** Two planted final differences: pixel (2, 3) diverging from the raster on by 5 m, pixel (70, 40) only at the pre-encode by 0.5 m. */
function plantedFolders(): { gen: string; ref: string; d: string } {
  const d = tempDir('hb-diffs-');
  const gen = join(d, 'gen');
  const ref = join(d, 'ref');
  for (const dir of [gen, ref]) mkdirSync(dir);
  const stages = ['raster', 'base', 'after-support', 'pre-encode'];
  const enc = (h: Float32Array) => Uint16Array.from(h, (v) => Math.round(((v + 500) / 1000) * 65535));
  stages.forEach((s, n) => {
    const h = surface(n);
    const g = h.slice();
    if (s !== 'raster' || n === 0) g[3 * N + 2] += 5; // pixel (2, 3): differs from the raster on, by 5 m
    if (s === 'pre-encode') g[40 * N + 70] += 0.5; // pixel (70, 40): only at the pre-encode, by 0.5 m
    writeHeightfieldFile(join(ref, `${s}.r32`), floatHeightfield(grid, h));
    writeHeightfieldFile(join(gen, `${s}.r32`), floatHeightfield(grid, g));
    if (s === 'pre-encode') {
      writeHeightfieldFile(join(ref, 'final.r16'), codeHeightfield(grid, enc(h)));
      writeHeightfieldFile(join(gen, 'final.r16'), codeHeightfield(grid, enc(g)));
    }
  });
  return { gen, ref, d };
}

describe('every differing pixel exported: check --differences and --differences-csv', () => {
  it('writes the first-divergence index field (numpy reads it back) and the pixel list ranked by |Δ|, bounded by the cap', async () => {
    const { gen, ref, d } = plantedFolders();
    const npy = join(d, 'first-stage.npy');
    const csv = join(d, 'pixels.csv');
    const r = await cli('check', gen, ref, '--differences', npy, '--differences-csv', csv);
    expect(r.code, r.err).toBe(0);
    const lines = readFileSync(csv, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('# heightbench differences: 2 of 2 differing pixels, ranked by |delta| (largest first); 0 left out (cap 100000)');
    expect(lines[2]).toMatch(/^2,3,-984,-968,.*,raster$/);
    expect(lines[3]).toMatch(/^70,40,104,-376,.*,pre-encode$/);
    const capped = await cli('check', gen, ref, '--differences-csv', csv, '--differences-cap', '1');
    expect(capped.out).toMatch(/1 pixels ranked by \|Δ\| → .*pixels\.csv \(1 left out by the cap\)/);
    expect(readFileSync(csv, 'utf8').split('\n')[0]).toMatch(/1 of 2 differing pixels.*1 left out \(cap 1\)/);
    // numpy reads the index field; the sidecar names the stages and the row order.
    const sidecar = JSON.parse(readFileSync(`${npy}.json`, 'utf8')) as { grid: { rowDirection: string }; notes: { differences: { stageNames: string[] } } };
    const py = spawnSync(
      join(import.meta.dirname, '..', '.venv', 'bin', 'python'),
      ['-c', `import numpy as np, json; a = np.load(${JSON.stringify(npy)}); print(json.dumps([a.shape, [float(v) for v in a.ravel()]]))`],
      {
        encoding: 'utf8',
      },
    );
    const [shape, values] = JSON.parse(py.stdout) as [number[], number[]];
    expect(shape).toEqual([N, N]);
    const at = (i: number, j: number) => values[(sidecar.grid.rowDirection === 'row0-at-ymin' ? j : N - 1 - j) * N + i];
    const names = sidecar.notes.differences.stageNames;
    expect(names[at(2, 3)]).toBe('raster');
    expect(names[at(70, 40)]).toBe('pre-encode');
    expect(values.filter((v) => v >= 0)).toHaveLength(2);
  });
});

describe('every differing pixel exported: compare --differences and --differences-csv', () => {
  it("lists exactly the pixels the comparison counts as differing, with the fields' values, bounded by the cap", async () => {
    const { gen, ref, d } = plantedFolders();
    const npy = join(d, 'differs.npy');
    const csv = join(d, 'pixels.csv');
    const [g, r] = [join(gen, 'pre-encode.r32'), join(ref, 'pre-encode.r32')];
    const run = await cli('compare', g, r, '--json', '--differences', npy, '--differences-csv', csv);
    expect(run.code, run.err).toBe(0);
    const differing = (JSON.parse(run.out) as { differing: number }).differing;
    expect(differing).toBe(2);
    const lines = readFileSync(csv, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2 + differing);
    expect(lines[0]).toBe(
      `# heightbench differences: ${differing} of ${differing} differing pixels, ranked by |delta| (largest first); 0 left out (cap 100000)`,
    );
    // Each row's values are the fields' own at its pixel: the reference's surface, the generated side's planted offset.
    const h = surface(3);
    const rows = lines.slice(2).map((l) => l.split(','));
    expect(rows.map((c) => [Number(c[0]), Number(c[1])])).toEqual([
      [2, 3],
      [70, 40],
    ]);
    for (const [c, offset] of [
      [rows[0], 5],
      [rows[1], 0.5],
    ] as const) {
      const k = Number(c[1]) * N + Number(c[0]);
      expect(Number(c[5])).toBe(h[k]);
      expect(Number(c[4])).toBe(Math.fround(h[k] + offset));
      expect(Number(c[6])).toBe(Number(c[4]) - Number(c[5]));
      expect(c[9]).toBe('final');
    }
    // The final codes: the count the comparison gives, the cap stated in the file.
    const capped = await cli('compare', join(gen, 'final.r16'), join(ref, 'final.r16'), '--json', '--differences-csv', csv, '--differences-cap', '1');
    expect(capped.code, capped.err).toBe(0);
    const codesDiffering = (JSON.parse(capped.out) as { differing: number }).differing;
    const head = readFileSync(csv, 'utf8').trim().split('\n');
    expect(head[0]).toBe(
      `# heightbench differences: 1 of ${codesDiffering} differing pixels, ranked by |delta| (largest first); ${codesDiffering - 1} left out (cap 1)`,
    );
    expect(head).toHaveLength(3);
    // numpy reads the index field: 0 at each differing pixel, −1 elsewhere.
    const py = spawnSync(
      join(import.meta.dirname, '..', '.venv', 'bin', 'python'),
      ['-c', `import numpy as np; a = np.load(${JSON.stringify(npy)}); print(int((a >= 0).sum()), int((a == -1).sum()))`],
      { encoding: 'utf8' },
    );
    expect(py.stdout.trim()).toBe(`${differing} ${N * N - differing}`);
  });
});

describe('pictures that show every difference', () => {
  it('the first-divergence map and the stage maps draw each planted pixel at its exact position, ringed, never overdrawn', async () => {
    const { gen, ref, d } = plantedFolders();
    const report = join(d, 'report');
    const r = await cli('check', gen, ref, '--attribution', '--report', report);
    expect(r.code, r.err).toBe(0);
    const compared = (JSON.parse(readFileSync(join(report, 'stages.json'), 'utf8')) as { stageAttribution: { stages: string[] } }).stageAttribution.stages;
    // Pixels read back by OpenImageIO (an independent PNG decoder); 128² maps are drawn one image pixel per map pixel,
    // rows bottom-up (row0-at-ymin): image y = 127 − row.
    const read = (file: string, points: [number, number][]) => {
      const py = spawnSync(
        join(import.meta.dirname, '..', '.venv', 'bin', 'python'),
        [
          '-c',
          `import OpenImageIO as oiio, json, sys\nb = oiio.ImageBuf(sys.argv[1])\nprint(json.dumps([[round(v * 255) for v in b.getpixel(x, y)][:3] for x, y in json.loads(sys.argv[2])]))`,
          file,
          JSON.stringify(points),
        ],
        { encoding: 'utf8' },
      );
      if (py.status !== 0) throw new Error(py.stderr);
      return JSON.parse(py.stdout) as number[][];
    };
    const at = (i: number, j: number): [number, number] => [i, N - 1 - j];
    const [raster, pre, ring, gap, none] = read(join(report, 'first-divergence.png'), [at(2, 3), at(70, 40), at(72, 40), at(71, 40), at(10, 10)]);
    expect(raster).toEqual(STAGE_COLOURS[compared.indexOf('raster')]);
    expect(pre).toEqual(STAGE_COLOURS[compared.indexOf('pre-encode')]);
    expect(ring).toEqual(ringTint(STAGE_COLOURS[compared.indexOf('pre-encode')]));
    expect(gap).toEqual([255, 255, 255]);
    expect(none).toEqual([255, 255, 255]);
    // The raster's stage map: the 5 m pixel in its own colour, a ring two pixels out, nothing at the pre-encode pixel.
    const [own, ringed, elsewhere] = read(join(report, 'stages', 'raster.png'), [at(2, 3), at(4, 3), at(70, 40)]);
    expect(own).toEqual(mmColour(5000, 1e6 / 65535));
    expect(ringed).toEqual(ringTint(mmColour(5000, 1e6 / 65535)));
    expect(elsewhere).toEqual([255, 255, 255]);
  });
});

describe('pixel lists ranked by |Δ| per stage', () => {
  it('stages.json keeps each stage’s 64 pixels of largest |Δq|, largest first (not the first in scan order), and counts the rest', async () => {
    const d = tempDir('hb-tail-');
    const gen = join(d, 'gen');
    const ref = join(d, 'ref');
    for (const dir of [gen, ref]) mkdirSync(dir);
    const enc = (h: Float32Array) => Uint16Array.from(h, (v) => Math.round(((v + 500) / 1000) * 65535));
    // 70 raster pixels along row 60, growing by 0.1 m per column: the largest lie last in scan order.
    const plant = (h: Float32Array) => {
      const g = h.slice();
      for (let c = 0; c < 70; c++) g[60 * N + c + 20] += 0.1 * (c + 1);
      return g;
    };
    ['raster', 'base', 'pre-encode'].forEach((s, n) => {
      const h = surface(n);
      const g = plant(h);
      if (s === 'pre-encode') g[100 * N + 100] += 0.05; // a small difference of its own at (100, 100): 3 codes
      writeHeightfieldFile(join(ref, `${s}.r32`), floatHeightfield(grid, h));
      writeHeightfieldFile(join(gen, `${s}.r32`), floatHeightfield(grid, g));
      if (s === 'pre-encode') {
        writeHeightfieldFile(join(ref, 'final.r16'), codeHeightfield(grid, enc(h)));
        writeHeightfieldFile(join(gen, 'final.r16'), codeHeightfield(grid, enc(g)));
      }
    });
    const report = join(d, 'report');
    const r = await cli('check', gen, ref, '--attribution', '--report', report);
    expect(r.code, r.err).toBe(0);
    const sa = (
      JSON.parse(readFileSync(join(report, 'stages.json'), 'utf8')) as {
        stageAttribution: { tail: { column: number; dq: number; stage: string }[]; tailLeftOut: Record<string, number> };
      }
    ).stageAttribution;
    const raster = sa.tail.filter((t) => t.stage === 'raster');
    expect(raster).toHaveLength(64);
    expect(raster[0].column).toBe(89); // the 7 m pixel, last in scan order
    for (let k = 1; k < raster.length; k++) expect(Math.abs(raster[k].dq)).toBeLessThanOrEqual(Math.abs(raster[k - 1].dq));
    expect(sa.tailLeftOut.raster).toBe(70 - 64);
    expect(r.out).toMatch(/\|Δq\| > 1 first diverging in raster, largest first: \(89, 60\) Δq \d+.*; 65 more left out/);
    // The gallery shows the pre-encode's own pixel although 70 raster pixels differ more, and says how many it leaves out.
    const html = readFileSync(join(report, 'index.html'), 'utf8');
    expect(html).toMatch(/<figure class="card" data-pixel="100,100"[^>]*><figcaption><b>#\d+<\/b> \(largest of its first stage\)/);
    expect(html).toMatch(/(\d+) of 71 differing pixels shown, (\d+) left out/);
  });
});
