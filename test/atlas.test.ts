/**
 * The atlas's machinery: the runner reuses a plan exactly when the ablation leaves planning alone, and a reused plan
 * emits the list a fresh one does; the fast per-stage differences agree with the compare engine; the written folder
 * is reproducible (no wall time in atlas.json, metrics.json or index.html) and a folder holding only a committed
 * metrics.json (a fresh clone of reports/atlas) is accepted while anything foreign is refused.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ABLATIONS,
  ATLAS_STAGES,
  PLANNING_GROUPS,
  SIGNATURE_NOTES,
  atlasRunner,
  buildAtlas,
  stageDifference,
  type AblationSpec,
} from '../src/experiments/atlas.js';
import { atlasHtml, atlasJson, atlasMetrics, checkAtlasOut, writeAtlas } from '../src/report/atlas-report.js';
import { compareHeightfields } from '../src/compare/compare.js';
import { DEFAULT_MASKS, RadialGeometry, maskContains, maskDefinitions } from '../src/compare/masks.js';
import { floatHeightfield } from '../src/core/heightfield.js';
import { loadRequest, requestGrid } from '../src/plan/request.js';
import { runPipeline } from '../src/pipeline/run.js';
import { loadRunInputs } from '../src/pipeline/inputs.js';
import { resolveRunConventions, type Plan } from '../src/plan/plan.js';
import { planDrawList } from '../src/plan/emit.js';
import { serialiseDrawList } from '../src/drawlist/serial.js';
import { bytes, tempDir } from './helpers.js';

const req = loadRequest('tundra-r19', 64);

describe('the atlas runner', () => {
  it('reuses a plan exactly when the planning groups (corners, fans) are as declared, and a reused plan emits the list a fresh one does', () => {
    const runner = atlasRunner(req, { precision: 'f32', keep: ATLAS_STAGES });
    expect(runner.run({}).planReused).toBe(false);
    for (const spec of ABLATIONS) {
      const touchesPlanning = PLANNING_GROUPS.some((g) => spec.option.conventions?.[g] !== undefined);
      expect(runner.run(spec.option).planReused, spec.name).toBe(!touchesPlanning);
    }
    // A plan is a value: planning from a cache gives the same list, byte for byte, as planning afresh.
    const { world, assets } = loadRunInputs(req);
    const c = resolveRunConventions(req, world, { smoothing: { filterFullResolution: false } });
    const plans = new Map<string, Plan>();
    const first = planDrawList(req, resolveRunConventions(req, world), assets, { world, plans });
    const reused = planDrawList(req, c, assets, { world, plans });
    const fresh = planDrawList(req, c, assets, { world });
    expect([first.planReused, reused.planReused, fresh.planReused]).toEqual([false, true, false]);
    expect(serialiseDrawList(reused.drawList)).toBe(serialiseDrawList(fresh.drawList));
  }, 120_000);
});

describe('per-stage differences', () => {
  it("agree with the compare engine's float RMS and maximum, whole map and inner 400 m disk", () => {
    const grid = requestGrid(req);
    const a = runPipeline(req, { precision: 'f32', keep: ['base'] }).fields.get('base') as Float32Array;
    const b = runPipeline(req, { precision: 'f32', keep: ['base'], conventions: { resample: { alignment: 0 } } }).fields.get('base') as Float32Array;
    const geo = new RadialGeometry(grid);
    const def = maskDefinitions(DEFAULT_MASKS).innerDisk;
    const inside = new Uint8Array(grid.columns * grid.rows);
    let pixels = 0;
    for (let j = 0; j < grid.rows; j++)
      for (let i = 0; i < grid.columns; i++)
        if (maskContains(def, geo.dx2[i] + geo.dy2[j], geo.dx[i], geo.dy[j])) ((inside[j * grid.columns + i] = 1), pixels++);
    const d = stageDifference('base', b, a, { inside, pixels }, grid.columns);
    const c = compareHeightfields(floatHeightfield(grid, b), floatHeightfield(grid, a));
    expect(d.rmsMm).toBeGreaterThan(1);
    expect(d.rmsMm).toBeCloseTo(c.floatRmsMm!, 9);
    expect(d.maxAbsMm).toBe(c.floatMaxAbsMm);
    expect(d.innerRmsMm).toBeCloseTo(c.masks.innerDisk.floatRmsMm!, 9);
    expect(d.innerMaxAbsMm).toBe(c.masks.innerDisk.floatMaxAbsMm);
    expect(stageDifference('base', a, a.slice(), { inside, pixels }, grid.columns)).toEqual({
      stage: 'base',
      rmsMm: 0,
      maxAbsMm: 0,
      innerRmsMm: 0,
      innerMaxAbsMm: 0,
    });
  }, 60_000);
});

describe('signature notes', () => {
  it('every ablation has one line saying why it has (or has no) signature; no note names an unknown ablation', () => {
    for (const a of ABLATIONS) expect(SIGNATURE_NOTES[a.name]?.length ?? 0, a.name).toBeGreaterThan(40);
    const names = new Set(ABLATIONS.map((a) => a.name));
    for (const k of Object.keys(SIGNATURE_NOTES)) expect(names.has(k), k).toBe(true);
  });
});

describe('the written atlas', () => {
  const three = ABLATIONS.filter((a) => ['pixel-corner-samples', 'renormalized-weights', 'mean-combine'].includes(a.name));
  it('is the same bytes for the same request (wall times only in timings.json)', () => {
    const a1 = buildAtlas(req, { ablations: three });
    const a2 = buildAtlas(req, { ablations: three });
    expect(JSON.stringify(atlasJson(a1))).toBe(JSON.stringify(atlasJson(a2)));
    expect(JSON.stringify(atlasMetrics(a1))).toBe(JSON.stringify(atlasMetrics(a2)));
    expect(atlasHtml(a1)).toBe(atlasHtml(a2));
    expect(JSON.stringify(atlasJson(a1))).not.toMatch(/runMs|correctRunMs/);
  }, 60_000);

  it('a folder holding only a committed metrics.json is accepted and replaced; a foreign file is refused before anything is written', () => {
    const d = tempDir('hb-atlas-out-');
    const out = join(d, 'atlas');
    mkdirSync(out);
    writeFileSync(join(out, 'metrics.json'), '{}\n');
    expect(() => checkAtlasOut(out)).not.toThrow();
    const a = buildAtlas(req, { ablations: three });
    writeAtlas(out, a);
    expect(readdirSync(out).sort()).toEqual(['atlas.json', 'index.html', 'maps', 'metrics.json', 'plotly.min.js', 'scale.png', 'timings.json']);
    const m = JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8'));
    expect(Object.keys(m.ablations).sort()).toEqual(three.map((x) => x.name).sort());
    writeFileSync(join(out, 'notes.txt'), 'mine');
    expect(() => checkAtlasOut(out)).toThrow(/notes\.txt.*refusing to replace it/);
    expect(() => writeAtlas(out, a)).toThrow(/refusing/);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('mine');
  }, 60_000);
});
