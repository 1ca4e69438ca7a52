/**
 * Attribution in a pipeline's own terms (src/compare/attribution.ts with src/pipelines/): the declared order and
 * causes, origins against propagation through declared footprints, run folders that record their declaration, and
 * the bell generator and the engine heightfield verified through their declarations.
 * The four-stage example is built here with its own arithmetic (a 5×5 box filter, an affine shaping, the UNORM16
 * rule written out), not with heightbench's pipeline.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attributeStages, attributionSummary, type RunFields } from '../src/compare/attribution.js';
import { codeHeightfield, floatHeightfield } from '../src/core/heightfield.js';
import type { GridDescription } from '../src/core/grid.js';
import { writeHeightfieldFile } from '../src/io/heightfield-file.js';
import { parsePipelineDeclaration, pipelineJson, type PipelineDeclaration } from '../src/pipelines/declaration.js';
import { bellPipeline, bellStageFields } from '../src/bell/pipeline.js';
import { engineHeightfieldPipeline, engineStageFields } from '../src/terrain/pipeline.js';
import { LayerStack } from '../src/terrain/layers.js';
import { readStore, writeStore } from '../src/terrain/store.js';
import { cli, tempDir, testRandom } from './helpers.js';

const N = 64;
const GRID: GridDescription = { xmin: -256, ymin: -256, sizeX: 512, sizeY: 512, columns: N, rows: N, convention: 'texel-centre', rowDirection: 'row0-at-ymin' };
const RANGE = { min: -200, max: 1800 };
const PLANTED = [
  [10, 10],
  [30, 12],
  [50, 20],
  [15, 45],
  [40, 50],
] as const;

const declaration = (smoothFootprint: object | undefined): PipelineDeclaration =>
  parsePipelineDeclaration({
    version: 1,
    name: 'my-terrain',
    stages: [
      { name: 'noise', holds: { kind: 'float', unit: 'm' }, cause: 'the noise octaves', footprint: { pixels: 0 } },
      { name: 'smooth', holds: { kind: 'float', unit: 'm' }, ...(smoothFootprint ? { footprint: smoothFootprint } : {}) },
      { name: 'shaped', holds: { kind: 'float', unit: 'm' }, footprint: { pixels: 0 } },
      { name: 'final', holds: { kind: 'codes', encoding: 'unorm16', min: RANGE.min, max: RANGE.max }, encodedFrom: 'shaped', footprint: { pixels: 0 } },
    ],
  });

/** The example reconstruction: noise → 5×5 box (edges clamped) → ×1.2 + 50 → UNORM16 half-up over RANGE. */
function run(noise: Float32Array): { stages: Map<string, Float32Array>; codes: Uint16Array } {
  const smooth = new Float32Array(N * N);
  for (let j = 0; j < N; j++)
    for (let i = 0; i < N; i++) {
      let s = 0;
      for (let dj = -2; dj <= 2; dj++)
        for (let di = -2; di <= 2; di++) s += noise[Math.min(N - 1, Math.max(0, j + dj)) * N + Math.min(N - 1, Math.max(0, i + di))];
      smooth[j * N + i] = s / 25;
    }
  const shaped = smooth.map((h) => h * 1.2 + 50);
  const codes = Uint16Array.from(shaped, (h) => Math.floor(Math.min(1, Math.max(0, (h - RANGE.min) / (RANGE.max - RANGE.min))) * 65535 + 0.5));
  return {
    stages: new Map([
      ['noise', noise],
      ['smooth', smooth],
      ['shaped', shaped],
    ]),
    codes,
  };
}

function example(): { ref: ReturnType<typeof run>; gen: ReturnType<typeof run> } {
  const rnd = testRandom(37);
  const noise = Float32Array.from({ length: N * N }, () => 200 + 400 * rnd());
  const planted = Float32Array.from(noise);
  for (const [i, j] of PLANTED) planted[j * N + i] += 3;
  return { ref: run(noise), gen: run(planted) };
}

const fields = (r: { stages: Map<string, Float32Array>; codes: Uint16Array }, grid = GRID): RunFields => ({
  stages: new Map([...r.stages].map(([k, v]) => [k, { grid, height_px: v }])),
  finalGrid: grid,
  codes: r.codes,
});

describe('attribution in the declared order, with origins through declared footprints', () => {
  it('counts the 5 planted noise pixels as the only origins and their smoothing footprint as propagated', () => {
    const { ref, gen } = example();
    const r = attributeStages(fields(gen), fields(ref), { pipeline: declaration({ pixels: 2 }), perPixel: true });
    // Each planted +3 m spreads as +0.12 m over its 5×5 box, ×1.2 after shaping: 4.7 codes, so all 125 differ.
    expect(r.differing).toBe(125);
    expect(r.stages).toEqual(['noise', 'smooth', 'shaped']);
    expect(r.byStage).toEqual({ noise: 5, smooth: 120 });
    expect(r.byCause).toEqual({ 'the noise octaves': 5, 'first differs at smooth': 120 });
    expect(r.origins).toEqual({ byStage: { noise: 5 }, propagated: { smooth: { noise: 120 } } });
    // Per pixel: every differing pixel's origin is the noise stage.
    const noiseIndex = r.pixelStages!.names.indexOf('noise');
    expect([...new Set(r.pixelStages!.origin)]).toEqual([noiseIndex]);
    expect(attributionSummary(r).join('\n')).toContain('120 first diverge in smooth (0 near-ties; |Δq| 4: ');
    expect(attributionSummary(r).join('\n')).toMatch(/first diverge in smooth \(.*\): 0 originate there, 120 propagated from noise/);
  });

  it('a footprint that acts: declared 1 px, the outer ring of each box originates in smooth; in metres, the same as pixels', () => {
    const { ref, gen } = example();
    const one = attributeStages(fields(gen), fields(ref), { pipeline: declaration({ pixels: 1 }) });
    expect(one.origins).toEqual({ byStage: { noise: 5, smooth: 5 * 16 }, propagated: { smooth: { noise: 5 * 8 } } });
    const metres = attributeStages(fields(gen), fields(ref), { pipeline: declaration({ metres: 16 }) });
    expect(metres.origins).toEqual({ byStage: { noise: 5 }, propagated: { smooth: { noise: 120 } } });
  });

  it('traces no origins where the footprint between is unknown (undeclared)', () => {
    const { ref, gen } = example();
    const r = attributeStages(fields(gen), fields(ref), { pipeline: declaration(undefined) });
    expect(r.origins).toEqual({ byStage: { noise: 5, smooth: 120 }, propagated: {} });
  });
});

describe('run folders that record their declaration', () => {
  const folder = (dir: string, r: ReturnType<typeof run>, d: PipelineDeclaration | null): string => {
    for (const [s, h] of r.stages) writeHeightfieldFile(join(dir, `${s}.r32`), floatHeightfield(GRID, h), { stage: s });
    writeHeightfieldFile(join(dir, 'final.r16'), codeHeightfield(GRID, r.codes, RANGE), { stage: 'final' });
    if (d) writeFileSync(join(dir, 'pipeline.json'), pipelineJson(d));
    return dir;
  };

  it('check walks the declared stages, shows origins, reports an undeclared stage file and refuses differing declarations', async () => {
    const { ref, gen } = example();
    const root = tempDir();
    const d = declaration({ pixels: 2 });
    const g = folder(join(root, 'gen'), gen, d);
    const r = folder(join(root, 'ref'), ref, d);
    writeHeightfieldFile(join(g, 'erosion.r32'), floatHeightfield(GRID, gen.stages.get('noise')!), { stage: 'erosion' });
    const out = await cli('check', g, r, '--attribution', '--report', join(root, 'report'));
    expect(out.code).toBe(0);
    expect(out.out).toContain('noise ');
    expect(out.out).toMatch(/120 first diverge in smooth .*: 0 originate there, 120 propagated from noise/);
    expect(out.out).toContain('first stage differing beyond rounding: noise');
    expect(out.out).toContain('The generated folder holds 1 stage file pipeline "my-terrain" does not declare, not compared: erosion.r32.');
    const { readFileSync } = await import('node:fs');
    const summary = readFileSync(join(root, 'report', 'summary.md'), 'utf8');
    expect(summary).toContain('The generated folder holds 1 stage file pipeline "my-terrain" does not declare, not compared: erosion.r32.');
    expect(summary).toContain('— 5 originate there');
    expect(summary).not.toMatch(/innerDisk|blendRing|article anchor|3D view/);
    const html = readFileSync(join(root, 'report', 'index.html'), 'utf8');
    expect(html).not.toContain('id="d3diff"');
    expect(html).not.toContain('3D view of the difference');
    // The gallery leads with the pixels where the difference originates: the planted ones.
    const led = [...html.matchAll(/<b>#(\d+)<\/b> \(([^)]*)\) pixel \((\d+), (\d+)\)/g)].map((m) => [m[2], Number(m[3]), Number(m[4])]);
    expect(led.slice(0, 5).map((x) => x[0])).toEqual(['origin', 'origin', 'origin', 'origin', 'origin']);
    expect(
      led
        .slice(0, 5)
        .map((x) => `${x[1]},${x[2]}`)
        .sort(),
    ).toEqual(PLANTED.map(([i, j]) => `${i},${j}`).sort());
    expect(led.slice(5).every((x) => x[0] !== 'origin')).toBe(true);
    // The other side declares smooth's footprint as 3 px: refused, naming the first difference.
    const r3 = folder(join(root, 'ref3'), ref, declaration({ pixels: 3 }));
    const bad = await cli('check', g, r3);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('first difference: stages[1].footprint.pixels: 2 vs 3');
    // A folder without pipeline.json is the seed pipeline.
    const seed = folder(join(root, 'seedlike'), ref, null);
    const bad2 = await cli('check', g, seed);
    expect(bad2.code).toBe(2);
    expect(bad2.err).toContain('first difference: name: "my-terrain" vs "heightbench-seed"');
    // A broken declaration in a folder is refused with its key path; a dangling link named pipeline.json too.
    const broken = folder(join(root, 'broken'), ref, d);
    writeFileSync(join(broken, 'pipeline.json'), JSON.stringify({ ...JSON.parse(pipelineJson(d)), stages: [] }));
    const b3 = await cli('check', g, broken);
    expect(b3.code).toBe(2);
    expect(b3.err).toMatch(/pipeline\.json\.stages: expected 1 to 64 stages, found "0 stages"/);
    const linked = folder(join(root, 'linked'), ref, null);
    symlinkSync(join(root, 'nowhere.json'), join(linked, 'pipeline.json'));
    const b4 = await cli('check', g, linked);
    expect(b4.code).toBe(2);
    expect(b4.err).toContain('pipeline.json');
  });
});

describe('the two other families through their declarations', () => {
  it('bell: the naive and fast paths as two runs; a planted change attributed to its stage, over the encoding’s own range', () => {
    const p = { seed: 7, nb: 12, p1: 0.5, p2: 30, p3: 3, size: 48 };
    const range = { min: 0, max: 1 };
    const d = bellPipeline(range);
    const naive = bellStageFields(p, 'naive', range);
    const fast = bellStageFields(p, 'fast', range);
    const asFields = (f: typeof naive): RunFields => ({
      stages: new Map([...f.stages].map(([k, v]) => [k, { grid: f.grid, height_px: v }])),
      finalGrid: f.grid,
      codes: f.codes,
    });
    const same = attributeStages(asFields(fast), asFields(naive), { pipeline: d });
    // The two paths' codes over [0, 1]: any difference is a straddle of float rounding, never beyond one code.
    expect(Object.keys(same.deltaByStage).every((s) => Object.keys(same.deltaByStage[s]).every((q) => q === '1'))).toBe(true);
    // Plant: one generator's bell doubled in the second half only → first differs at bells-all.
    const k = 20 * 48 + 30;
    const planted = bellStageFields(p, 'fast', range);
    const all = planted.stages.get('bells-all')!;
    all[k] += 0.05;
    planted.codes[k] = Math.floor(Math.min(1, all[k]) * 65535 + 0.5);
    const r = attributeStages(asFields(planted), asFields(naive), { pipeline: d, epsilonMm: 1 });
    expect(r.byStage['bells-all']).toBe(1);
    expect(r.byCause['the second half of the generators']).toBe(1);
    // Plant in the first half (it carries into the total): attributed to bells-first-half.
    const early = bellStageFields(p, 'fast', range);
    early.stages.get('bells-first-half')![k] += 0.05;
    early.stages.get('bells-all')![k] += 0.05;
    early.codes[k] = Math.floor(Math.min(1, early.stages.get('bells-all')![k]) * 65535 + 0.5);
    const e = attributeStages(asFields(early), asFields(naive), { pipeline: d, epsilonMm: 1 });
    expect(e.byStage['bells-first-half']).toBe(1);
    expect(e.origins?.byStage['bells-first-half']).toBe(1);
  });

  it('engine heightfield: a planted edit in one layer is attributed to that layer, the declaration taken from the stack', () => {
    const make = (edit: boolean) => {
      const rnd = testRandom(4);
      const s = new LayerStack(
        96,
        80,
        Float32Array.from({ length: 96 * 80 }, () => 100 * rnd()),
        { min: -50, max: 150 },
      );
      const roads = s.addLayer('roads');
      const sculpt = s.addLayer('sculpt');
      for (let i = 10; i < 40; i++) roads.addDelta(i, 20, -1.5);
      for (let j = 50; j < 60; j++) sculpt.addDelta(70, j, 2);
      if (edit) sculpt.addDelta(5, 70, 0.5);
      return s;
    };
    // Both sides come from the store (written and read back): the declaration is taken from the stored stack.
    const a = readStore(writeStore(make(true))).stack;
    const b = readStore(writeStore(make(false))).stack;
    const d = engineHeightfieldPipeline(a);
    expect(d).toEqual(engineHeightfieldPipeline(b));
    const fa = engineStageFields(a);
    const fb = engineStageFields(b);
    const r = attributeStages(
      { stages: new Map([...fa.stages].map(([k, v]) => [k, { grid: fa.grid, height_px: v }])), finalGrid: fa.grid, codes: fa.codes },
      { stages: new Map([...fb.stages].map(([k, v]) => [k, { grid: fb.grid, height_px: v }])), finalGrid: fb.grid, codes: fb.codes },
      { pipeline: d },
    );
    expect(r.stages).toEqual(['base', 'layer0-roads', 'layer1-sculpt', 'composite']);
    expect(r.byStage).toEqual({ 'layer1-sculpt': 1 });
    expect(r.byCause).toEqual({ 'layer 1 "sculpt" (sculpt)': 1 });
    // The running composite after the last layer is the composite the stack resolves.
    expect(fa.stages.get('layer1-sculpt')).toEqual(fa.stages.get('composite'));
  });
});

describe('import --pipeline: captures take the declared stage names', () => {
  it('imports under its own names, records the declaration, refuses another declaration and a codes range that differs', async () => {
    const { readFileSync, existsSync, mkdirSync } = await import('node:fs');
    const root = tempDir();
    const { gen } = example();
    const caps = join(root, 'captures');
    mkdirSync(caps);
    for (const [s, h] of gen.stages) writeHeightfieldFile(join(caps, `${s}.r32`), floatHeightfield(GRID, h), { stage: s });
    writeHeightfieldFile(join(caps, 'final.r16'), codeHeightfield(GRID, gen.codes, RANGE), { stage: 'final' });
    const decl = join(root, 'my.yaml');
    writeFileSync(
      decl,
      'version: 1\nname: my-terrain\nstages:\n  - { name: noise, holds: { kind: float, unit: m }, cause: the noise octaves, footprint: { pixels: 0 } }\n  - { name: smooth, holds: { kind: float, unit: m }, footprint: { pixels: 2 } }\n  - { name: shaped, holds: { kind: float, unit: m }, footprint: { pixels: 0 } }\n  - { name: final, holds: { kind: codes, encoding: unorm16, min: -200, max: 1800 }, encodedFrom: shaped, footprint: { pixels: 0 } }\n',
    );
    const out = join(root, 'ref');
    const seedRefusal = await cli('import', join(caps, 'noise.r32'), '--stage', 'noise', '--out', out);
    expect(seedRefusal.code).toBe(2);
    expect(seedRefusal.err).toContain('give --pipeline FILE');
    const a = await cli('import', join(caps, 'noise.r32'), '--stage', 'noise', '--pipeline', decl, '--out', out);
    expect(a.err).toBe('');
    expect(existsSync(join(out, 'noise.r32'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'pipeline.json'), 'utf8'))).toEqual(declaration({ pixels: 2 }));
    // The folder's own declaration names the stages from now on (no --pipeline needed).
    expect((await cli('import', join(caps, 'smooth.r32'), '--stage', 'smooth', '--out', out)).code).toBe(0);
    // A manifest with its own `pipeline:` key, and the codes stage over the declared range.
    writeFileSync(
      join(root, 'm.yaml'),
      `pipeline: my.yaml\ncaptures:\n  - { file: captures/shaped.r32, stage: shaped }\n  - { file: captures/final.r16, stage: final }\n`,
    );
    const m = await cli('import', '--manifest', join(root, 'm.yaml'), '--out', out);
    expect(m.err).toBe('');
    expect(existsSync(join(out, 'final.r16'))).toBe(true);
    // Another declaration for the same folder: refused with the first difference.
    writeFileSync(join(root, 'other.yaml'), readFileSync(decl, 'utf8').replace('pixels: 2', 'pixels: 3'));
    const other = await cli('import', join(caps, 'noise.r32'), '--stage', 'noise', '--pipeline', join(root, 'other.yaml'), '--out', out, '--replace');
    expect(other.code).toBe(2);
    expect(other.err).toContain('first difference: stages[1].footprint.pixels: 2 vs 3');
    // Codes over another range than the declared one: refused, naming both.
    writeHeightfieldFile(join(caps, 'wrong.r16'), codeHeightfield(GRID, gen.codes, { min: -500, max: 500 }), { stage: 'final' });
    const wrong = await cli('import', join(caps, 'wrong.r16'), '--stage', 'final', '--out', out, '--replace');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain("holds codes over -200,1800; the capture's range is -500,500");
    // The imported folder checks against a generated one in the declared terms.
    const g = join(root, 'gen');
    mkdirSync(g);
    for (const f of ['noise', 'smooth', 'shaped'])
      writeHeightfieldFile(join(g, `${f}.r32`), floatHeightfield(GRID, example().ref.stages.get(f)!), { stage: f });
    writeHeightfieldFile(join(g, 'final.r16'), codeHeightfield(GRID, example().ref.codes, RANGE), { stage: 'final' });
    writeFileSync(join(g, 'pipeline.json'), readFileSync(join(out, 'pipeline.json')));
    const c = await cli('check', g, out, '--attribution');
    expect(c.code).toBe(0);
    expect(c.out).toMatch(/125 of 4096 final codes differ/);
    expect(c.out).toMatch(/5 first diverge in noise .*: 5 originate there/);
  });
});
