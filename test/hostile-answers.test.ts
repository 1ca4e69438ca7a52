/**
 * Issue 30, class 5 — no silent wrong answers. Gates count non-finite pixels (`--max-nonfinite N`, 0 whenever a gate
 * is asked for: the other gates measure the finite pixels only), every summary states how many pixels were compared,
 * and non-finite alphas, deltas and brush centres are refused at the terrain API boundary. (An asset whose declared
 * data does not match its world is refused in test/hostile-readers.test.ts.)
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { floatHeightfield } from '../src/core/heightfield.js';
import { writeHeightfieldFile } from '../src/io/heightfield-file.js';
import { EditLayer } from '../src/terrain/layers.js';
import { TerrainWeights } from '../src/terrain/weights.js';
import { cli, tempDir } from './helpers.js';

const N = 128;
const grid = { xmin: 0, ymin: 0, sizeX: 1280, sizeY: 1280, columns: N, rows: N, convention: 'texel-centre', rowDirection: 'row0-at-ymin' } as const;

/** A reference field and a generated one equal to it where finite, NaN at 90 % of its pixels (every k with k % 10 ≠ 0). */
function nanPair(dir: string): { gen: string; ref: string; finite: number } {
  mkdirSync(dir, { recursive: true });
  const ref = new Float32Array(N * N).map((_, k) => 100 + Math.sin(k / 50) * 20);
  const gen = ref.map((v, k) => (k % 10 === 0 ? v : Number.NaN));
  writeHeightfieldFile(join(dir, 'gen.r32'), floatHeightfield(grid, gen));
  writeHeightfieldFile(join(dir, 'ref.r32'), floatHeightfield(grid, ref));
  return { gen: join(dir, 'gen.r32'), ref: join(dir, 'ref.r32'), finite: Math.ceil((N * N) / 10) };
}

describe('gates count non-finite pixels', () => {
  it('nan-gate-bypass: a 90 % NaN .r32 no longer passes --min-exact 99.9 --max-abs-mm 1 --max-rms-mm 1 (exit 3)', async () => {
    const { gen, ref, finite } = nanPair(tempDir('hb-nan-'));
    // Two float fields: heights are compared in metres (--max-code would be refused: no code range is stated).
    const r = await cli('compare', gen, ref, '--min-exact', '99.9', '--max-abs-mm', '1', '--max-rms-mm', '1');
    expect(r.code).toBe(3);
    expect(r.err).toContain(`non-finite pixels ≤ 0, measured ${N * N - finite}`);
    expect(r.out).toContain(`Pixels compared: ${finite} of ${N * N}.`);
    // The finite tenth matches exactly, so with the exclusions allowed the other gates pass.
    const ok = await cli('compare', gen, ref, '--min-exact', '99.9', '--max-abs-mm', '1', '--max-rms-mm', '1', '--max-nonfinite', String(N * N - finite));
    expect(ok.code, ok.err).toBe(0);
    // Without any gate nothing is gated, but the count is still stated.
    const plain = await cli('compare', gen, ref, '--json');
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.out).nonFinite.pixelsExcluded).toBe(N * N - finite);
  });

  it('nan-gate-check: check --strict fails when a stage dump is mostly NaN, with only --min-exact given', async () => {
    const d = tempDir('hb-nan-check-');
    for (const side of ['gen', 'ref']) mkdirSync(join(d, side));
    const ref = new Float32Array(N * N).fill(120);
    for (const side of ['gen', 'ref']) writeHeightfieldFile(join(d, side, 'final.r16'), floatHeightfield(grid, ref));
    writeHeightfieldFile(join(d, 'ref', 'base.r32'), floatHeightfield(grid, ref));
    writeHeightfieldFile(
      join(d, 'gen', 'base.r32'),
      floatHeightfield(
        grid,
        ref.map((v, k) => (k % 10 === 0 ? v : Number.NaN)),
      ),
    );
    const excluded = N * N - Math.ceil((N * N) / 10);
    const r = await cli('check', join(d, 'gen'), join(d, 'ref'), '--min-exact', '99', '--strict');
    expect(r.code).toBe(3);
    expect(r.out).toContain(`gate non-finite pixels ≤ 0: ${excluded} → FAIL`);
    // A failed gate of check --strict is said on stderr, one line each, as compare says it.
    expect(r.err).toBe(`heightbench: gate failed: non-finite pixels ≤ 0, measured ${excluded}\n`);
    const pass = await cli('check', join(d, 'gen'), join(d, 'ref'), '--min-exact', '99', '--max-nonfinite', String(excluded), '--strict');
    expect(pass.code, pass.out).toBe(0);
  });

  it('max-nonfinite-flag: a negative or non-numeric --max-nonfinite is a usage error (exit 2)', async () => {
    const { gen, ref } = nanPair(tempDir('hb-nan-flag-'));
    for (const v of ['-1', 'x', 'NaN']) expect((await cli('compare', gen, ref, '--max-nonfinite', v)).code, v).toBe(2);
  });
});

describe('non-finite values refused at the terrain API boundary', () => {
  it('layer-alpha-nan: NaN or ±Inf alpha, deltas and brush centres throw a deliberate RangeError naming the value', () => {
    const l = new EditLayer('roads', 64, 64);
    for (const v of [Number.NaN, Infinity, -Infinity]) {
      expect(() => (l.alpha = v)).toThrow(`layer "roads": alpha: expected a finite number, got ${String(v)}`);
      expect(() => l.addDelta(1, 2, v)).toThrow(`layer "roads": delta at (1, 2) is ${v}`);
    }
    expect(l.alpha).toBe(1);
    l.alpha = -0.5;
    expect(l.alpha).toBe(-0.5);
    const w = new TerrainWeights(16, 16, ['ground', 'rock']);
    expect(() => w.paintBrush(Number.NaN, 3, 2, 1, 255)).toThrow(/centre \(NaN, 3\)/);
  });
});
