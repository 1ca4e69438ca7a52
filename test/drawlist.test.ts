/**
 * The draw list: round trip (serialise → parse → identical object, identical bytes, identical
 * CPU output), invariants of what it records (independent of the code that wrote it), validation messages, and
 * that the CPU executor draws what the list says (an edited list changes the output where the edit lies, and only
 * there; a list asking for another smoothing chain is refused).
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveRunConventions } from '../src/plan/plan.js';
import { loadRequest } from '../src/plan/request.js';
import { projectRoot } from '../src/project/paths.js';
import { runPipeline, type RunResult } from '../src/pipeline/run.js';
import { loadListAssets, loadRunInputs, planRequest } from '../src/pipeline/inputs.js';
import { buildBase, drawStamps } from './oracles/direct-path.js';
import { applySupport } from '../src/cpu/support.js';
import { computeSupportTargets } from '../src/pipeline/support-targets.js';
import { drawLocations } from './oracles/locations.js';
import { applyOuterBlend } from '../src/cpu/outer.js';
import { cellAt } from '../src/plan/cells.js';
import { encodeFieldR16 } from '../src/core/encoding.js';
import { executeDrawListCpu } from '../src/cpu/execute.js';
import { planDrawList } from '../src/plan/emit.js';
import { drawListFromJson, drawListToJson, parseDrawList, serialiseDrawList } from '../src/drawlist/serial.js';
import type { DrawList } from '../src/drawlist/types.js';
import { MismatchError } from '../src/errors.js';

const SIZE = 256;
const assetsDir = () => join(projectRoot(), 'assets');

function emit(id: string, size = SIZE, embedAssets = false): DrawList {
  const req = loadRequest(id, size);
  const { world, assets } = loadRunInputs(req, assetsDir(), {}, { keepBytes: embedAssets });
  return planDrawList(req, resolveRunConventions(req, world), assets, { world, size, embedAssets }).drawList;
}

/** The assets a list names, read from the asset folder (what the CLI's loaders hand the executor). */
const assetsOf = (dl: DrawList) => loadListAssets(dl, assetsDir());

/** The JSON value of a list, deep-copied so a test can edit it. */
const jsonOf = (dl: DrawList) => JSON.parse(serialiseDrawList(dl)) as Record<string, any>;

describe('draw list round trip', () => {
  let run: RunResult;
  beforeAll(() => {
    run = runPipeline(loadRequest('teaching-512', SIZE), {
      precision: 'f32',
      keep: ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations'],
    });
  });

  it('serialise → parse gives back the identical object, and serialising that gives the same bytes', () => {
    const text = serialiseDrawList(run.drawList);
    const back = parseDrawList(text, 'teaching.json');
    expect(back).toEqual(run.drawList);
    expect(serialiseDrawList(back)).toBe(text);
    // Every float64 bit of the triangle data survives (base64), −0 included.
    const a = run.drawList.raster.layers[0].xyh;
    const b = back.raster.layers[0].xyh;
    expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
  });

  it('the same request emits the same bytes twice (determinism)', () => {
    expect(serialiseDrawList(emit('teaching-512'))).toBe(serialiseDrawList(run.drawList));
  });

  it('a parsed list gives the identical CPU output at every stage, f32 and f64', () => {
    const parsed = parseDrawList(serialiseDrawList(run.drawList));
    const keep = ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations'];
    const f32 = executeDrawListCpu(parsed, { precision: 'f32', keep, assets: assetsOf(parsed) });
    expect(
      Buffer.from(f32.codes.buffer, f32.codes.byteOffset, f32.codes.byteLength).equals(
        Buffer.from(run.codes.buffer, run.codes.byteOffset, run.codes.byteLength),
      ),
    ).toBe(true);
    for (const s of [...keep, 'pre-encode']) expect(f32.fields.get(s), s).toEqual(run.fields.get(s));
    const direct = executeDrawListCpu(run.drawList, { precision: 'f64', assets: assetsOf(run.drawList) });
    const viaText = executeDrawListCpu(parsed, { precision: 'f64', assets: assetsOf(parsed) });
    expect(viaText.fields.get('pre-encode')).toEqual(direct.fields.get('pre-encode'));
    expect(viaText.codes).toEqual(direct.codes);
  });

  it('a list with embedded assets runs without the asset folder and gives the same output', () => {
    const dl = emit('teaching-512', SIZE, true);
    expect(dl.assets.every((a) => a.embedded && a.embedded.length > 0)).toBe(true);
    const parsed = parseDrawList(serialiseDrawList(dl));
    const r = executeDrawListCpu(parsed, { precision: 'f32' });
    expect(r.codes).toEqual(run.codes);
  });
});

describe('what the draw list records (invariants, independent of the emitter)', () => {
  const dl = emit('teaching-512');
  const req = loadRequest('teaching-512', SIZE);
  const plan = planRequest(req);

  it('grid: the request domain at N = 256, texel centres, row 0 at ymin; encoding range and outer band from the request', () => {
    expect(dl.grid).toEqual({
      xmin: req.domain.xmin,
      ymin: req.domain.ymin,
      size: req.domain.size,
      n: SIZE,
      convention: 'texel-centre',
      rowDirection: 'row0-at-ymin',
    });
    expect(dl.encoding).toEqual({ min: req.encoding.min, max: req.encoding.max, rule: 'd3d-unorm16' });
    expect([dl.outer.inner, dl.outer.outer]).toEqual([req.outerBlend.inner, req.outerBlend.outer]);
    expect(dl.outer.centre).toEqual([req.domain.xmin + req.domain.size / 2, req.domain.ymin + req.domain.size / 2]);
  });

  it('layer 0: one triangle per cell edge, cells in order, edges in generator order, outer vertices on the cell corners', () => {
    const m = plan.regions;
    const L = dl.raster.layers[0];
    expect(L.count).toBe(m.cell_corners.reduce((s, ids) => s + ids.length, 0));
    let t = 0;
    m.cell_corners.forEach((ids, c) => {
      for (let k = 0; k < ids.length; k++, t++) {
        expect(L.cell[t]).toBe(c);
        const a = ids[k];
        const b = ids[(k + 1) % ids.length];
        expect([L.xyh[9 * t + 3], L.xyh[9 * t + 4], L.xyh[9 * t + 6], L.xyh[9 * t + 7]]).toEqual([
          m.corner_xy[2 * a],
          m.corner_xy[2 * a + 1],
          m.corner_xy[2 * b],
          m.corner_xy[2 * b + 1],
        ]);
      }
    });
    // Fan centre position: the mean of the edge midpoints (checked on the first cell by hand).
    const ids = m.cell_corners[0];
    let sx = 0;
    for (let k = 0; k < ids.length; k++) sx += (m.corner_xy[2 * ids[k]] + m.corner_xy[2 * ids[(k + 1) % ids.length]]) / 2;
    expect(L.xyh[0]).toBeCloseTo(sx / ids.length, 9);
  });

  it('layer 100 covers only relief cells (second and upland groups)', () => {
    const g = plan.world.heightGroups;
    const L = dl.raster.layers[1];
    for (let t = 0; t < L.count; t++) expect([g.second, g.upland]).toContain(plan.regions.parent_group[plan.regions.cell_parent[L.cell[t]]]);
  });

  it('asset draws: worldToLocal inverts localToWorld, centre = the image of the local origin, bounds hold the transformed square', () => {
    const byId = new Map(dl.assets.map((a) => [a.id, a]));
    for (const d of [...dl.stamps.draws, ...dl.locations.draws]) {
      const [a, b, c, e, f, g] = d.localToWorld;
      const [A, B, C, E, F, G] = d.worldToLocal;
      // (worldToLocal ∘ localToWorld) = identity.
      expect(A * a + C * b).toBeCloseTo(1, 9);
      expect(B * a + E * b).toBeCloseTo(0, 9);
      expect(A * c + C * e).toBeCloseTo(0, 9);
      expect(B * c + E * e).toBeCloseTo(1, 9);
      expect(A * f + C * g + F).toBeCloseTo(0, 6);
      expect(d.centre).toEqual([f, g]);
      const h = byId.get(d.asset)!.worldSize / 2;
      for (const [x, y] of [
        [-h, -h],
        [h, -h],
        [h, h],
        [-h, h],
      ]) {
        const X = a * x + c * y + f;
        const Y = b * x + e * y + g;
        expect(X).toBeGreaterThanOrEqual(d.bounds[0] - 1e-9);
        expect(X).toBeLessThanOrEqual(d.bounds[1] + 1e-9);
        expect(Y).toBeGreaterThanOrEqual(d.bounds[2] - 1e-9);
        expect(Y).toBeLessThanOrEqual(d.bounds[3] + 1e-9);
      }
    }
  });

  it('location draws: placed at their instance with the heading, LOD = log2(texels per destination pixel) for an unscaled asset', () => {
    const px = dl.grid.size / dl.grid.n;
    const byId = new Map(dl.assets.map((a) => [a.id, a]));
    expect(dl.locations.draws.length).toBe(plan.layout.instances.length);
    dl.locations.draws.forEach((d, i) => {
      const q = plan.layout.instances[i];
      expect(d.program.supportTarget).toBe(i);
      expect(d.centre[0]).toBeCloseTo(q.x, 9);
      expect(d.centre[1]).toBeCloseTo(q.y, 9);
      expect(d.localToWorld[0]).toBeCloseTo(Math.cos(q.heading), 12);
      expect(d.localToWorld[1]).toBeCloseTo(Math.sin(q.heading), 12);
      const a = byId.get(d.asset)!;
      expect(d.lod).toBeCloseTo(Math.log2((a.size / a.worldSize) * px), 9);
    });
  });

  it('support: one entry per location in instance order, every child a later-listed satellite with a positive weight', () => {
    expect(dl.support.locations.map((l) => l.location)).toEqual(plan.layout.instances.map((_, i) => i));
    for (const l of dl.support.locations) {
      expect(l.shapes.length).toBeGreaterThan(0);
      for (const c of l.children) {
        expect(plan.layout.instances[c.location].parent).toBe(l.location);
        expect(c.weight).toBeGreaterThan(0);
      }
      for (const s of l.shapes) expect(s.boundRadius).toBe(s.kind === 'circle' ? s.radius : Math.hypot(s.halfSize[0], s.halfSize[1]));
    }
    // One location draw per layout instance, and every support shape of the layout: teaching-512 holds 58 draws,
    // 85 circles and 4 rotated rectangles (its survey sites; tundra-r19 keeps the article's 54 / 84 / 0).
    expect(dl.locations.draws.length).toBe(plan.layout.instances.length);
    expect(dl.locations.draws.length).toBe(58);
    const shapes = dl.support.locations.flatMap((l) => l.shapes);
    const planShapes = plan.layout.instances.flatMap((q) => q.supports);
    expect(shapes.filter((s) => s.kind === 'circle').length).toBe(planShapes.filter((s) => s.kind === 'circle').length);
    expect(shapes.filter((s) => s.kind === 'rect').length).toBe(planShapes.filter((s) => s.kind === 'rect').length);
    expect(shapes.filter((s) => s.kind === 'rect').length).toBe(4);
  });

  it('asset table: sorted ids, every draw names one, level sizes halve down to 1', () => {
    const ids = dl.assets.map((a) => a.id);
    expect([...ids].sort()).toEqual(ids);
    for (const d of [...dl.stamps.draws, ...dl.locations.draws]) expect(ids).toContain(d.asset);
    for (const a of dl.assets) {
      expect(a.levelSizes[0]).toBe(a.size);
      expect(a.levelSizes[a.levelSizes.length - 1]).toBe(1);
    }
  });
});

describe('the draw list holds what the stage functions draw (consistency with the pre-draw-list path)', () => {
  it('stage by stage (f64, and f32 with the stage functions on plain arrays against the executor’s kernels), the stage functions and the executor give the same fields', () => {
    const req = loadRequest('teaching-512', 128);
    for (const precision of ['f64', 'f32'] as const) {
      // The stage functions, called as runPipeline called them before the draw list.
      const plan = planRequest(req);
      const world = plan.world;
      const P = plan.recipe.params;
      const set = loadRunInputs(req, assetsDir()).assets;
      const assets = set.assets;
      const g = { xmin: req.domain.xmin, ymin: req.domain.ymin, size: req.domain.size, n: 128 };
      const eligible = req.sceneTypes.some((s) => P.outer.drawEligibleSceneTypes.includes(s));
      const base = buildBase(plan, 128, precision, { keepRaster: true });
      const field = base.base.slice();
      const inst = plan.layout.instances;
      const groupOf = (x: number, y: number) => plan.regions.parent_group[plan.regions.cell_parent[cellAt(plan.regions, x, y)]];
      const targets = computeSupportTargets(field, g, inst, world, P.support, groupOf);
      applySupport(field, g, inst, targets, precision);
      const afterSupport = field.slice();
      drawStamps(field, g, plan.stamps, world, assets, precision);
      const afterStamps = field.slice();
      drawLocations(field, g, inst, targets, world, assets, precision);
      const afterLocations = field.slice();
      applyOuterBlend(field, g, req.outerBlend, eligible ? base.raster! : P.outer.outerInitialHeight, precision);
      const codes = new Uint16Array(128 * 128);
      encodeFieldR16(field, codes, req.encoding);

      const dl = planDrawList(req, resolveRunConventions(req, world), set, { world, size: 128 }).drawList;
      const r = executeDrawListCpu(dl, { precision, keep: ['base', 'after-support', 'after-stamps', 'after-locations'], assets });
      // f32 runs of executeDrawListCpu use the arena kernels; they are bit-identical to the plain loops (tested elsewhere).
      expect(Array.from(r.fields.get('base')!), `${precision} base`).toEqual(Array.from(base.base));
      expect(
        r.support.map((t) => t.target),
        `${precision} targets`,
      ).toEqual(targets.map((t) => t.target));
      expect(Array.from(r.fields.get('after-support')!), `${precision} after-support`).toEqual(Array.from(afterSupport));
      expect(Array.from(r.fields.get('after-stamps')!), `${precision} after-stamps`).toEqual(Array.from(afterStamps));
      expect(Array.from(r.fields.get('after-locations')!), `${precision} after-locations`).toEqual(Array.from(afterLocations));
      expect(Array.from(r.fields.get('pre-encode')!), `${precision} pre-encode`).toEqual(Array.from(field));
      expect(Array.from(r.codes)).toEqual(Array.from(codes));
    }
  });
});

describe('the executor draws what the list says', () => {
  const dl = emit('teaching-512', 128);
  const assets = assetsOf(dl);
  const base = executeDrawListCpu(dl, { precision: 'f64', keep: ['after-support', 'after-stamps'], assets });

  it('zeroing one add stamp changes after-stamps only inside the boxes of that draw and of later draws touching it', () => {
    const k = dl.stamps.draws.findIndex((d) => d.program.mode === 'add');
    expect(k).toBeGreaterThanOrEqual(0);
    const edited = drawListFromJson(jsonOf(dl));
    const p = edited.stamps.draws[k].program;
    if (p.mode !== 'add') throw new Error('unreachable');
    p.k = 0;
    const r = executeDrawListCpu(edited, { precision: 'f64', keep: ['after-support', 'after-stamps'], assets });
    expect(r.fields.get('after-support')).toEqual(base.fields.get('after-support'));
    const a = base.fields.get('after-stamps')!;
    const b = r.fields.get('after-stamps')!;
    const n = dl.grid.n;
    const px = dl.grid.size / n;
    const inBox = (bx: number[], i: number, j: number) => {
      const x = dl.grid.xmin + (i + 0.5) * px;
      const y = dl.grid.ymin + (j + 0.5) * px;
      return x >= bx[0] && x <= bx[1] && y >= bx[2] && y <= bx[3];
    };
    const boxes = dl.stamps.draws.filter((d, i) => i === k || i > k).map((d) => d.bounds);
    let changed = 0;
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        if (a[j * n + i] === b[j * n + i]) continue;
        changed++;
        expect(
          boxes.some((bx) => inBox(bx, i, j)),
          `pixel ${i},${j}`,
        ).toBe(true);
      }
    }
    expect(changed).toBeGreaterThan(0);
    // Inside the zeroed draw's own box, some pixel changed.
    let inside = 0;
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (a[j * n + i] !== b[j * n + i] && inBox(dl.stamps.draws[k].bounds, i, j)) inside++;
    expect(inside).toBeGreaterThan(0);
  });

  it('a location offset in the list moves that location’s support target by the offset, and no other target (children weigh in by reference, not target)', () => {
    const idx = base.support.findIndex((t) => !t.floorApplied);
    expect(idx).toBeGreaterThanOrEqual(0);
    const edited = drawListFromJson(jsonOf(dl));
    edited.support.locations[idx].offset += 3;
    const r = executeDrawListCpu(edited, { precision: 'f64', assets });
    expect(r.support[idx].target).toBeCloseTo(base.support[idx].target + 3, 12);
    r.support.forEach((t, i) => {
      if (i !== idx) expect(t.target).toBe(base.support[i].target);
    });
  });

  it('a list asking for another smoothing chain is refused, naming the field and both values', () => {
    const edited = drawListFromJson(jsonOf(dl));
    edited.smoothing.weights[0] = 0.06;
    expect(() => executeDrawListCpu(edited, { precision: 'f64', assets })).toThrow(MismatchError);
    expect(() => executeDrawListCpu(edited, { precision: 'f64', assets })).toThrow(/smoothing\.weights: .*0\.055028.*0\.06/);
  });
});

describe('draw list validation names the JSON path and the value', () => {
  const dl = emit('teaching-512', 64);
  const bad = (edit: (o: Record<string, any>) => void) => {
    const o = jsonOf(dl);
    edit(o);
    return () => drawListFromJson(o, 'dl.json');
  };

  it('format and version', () => {
    expect(bad((o) => (o.format = 'other'))).toThrow('dl.json.format: expected "heightbench-drawlist", found "other"');
    expect(bad((o) => (o.version = 2))).toThrow('dl.json.version: this heightbench reads draw list version 1, the file has 2');
  });
  it('triangle counts must match their arrays', () => {
    expect(bad((o) => (o.raster.layers[0].count += 1))).toThrow(/dl\.json\.raster\.layers\[0\]\.xyh: expected 9 × count = \d+ numbers, found \d+/);
    expect(bad((o) => (o.raster.layers[1].xyh.count += 1))).toThrow(
      /dl\.json\.raster\.layers\[1\]\.xyh\.data: expected \d+ × 8 = \d+ bytes for count \d+, found \d+/,
    );
    expect(bad((o) => (o.raster.layers[0].xyh.data = '@@@@'))).toThrow('dl.json.raster.layers[0].xyh.data: expected base64 text, found "@@@@"');
  });
  it('non-finite and mistyped numbers', () => {
    expect(bad((o) => (o.grid.n = 12.5))).toThrow('dl.json.grid.n: expected an integer in [1, 16384], found 12.5');
    expect(bad((o) => (o.stamps.draws[0].lod = 'x'))).toThrow('dl.json.stamps.draws[0].lod: expected a number, found "x"');
    expect(bad((o) => (o.support.locations[0].shapes[0].strength = 2))).toThrow(
      'dl.json.support.locations[0].shapes[0].strength: expected a number in [0, 1], found 2',
    );
    expect(bad((o) => (o.outer.outer = o.outer.inner))).toThrow(/^dl\.json\.outer\.outer: expected a radius above inner \(\d+\), found \d+$/);
    expect(bad((o) => (o.encoding.max = -600))).toThrow('dl.json.encoding.max: expected a height above min (-500), found -600');
  });
  it('cross references and unknown fields', () => {
    expect(bad((o) => (o.stamps.draws[3].asset = 'nope'))).toThrow('dl.json.stamps.draws[3].asset: "nope" is not in the asset table (dl.json.assets)');
    expect(bad((o) => (o.locations.draws[0].program.supportTarget = 999))).toThrow(
      'dl.json.locations.draws[0].program.supportTarget: expected a support location index below 58, found 999',
    );
    expect(bad((o) => (o.outer.extra = 1))).toThrow('dl.json.outer.extra: unknown field (expected only centre, inner, outer, input)');
    expect(bad((o) => (o.assets[0].levelSizes[1] = 3))).toThrow(
      /dl\.json\.assets\[0\]\.levelSizes\[1\]: expected \d+ \(level k \+ 1 = max\(1, floor\(n\/2\)\) from size \d+\), found 3/,
    );
  });
  it('the JSON text of a list keeps its documented shape (bulk arrays base64, scalars plain)', () => {
    const o = drawListToJson(dl) as Record<string, any>;
    expect(o.raster.layers[0].xyh.encoding).toBe('base64-float64-le');
    expect(o.raster.layers[0].cell.encoding).toBe('base64-int32-le');
    expect(typeof o.stamps.draws[0].lod).toBe('number');
  });
});
