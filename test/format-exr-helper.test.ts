/**
 * The OpenEXR decoder's helper thread (src/io/formats/exr-helper.ts): files whose zlib blocks are shared with it decode
 * to the words of a decode on one thread, and a corrupted file gives the same words or the same FormatError. The
 * files are written by the OpenEXR bindings, large enough (a 2048² FLOAT field, ZIP and ZIPS, scanline and tiled)
 * for the helper to start while blocks remain; each decode is retried until the helper has handed over blocks.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeExrBlocks, decodeExrRows } from '../src/io/formats/exr.js';
import { helperBlocks, prestartInflateHelperFor } from '../src/io/formats/exr-helper.js';
import { fileSource } from '../src/io/byte-source.js';
import { tempDir, testRandom } from './helpers.js';

const python = join(process.cwd(), '.venv', 'bin', 'python');
const dir = tempDir('hb-exr-helper-');
const limits = { pixelLimit: 1 << 28 };
const NAMES = ['scanline-zip', 'scanline-zips', 'tiled-zip'];
const threads = process.env.HEIGHTBENCH_NO_THREADS !== '1' && process.env.HEIGHTBENCH_NO_WASM !== '1';

beforeAll(() => {
  const script = `
import numpy as np, OpenEXR
n = 2048
rng = np.random.default_rng(7)
y, x = np.mgrid[0:n, 0:n].astype(np.float32)
a = (np.sin(x / 300) * np.cos(y / 200) * 400 + np.sin(x / 17 + y / 23) * 5 + rng.standard_normal((n, n)) * 0.01).astype(np.float32)
for name, c, tiled in (("scanline-zip", OpenEXR.ZIP_COMPRESSION, False), ("scanline-zips", OpenEXR.ZIPS_COMPRESSION, False), ("tiled-zip", OpenEXR.ZIP_COMPRESSION, True)):
    header = {"compression": c, "type": OpenEXR.tiledimage if tiled else OpenEXR.scanlineimage}
    if tiled:
        t = OpenEXR.TileDescription()
        t.xSize, t.ySize, t.mode = 64, 64, OpenEXR.ONE_LEVEL
        header["tiles"] = t
    OpenEXR.File(header, {"G": (a * 2).astype(np.float16), "Y": a}).write("${dir}/" + name + ".exr")
`;
  const r = spawnSync(python, ['-c', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`writing the helper's files failed (${r.status}): ${r.stderr}`);
}, 120_000);

type Outcome = { words: Buffer } | { refused: string; kind: string };

/** The decode of `path` (a file source) with the helper (from 0 stored bytes) or without it. */
function decode(path: string, helper: boolean, channel?: string): Outcome {
  const src = fileSource(path);
  try {
    const v = decodeExrBlocks(src, path, { channel }, limits, true, helper ? 0 : Infinity).values;
    return { words: Buffer.from(v.buffer, v.byteOffset, v.byteLength) };
  } catch (e) {
    return { refused: (e as Error).message, kind: (e as Error).constructor.name };
  } finally {
    src.close();
  }
}

function same(a: Outcome, b: Outcome): boolean {
  if ('words' in a && 'words' in b) return a.words.equals(b.words);
  return JSON.stringify(a) === JSON.stringify(b);
}

describe('OpenEXR helper thread', () => {
  it('decodes every file to the words of a one-thread decode, the helper handing over blocks', () => {
    for (const name of NAMES) {
      const path = join(dir, `${name}.exr`);
      for (const channel of ['Y', 'G']) {
        const want = decode(path, false, channel);
        expect('words' in want, name).toBe(true);
        let handed = 0;
        for (let t = 0; t < 6 && handed === 0; t++) {
          const before = helperBlocks();
          expect(same(decode(path, true, channel), want), `${name} ${channel} try ${t}`).toBe(true);
          handed = helperBlocks() - before;
        }
        if (threads) expect(handed, `${name} ${channel}: blocks the helper handed over`).toBeGreaterThan(0);
      }
    }
  });

  it("a prestarted helper (info's guess from the path) serves the next decode; a wrong guess is harmless", () => {
    // A FIFO is neither waited on nor read (the reader refuses it later).
    const fifo = join(dir, 'fifo.exr');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    for (const p of [join(dir, 'missing.exr'), join(dir, 'none'), fifo, dir, join(dir, 'scanline-zip.exr')])
      expect(() => prestartInflateHelperFor(p)).not.toThrow();
    const path = join(dir, 'tiled-zip.exr');
    expect(same(decode(path, true), decode(path, false))).toBe(true);
  });

  it('hands the same rows to a streamed decode', () => {
    const path = join(dir, 'scanline-zips.exr');
    const want = decode(path, false);
    const parts: Buffer[] = [];
    const src = fileSource(path);
    try {
      decodeExrRows(src, path, {}, limits, (w) => parts.push(Buffer.from(w.slice().buffer)), true, 0);
    } finally {
      src.close();
    }
    expect(same({ words: Buffer.concat(parts) }, want)).toBe(true);
  });

  it('gives the same words or the same FormatError on corrupted and truncated files', () => {
    const rnd = testRandom(0x4e1f);
    let refused = 0;
    for (let k = 0; k < 18; k++) {
      const name = NAMES[k % NAMES.length];
      const clean = new Uint8Array(readFileSync(join(dir, `${name}.exr`)));
      let b: Uint8Array;
      if (k % 6 === 5) {
        b = clean.subarray(0, Math.floor(clean.length * (0.5 + 0.45 * rnd())));
      } else {
        b = clean.slice();
        // Damage in the second half of the file, where the helper's blocks lie.
        for (let j = 0; j < 1 + (k % 3); j++) b[Math.floor(b.length * (0.5 + 0.5 * rnd()))] ^= 1 << Math.floor(rnd() * 8);
      }
      const path = join(dir, `damaged-${k}.exr`);
      writeFileSync(path, b);
      const want = decode(path, false);
      const got = decode(path, true);
      expect(got, `${name} #${k}`).toEqual(want);
      if (!('words' in want)) refused++;
    }
    expect(refused).toBeGreaterThan(3);
  });
});
