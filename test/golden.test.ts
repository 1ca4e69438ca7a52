// Golden hashes: teaching-512's stage data, pinned so that `npm test` alone catches a change of convention (until
// now only the DVC determinism check in `make reproduce` did).
//
// These are SHA-256 digests of each stage file's decoded data — float32 heights or uint16 codes, little-endian, as
// readHeightfieldFile decodes them (the sidecars carry the producer version; a PNG's zlib container can change with
// zlib or Node while no height changes, so final.png is pinned by its decoded codes, which are final.r16's) — from a
// fresh `heightbench run teaching-512 --out DIR` (f32; the f64 final from `--precision f64 --stages final`), taken
// after the corrections of the four-level smoothing chain, the outer initial value 0 m, the footprint flag rule and
// the rectangles. For the raw containers (.r32, .r16) the decoded data is the payload, so each digest is also the
// file's. They are consistency pins, not an independent reference. Update them only together with a re-bless of the
// references (`node bin/heightbench.mjs bless teaching-512 --yes --reason "…"`, and the other runs of params.yaml),
// in the same commit, after reading the bless report: a digest that moves without a bless is a regression.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHeightfieldFile } from '../src/index.js';
import { cli, tempDir } from './helpers.js';

const FINAL_CODES = '599fe4fc2e7ca071637357560102d1c8fa8efccadaeceb082232cbb2ad8cb288';
const F32: Record<string, string> = {
  'raster-layer0.r32': '8a669270eec904c067a5d99a780a9781b3a538239529264af7a18dce2f15f3bd',
  'raster.r32': 'a34f98eb71bed68188faa8a75a71d26dfd68c8040171d3949b25be2e840be45e',
  'base.r32': '40b0c2b4b5fa93d0536938d92a9418b2bfd7865a9b8bc87b5575aa5a3167ce7d',
  'after-support.r32': 'ca2aa7693f69a51c03225a9a1e55d5ca9e1d8a330c1e800d7ae786ea93d84781',
  'after-stamps.r32': '4d7fcd82939e0c59a53ccbbfcac7a54e11735efea2c9253c69448cb120517841',
  'after-locations.r32': 'd37f947fc5e22f43443edd8364ea9eacf0ea39df6337108178a06b12599ea0c0',
  'pre-encode.r32': '5b2e891f1ecb484446ef2bb5679fa541529234057f539942095de4cd0822da3b',
  'final.r16': FINAL_CODES,
  // The PNG16 holds the same codes as the R16.
  'final.png': FINAL_CODES,
};
const F64_FINAL = '81f367e17da0e18f475734148721d4a910a1fac9a59545a5ea23b7cbce910b30';

/** SHA-256 of a stage file's decoded data (little-endian float32 heights or uint16 codes). */
function dataDigest(path: string): string {
  const f = readHeightfieldFile(path).field;
  const a = f.kind === 'codes' ? f.code_px : f.height_px;
  const le = Buffer.alloc(a.byteLength);
  a.forEach((v: number, k: number) => (f.kind === 'codes' ? le.writeUInt16LE(v, 2 * k) : le.writeFloatLE(v, 4 * k)));
  return createHash('sha256').update(le).digest('hex');
}

describe('golden: teaching-512 stage files', () => {
  it("f32, every stage: the pinned SHA-256 of each file's decoded data (final.png by its codes)", async () => {
    const d = tempDir('hb-golden-');
    const r = await cli('run', 'teaching-512', '--out', d);
    expect(r.code, r.err).toBe(0);
    const got = Object.fromEntries(Object.keys(F32).map((f) => [f, dataDigest(join(d, f))]));
    expect(got).toEqual(F32);
  });
  it('f64 (the reference precision): the final codes', async () => {
    const d = tempDir('hb-golden64-');
    const r = await cli('run', 'teaching-512', '--precision', 'f64', '--stages', 'final', '--out', d);
    expect(r.code, r.err).toBe(0);
    expect(dataDigest(join(d, 'final.r16'))).toBe(F64_FINAL);
  });
});
