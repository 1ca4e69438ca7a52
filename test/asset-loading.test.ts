/**
 * The asset reader's fast path (level codes viewed in place, the mip chain checked level by level in one loop per
 * level) against the reference: each level read code by code, buildMipChain recomputed from level 0 and compared,
 * every level decoded with the documented rule. Every level of every asset of the world must be the same bits, and an
 * altered level must be refused with the reference's message — on the level kernel (wasm/asset-levels.wat) and on the
 * loops that serve without WebAssembly (HEIGHTBENCH_NO_WASM=1).
 */
import { join } from 'node:path';
import { read as readKtx, write as writeKtx } from 'ktx-parse';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildMipChain, levelCodes, readAssetKtx2, type AssetSet, type Decode } from '../src/assets/assets.js';
import { FormatError } from '../src/errors.js';
import { ensureAssetSet, loadWorld } from '../src/pipeline/inputs.js';
import { projectRoot } from '../src/project/paths.js';

/** The reference reader of the levels: DataView, buildMipChain from level 0, decode to float32 metres. */
function referenceLevels(bytes: Uint8Array, what: string): Float32Array[] {
  const c = readKtx(bytes);
  const d = JSON.parse(new TextDecoder().decode(c.keyValue['heightbench/decode'] as Uint8Array).replace(/\0$/, '')) as Decode;
  const codes = c.levels.map(({ levelData: b }) => {
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return Uint16Array.from({ length: b.byteLength / 2 }, (_, k) => dv.getUint16(2 * k, true));
  });
  const chain = buildMipChain(codes[0], c.pixelWidth, d);
  for (let l = 1; l < codes.length; l++) {
    for (let k = 0; k < codes[l].length; k++) {
      if (codes[l][k] !== chain.levels[l][k])
        throw new FormatError(
          `${what}: level ${l} texel ${k} is code ${codes[l][k]}, the mip filter of level 0 gives ${chain.levels[l][k]}: the chain was altered`,
        );
    }
  }
  return codes.map((q) => Float32Array.from(q, (v) => v * d.metresPerCode + d.offsetMetres));
}

/** The first index whose float32 bits differ (−1 when none; the lengths are compared apart). */
function firstBitDifference(a: Float32Array, b: Float32Array): number {
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return k;
  return -1;
}

/** `f` with the WebAssembly kernels off (the JavaScript loops serve). */
function withoutWasm<T>(f: () => T): T {
  const saved = process.env.HEIGHTBENCH_NO_WASM;
  process.env.HEIGHTBENCH_NO_WASM = '1';
  try {
    return f();
  } finally {
    if (saved === undefined) delete process.env.HEIGHTBENCH_NO_WASM;
    else process.env.HEIGHTBENCH_NO_WASM = saved;
  }
}

let set: AssetSet;
beforeAll(() => {
  set = ensureAssetSet(loadWorld('tundra'), join(projectRoot(), 'assets'), {}, { keepBytes: true });
}, 120_000);

describe('asset loading: fast path = reference', () => {
  it('every level of every asset decodes to the same float32 bits as the reference', () => {
    expect(set.assets.size).toBeGreaterThan(0);
    let levels = 0;
    for (const [key, a] of set.assets) {
      const bytes = set.ktx2?.get(key);
      if (!bytes) throw new Error(`no bytes kept for ${key}`);
      const want = referenceLevels(bytes, key);
      expect(a.levels.length).toBe(want.length);
      for (let l = 0; l < want.length; l++) {
        expect(a.levels[l].length).toBe(a.sizes[l] * a.sizes[l]);
        expect(a.levels[l].length).toBe(want[l].length);
        expect({ key, l, k: firstBitDifference(a.levels[l], want[l]) }).toEqual({ key, l, k: -1 });
        levels++;
      }
    }
    // Sides 80, 128, 184, 200 and 256: odd sides (25, 23, 5, 3) take the bilinear branch of the filter.
    expect(new Set([...set.assets.values()].flatMap((a) => a.sizes.filter((n) => n % 2 === 1 && n > 1))).size).toBeGreaterThan(2);
    expect(levels).toBeGreaterThan(set.assets.size * 7);
  });

  it('the loops without WebAssembly read every level of every asset to the same bits', () => {
    let levels = 0;
    for (const [key, a] of set.assets) {
      const loops = withoutWasm(() => readAssetKtx2(set.ktx2?.get(key) ?? new Uint8Array(), key));
      for (let l = 0; l < a.levels.length; l++) {
        expect({ key, l, k: firstBitDifference(loops.levels[l], a.levels[l]) }).toEqual({ key, l, k: -1 });
        levels++;
      }
    }
    expect(levels).toBeGreaterThan(set.assets.size * 7);
  });

  it('reads level codes the same on both host byte orders, aligned or not', () => {
    const [key, a] = [...set.assets][0];
    const c = readKtx(set.ktx2?.get(key) ?? new Uint8Array());
    for (let l = 0; l < c.levels.length; l++) {
      const b = c.levels[l].levelData;
      const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
      const want = Uint16Array.from({ length: b.byteLength / 2 }, (_, k) => dv.getUint16(2 * k, true));
      const odd = new Uint8Array(b.byteLength + 1).subarray(1);
      odd.set(b);
      expect(levelCodes(b, true)).toEqual(want);
      expect(levelCodes(b, false)).toEqual(want);
      expect(levelCodes(odd, true)).toEqual(want);
      expect(levelCodes(odd, false)).toEqual(want);
    }
    expect(a.sizes.length).toBe(c.levels.length);
  });

  it('an altered texel in any level (first, middle, last texel; odd and even sides) is refused with the reference message', () => {
    const picks = [...set.assets].filter(([, a], i) => i === 0 || a.sizes.some((n) => n % 2 === 1 && n > 1)).slice(0, 3);
    let refused = 0;
    for (const [key, a] of picks) {
      const bytes = set.ktx2?.get(key) ?? new Uint8Array();
      for (let l = 1; l < a.sizes.length; l++) {
        const m = a.sizes[l] * a.sizes[l];
        for (const k of new Set([0, m >> 1, m - 1])) {
          const c = readKtx(bytes.slice()); // levelData views the bytes it was read from
          const b = c.levels[l].levelData;
          b[2 * k] ^= 0x01; // the code's lowest bit: the smallest edit
          const altered = writeKtx(c, { keepWriter: true });
          let want = '';
          try {
            referenceLevels(altered, key);
          } catch (e) {
            want = (e as Error).message;
          }
          expect(want).toMatch(new RegExp(`level ${l} texel ${k} is code .*the chain was altered`));
          expect(() => readAssetKtx2(altered, key)).toThrow(new FormatError(want));
          expect(() => withoutWasm(() => readAssetKtx2(altered, key))).toThrow(new FormatError(want));
          refused++;
        }
      }
    }
    expect(refused).toBeGreaterThan(20);
  });
});
