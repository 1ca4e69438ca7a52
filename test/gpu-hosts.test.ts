/**
 * The GPU executor's independence and its two hosts:
 *  - import graph: src/gpu imports only src/gpu, the draw list's types, node builtins and npm packages (no CPU stage,
 *    sampling or encoding code), so the GPU side cannot share a convention with the CPU path by construction;
 *  - a small hand-built draw list runs end to end on Dawn for Node and in Debian's headless chromium: the same
 *    executor module on the same SwiftShader driver gives identical bytes at every stage; selected values are
 *    checked against arithmetic written here.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDefaultContainer, write as writeKtx } from 'ktx-parse';
import { describe, expect, it } from 'vitest';
import type { DrawList, DrawListAsset } from '../src/drawlist/types.js';
import { runGpu } from '../src/gpu/run.js';

/** Import specifiers of a TypeScript source (static `from '…'`, side-effect `import '…'`, dynamic `import('…')`). */
function importsOf(src: string): string[] {
  const out: string[] = [];
  for (const m of src.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) out.push(m[1]);
  return out;
}

/** Why an import of src/gpu is not allowed, or null when it is. */
function forbidden(spec: string): string | null {
  if (spec.startsWith('node:')) return null;
  if (!spec.startsWith('.')) return null; // an npm package
  if (/^\.\/[\w-]+\.js$/.test(spec)) return null; // src/gpu itself
  if (spec === '../drawlist/types.js') return null;
  return `imports ${spec}`;
}

describe('GPU executor independence', () => {
  it('src/gpu imports nothing from the CPU stage code (only src/gpu, src/drawlist/types, node:, npm)', () => {
    const dir = 'src/gpu';
    const bad: string[] = [];
    let seen = 0;
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.ts'))) {
      for (const spec of importsOf(readFileSync(join(dir, f), 'utf8'))) {
        seen++;
        const why = forbidden(spec);
        if (why) bad.push(`${f} ${why}`);
      }
    }
    expect(seen).toBeGreaterThan(20);
    expect(bad).toEqual([]);
    // The draw list's types import no values: only the stage names' type from the conventions (erased at build time).
    const typesSrc = readFileSync('src/drawlist/types.ts', 'utf8');
    expect(importsOf(typesSrc)).toEqual(['../conventions/index.js']);
    expect([...typesSrc.matchAll(/^import\s+(type\s+)?/gm)].map((m) => m[1]?.trim() ?? 'value')).toEqual(['type']);
    // The checker itself catches what it must.
    expect(forbidden('../cpu/smoothing.js')).not.toBeNull();
    expect(forbidden('../plan/emit.js')).not.toBeNull();
    expect(forbidden('../core/encoding.js')).not.toBeNull();
    expect(forbidden('../drawlist/serial.js')).not.toBeNull();
    expect(importsOf("import { a } from '../core/x.js';\nconst m = await import('../pipeline/y.js');")).toEqual(['../core/x.js', '../pipeline/y.js']);
  });
});

/** A KTX2 R16_UNORM asset with every level filled with one code. */
function constantAsset(
  id: string,
  kind: 'stamp' | 'location',
  size: number,
  code: number,
  worldSize: number,
  metresPerCode: number,
  offsetMetres: number,
): DrawListAsset {
  const sizes: number[] = [];
  for (let s = size; ; s = Math.max(1, s >> 1)) {
    sizes.push(s);
    if (s === 1) break;
  }
  const c = createDefaultContainer();
  c.vkFormat = 70; // R16_UNORM
  c.typeSize = 2;
  c.pixelWidth = size;
  c.pixelHeight = size;
  c.levelCount = sizes.length;
  c.levels = sizes.map((s) => {
    const b = new Uint8Array(s * s * 2);
    const dv = new DataView(b.buffer);
    for (let k = 0; k < s * s; k++) dv.setUint16(2 * k, code, true);
    return { levelData: b, uncompressedByteLength: b.length };
  });
  const bytes = writeKtx(c);
  return {
    id,
    kind,
    file: `${id}.ktx2`,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size,
    levelSizes: sizes,
    worldSize,
    decode: { metresPerCode, offsetMetres },
    embedded: bytes,
  };
}

function tinyList(): DrawList {
  const n = 32;
  // Layer 0: the whole square as two triangles with h = x (a ramp); layer 100: one triangle of +1 m.
  const ramp = [0, 0, 0, 32, 0, 32, 0, 32, 0, 32, 0, 32, 32, 32, 32, 0, 32, 0];
  const bump = [0, 0, 1, 8, 0, 1, 0, 8, 1];
  const stamp = constantAsset('s', 'stamp', 8, 1000, 4, 0.001, 0); // 1 m everywhere
  const loc = constantAsset('l', 'location', 8, 2000, 6, 0.001, 0); // 2 m everywhere
  const shape = {
    kind: 'circle' as const,
    x: 16,
    y: 16,
    radius: 3,
    halfSize: [0, 0] as [number, number],
    angle: 0,
    boundRadius: 3,
    transitionWidth: 2,
    strength: 1,
  };
  const place = (cx: number, cy: number, w: number) => ({
    localToWorld: [1, 0, 0, 1, cx, cy] as [number, number, number, number, number, number],
    worldToLocal: [1, 0, 0, 1, -cx, -cy] as [number, number, number, number, number, number],
    bounds: [cx - w / 2, cx + w / 2, cy - w / 2, cy + w / 2] as [number, number, number, number],
    centre: [cx, cy] as [number, number],
    lod: Math.log2(8 / w),
  });
  return {
    format: 'heightbench-drawlist',
    version: 1,
    producer: { name: 'test', version: '0' },
    request: { id: 'tiny', world: 'none', seed: 1 },
    grid: { xmin: 0, ymin: 0, size: 32, n, convention: 'texel-centre', rowDirection: 'row0-at-ymin' },
    stages: ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode', 'final'],
    raster: {
      subpixelBits: 8,
      fillRule: 'top-left',
      blend: 'add',
      layers: [
        { layer: 0, count: 2, xyh: Float64Array.from(ramp), cell: Int32Array.from([0, 0]) },
        { layer: 100, count: 1, xyh: Float64Array.from(bump), cell: Int32Array.from([0]) },
      ],
    },
    smoothing: {
      offsets: [-4.30908, -2.37532, -0.5, 1.37532, 3.30908],
      weights: [0.055028, 0.244038, 0.40187, 0.244038, 0.055028],
      levels: 3,
      filterFullResolution: true,
      order: 'filter-then-downsample',
      combine: '(h2 - h3) * 0.5 + h3',
      sampler: 'linear-clamp',
    },
    support: {
      a: 0.1,
      b: 10,
      reference: 'mid-envelope',
      locations: [{ location: 7, resource: 'r', stage: 'main', x: 16, y: 16, shapes: [shape], children: [], offset: 3, floor: null }],
    },
    stamps: { draws: [{ asset: 's', ...place(6, 26, 4), program: { mode: 'add', blend: 'add', k: 2 }, source: { kind: 'stamp', instance: 0, info: 'i' } }] },
    locations: {
      draws: [
        {
          asset: 'l',
          ...place(26, 6, 6),
          program: { mode: 'location', blend: 'read-modify-write', supportTarget: 7, window: 'border-0.15' },
          source: { kind: 'location', instance: 7, resource: 'r' },
        },
      ],
    },
    outer: { centre: [16, 16], inner: 12, outer: 15, input: { kind: 'constant', height: -5 } },
    encoding: { min: -100, max: 100, rule: 'd3d-unorm16' },
    assets: [loc, stamp].sort((a, b) => (a.id < b.id ? -1 : 1)),
  };
}

describe('GPU executor on both hosts (tiny hand-built draw list)', () => {
  it('Dawn for Node and headless chromium give identical bytes at every stage; values match hand arithmetic', async () => {
    const dl = tinyList();
    const a = await runGpu(dl, { host: 'dawn' });
    const b = await runGpu(dl, { host: 'chromium' });
    expect(a.adapter.architecture).toBe('swiftshader');
    expect(b.adapter.architecture).toBe('swiftshader');
    expect(a.adapter.host).toBe('dawn-node');
    expect(b.adapter.host).toBe('chromium-playwright');
    const stages = ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode'] as const;
    for (const s of stages) {
      const x = a.fields[s]!;
      const y = b.fields[s]!;
      expect(x.length, s).toBe(32 * 32);
      expect(Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength)), `${s} differs between hosts`).toBe(
        true,
      );
    }
    expect(Buffer.from(a.codes.buffer).equals(Buffer.from(b.codes.buffer))).toBe(true);
    const at = (s: (typeof stages)[number], i: number, j: number) => a.fields[s]![j * 32 + i];
    // Layer 0 is the ramp h = x: pixel (i, j) = i + 0.5 (float32 interpolation error allowed: 1e-5 m).
    for (const i of [0, 7, 20, 31]) expect(Math.abs(at('raster-layer0', i, 12) - (i + 0.5))).toBeLessThan(1e-5);
    // Layer 100 adds 1 m only inside its triangle (pixel (1, 1) is inside, (20, 20) is not).
    expect(at('raster', 1, 1) - at('raster-layer0', 1, 1)).toBeCloseTo(1, 5);
    expect(at('raster', 20, 20)).toBe(at('raster-layer0', 20, 20));
    // Support: inside the circle, strength 1 sets h = T = mid-envelope + 3 (one value for the whole disc).
    const inside = [at('after-support', 16, 16), at('after-support', 15, 16), at('after-support', 16, 17)];
    expect(new Set(inside).size).toBe(1);
    // The stamp adds k·s = 2·1 m at its centre pixel; the location sets h ← T + 2 m where its border window is 1.
    expect(at('after-stamps', 6, 26) - at('after-support', 6, 26)).toBeCloseTo(2, 5);
    expect(at('after-locations', 26, 6)).toBeCloseTo(inside[0] + 2, 4);
    // Outer: beyond r = 15 m the constant −5 m; pixel (0, 0) is 21.9 m from the centre.
    expect(at('pre-encode', 0, 0)).toBe(-5);
    // Final code at (0, 0), Direct3D's rule step by step in float32 over −100 … 100 m.
    const f = Math.fround;
    const u = f(f(-5 + 100) * f(1 / 200));
    expect(a.codes[0]).toBe(Math.trunc(f(f(u * 65535) + 0.5)));
    expect(a.adapter.subpixelBits).toBe(4);
  }, 120_000);
});
