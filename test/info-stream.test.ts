/**
 * `info`'s streamed summary (summarizeHeightfieldFile): a raw run of samples read in windows into the summary kernel
 * must say exactly what reading the file whole and summarizing it says — the same summary, conventions and notes, and
 * the same refusal, word for word — on every file numpy (test/peers/npy_peer.py) and the DDS peer
 * (test/peers/write_dds.py) write, the ones heightbench refuses included, under each convention flag that changes the
 * reading. It also holds no field: `info` of a float .npy over the reader's memory budget still answers (the whole
 * read is refused there), and a file whose extreme is a zero, which the stream leaves to the whole read, still gets
 * the first zero's sign. TIFF files (test/peers/tiff_write.py: tifffile and GDAL, every compression and predictor, both
 * byte orders, and the files heightbench refuses) are streamed block by block through the decoder and must agree too.
 * heightbench's own .r16/.r32 with their sidecars likewise, with the payload's digest checked from the windows: a
 * changed byte, a contradicting setting or sidecar, a big-endian payload and the recovery of an interrupted pair
 * write each give what the whole read gives.
 * The same holds for OpenEXR files (test/peers/exr_write.py), whose decoder hands its samples
 * over a band of rows at a time (decodeExrRows): every file, each channel, truncated and corrupted copies, and the
 * rows themselves equal to the whole decode's samples on the block kernel and in JavaScript.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readAnyHeightfieldFile, summarizeHeightfield, summarizeHeightfieldFile, writeOwnHeightfieldFile } from '../src/io/heightfield-file.js';
import { codeHeightfield, floatHeightfield } from '../src/core/heightfield.js';
import { domainGrid } from '../src/core/grid.js';
import { pendingPathFor } from '../src/io/atomic.js';
import { renameSync } from 'node:fs';
import { encodeNpy } from '../src/io/formats/npy.js';
import { encodeTiff } from '../src/io/formats/tiff.js';
import { decodeExrBlocks, decodeExrRows, readExrHeader } from '../src/io/formats/exr.js';
import { fileSource } from '../src/io/byte-source.js';
import type { ReadSettings } from '../src/io/heightfield-types.js';
import { tempDir, testRandom } from './helpers.js';

const root = join(import.meta.dirname, '..');
const python = join(root, '.venv', 'bin', 'python');
const npyDir = tempDir('hb-info-npy-');
const ddsDir = tempDir('hb-info-dds-');
const tiffDir = tempDir('hb-info-tiff-');
const own = tempDir('hb-info-own-');
const exrDir = tempDir('hb-info-exr-');

function peer(script: string, ...args: string[]): void {
  const r = spawnSync(python, [join(root, 'test', 'peers', script), ...args], { encoding: 'utf8' });
  if (r.error) throw new Error(`peer ${script} could not start (${python}): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`peer ${script} failed (${r.status}): ${r.stderr}`);
}

beforeAll(() => {
  peer('npy_peer.py', 'write', npyDir);
  peer('write_dds.py', ddsDir);
  peer('tiff_write.py', tiffDir);
  peer('exr_write.py', exrDir);
}, 120_000);

type Outcome = { ok: unknown } | { refused: string; kind: string };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await run() };
  } catch (e) {
    return { refused: (e as Error).message, kind: (e as Error).constructor.name };
  }
}

async function both(path: string, s: ReadSettings): Promise<[Outcome, Outcome]> {
  const streamed = await outcome(async () => summarizeHeightfieldFile(path, s));
  const whole = await outcome(async () => {
    const loaded = await readAnyHeightfieldFile(path, s);
    return { summary: summarizeHeightfield(loaded), conventions: loaded.conventions };
  });
  return [streamed, whole];
}

const SETTINGS: ReadSettings[] = [
  {},
  { encoding: 'unorm16', range: { min: -100, max: 300 } },
  { rowDirection: 'row0-at-ymax', extent: { xmin: 0, ymin: 0, sizeX: 64, sizeY: 32 } },
  { requireConventions: true },
];

const files = (dir: string, ext: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .sort();

describe('the streamed summary says what the whole read says', () => {
  for (const [dir, ext] of [
    [npyDir, '.npy'],
    [ddsDir, '.dds'],
    [tiffDir, '.tif'],
  ] as const) {
    it(`every ${ext} the peer wrote, under each setting`, async () => {
      const names = files(dir, ext);
      expect(names.length).toBeGreaterThan(10);
      let answered = 0;
      let refused = 0;
      for (const f of names) {
        for (const s of SETTINGS) {
          const [streamed, whole] = await both(join(dir, f), s);
          expect(streamed, `${f} ${JSON.stringify(s)}`).toEqual(whole);
          if ('ok' in whole) answered++;
          else refused++;
        }
      }
      // Both kinds of outcome were met: the comparison covered answers and refusals.
      expect(answered).toBeGreaterThan(10);
      expect(refused).toBeGreaterThan(3);
    });
  }
});

describe('the stream holds no field', () => {
  it('answers over the reader budget, where the whole read is refused', async () => {
    const n = 2048;
    const v = new Float32Array(n * n);
    for (let i = 0; i < v.length; i++) v[i] = ((i * 7919) % 100003) / 7 - 5000;
    v[5] = NaN;
    v[n * n - 1] = -Infinity;
    const path = join(own, 'big.npy');
    writeFileSync(path, encodeNpy(v, n, n));
    const before = process.env.HEIGHTBENCH_MAX_MEMORY_MB;
    const wholeOk = await summarizeHeightfield(await readAnyHeightfieldFile(path));
    process.env.HEIGHTBENCH_MAX_MEMORY_MB = '4';
    try {
      await expect(readAnyHeightfieldFile(path)).rejects.toThrow(/over the memory budget of 4 MiB/);
      const { summary } = await summarizeHeightfieldFile(path);
      expect(summary).toEqual(wholeOk);
      expect([summary.nan, summary.negInf, summary.minMetres, summary.maxMetres]).toEqual([1, 1, -5000, Math.fround(100002 / 7 - 5000)]);
    } finally {
      if (before === undefined) delete process.env.HEIGHTBENCH_MAX_MEMORY_MB;
      else process.env.HEIGHTBENCH_MAX_MEMORY_MB = before;
    }
  });

  it('a TIFF over the reader budget answers block by block, and alongside other summaries', async () => {
    const n = 1024;
    const v = new Float32Array(n * n);
    for (let i = 0; i < v.length; i++) v[i] = ((i * 7919) % 100003) / 7 - 5000;
    v[5] = NaN;
    v[n * n - 1] = -Infinity;
    const tiled = join(own, 'big-tiled.tif');
    const striped = join(own, 'big-striped.tif');
    writeFileSync(tiled, encodeTiff({ width: n, height: n, values: v, georeference: null, tile: 256 }));
    writeFileSync(striped, encodeTiff({ width: n, height: n, values: v, georeference: null }));
    const npy = join(own, 'beside.npy');
    writeFileSync(npy, encodeNpy(v.subarray(0, 64 * 32), 64, 32));
    const whole = await Promise.all([tiled, striped, npy].map(async (p) => summarizeHeightfield(await readAnyHeightfieldFile(p))));
    // Concurrently: the TIFF streams wait for their blocks while the other summaries run.
    const streamed = await Promise.all([tiled, striped, npy, tiled].map((p) => summarizeHeightfieldFile(p)));
    expect(streamed.map((r) => r.summary)).toEqual([...whole, whole[0]]);
    expect([whole[0].nan, whole[0].negInf, whole[0].minMetres]).toEqual([1, 1, -5000]);
    const before = process.env.HEIGHTBENCH_MAX_MEMORY_MB;
    process.env.HEIGHTBENCH_MAX_MEMORY_MB = '8';
    try {
      await expect(readAnyHeightfieldFile(tiled)).rejects.toThrow(/over the memory budget of 8 MiB/);
      expect((await summarizeHeightfieldFile(tiled)).summary).toEqual(whole[0]);
      expect((await summarizeHeightfieldFile(striped)).summary).toEqual(whole[1]);
    } finally {
      if (before === undefined) delete process.env.HEIGHTBENCH_MAX_MEMORY_MB;
      else process.env.HEIGHTBENCH_MAX_MEMORY_MB = before;
    }
  });

  it('a TIFF whose extreme is a zero keeps the sign of the first zero in sample order, across tiles', async () => {
    // 32 × 16 in 16² tiles: -0 in the second tile's first row comes after +0 in the first tile in block order, but
    // first in sample order is row 0, column 3 (+0 here) — the whole read decides.
    for (const [first, later] of [
      [0, -0],
      [-0, 0],
    ]) {
      const v = Float32Array.from({ length: 32 * 16 }, (_, i) => 1 + (i % 7));
      v[3] = first;
      v[16 + 2] = later;
      v[5 * 32 + 20] = later;
      const p = join(own, `zero-${Object.is(first, -0) ? 'neg' : 'pos'}.tif`);
      writeFileSync(p, encodeTiff({ width: 32, height: 16, values: v, georeference: null, tile: 16 }));
      const { summary } = await summarizeHeightfieldFile(p);
      expect(Object.is(summary.minMetres, first), `${p}: min ${summary.minMetres}`).toBe(true);
      expect(summary).toEqual(summarizeHeightfield(await readAnyHeightfieldFile(p)));
    }
  });

  it('a zero extreme keeps the sign of the first zero in sample order (C and Fortran order)', async () => {
    // C order, 2 × 4: +0 first, -0 next, in neighbouring lanes of the kernel (whose lane fold would prefer -0).
    const c = join(own, 'zero-c.npy');
    writeFileSync(c, encodeNpy(new Float32Array([0, -0, 5, 6, 7, 8, 9, 10]), 4, 2));
    // Fortran order, 8 × 2: the file holds +0 at index 4 and -0 at index 8 (one lane of the kernel, +0 met first),
    // but in sample order -0 (row 0, column 1) comes before +0 (row 4, column 0).
    const f = join(own, 'zero-f.npy');
    const stored = Float32Array.from({ length: 16 }, (_, k) => k + 1);
    stored[4] = 0;
    stored[8] = -0;
    const bytes = encodeNpy(stored, 2, 8); // stored order; the header is rewritten to Fortran order below
    const text = new TextDecoder('latin1').decode(bytes.subarray(10, 80));
    const header = text.replace("'fortran_order': False", "'fortran_order': True ");
    expect(header).not.toBe(text);
    bytes.set(new TextEncoder().encode(header), 10);
    writeFileSync(f, bytes);
    for (const [path, sign] of [
      [c, 0],
      [f, -0],
    ] as const) {
      const { summary } = await summarizeHeightfieldFile(path);
      expect(Object.is(summary.minMetres, sign), `${path}: min ${summary.minMetres}`).toBe(true);
      expect(summary).toEqual(summarizeHeightfield(await readAnyHeightfieldFile(path)));
    }
  });
});

describe("heightbench's own containers with their sidecars", () => {
  it('every case gives what the whole read gives', async () => {
    const n = 96;
    const codes = Uint16Array.from({ length: n * n }, (_, i) => ((i * 2654435761) % 65536) >>> 0);
    const heights = Float32Array.from({ length: n * n }, (_, i) => Math.sin(i) * 300);
    heights[7] = NaN;
    heights[8] = Infinity;
    const paths: string[] = [];
    const put = (name: string, write: (p: string) => void): string => {
      const p = join(own, name);
      write(p);
      paths.push(p);
      return p;
    };
    put('plain.r16', (p) => writeOwnHeightfieldFile(p, codeHeightfield(domainGrid(n), codes, { min: -500, max: 500 })));
    put('be.r16', (p) => writeOwnHeightfieldFile(p, codeHeightfield(domainGrid(n), codes, { min: -20, max: 80 }), { endian: 'be' }));
    put('plain.r32', (p) => writeOwnHeightfieldFile(p, floatHeightfield(domainGrid(n), heights)));
    // +0 met first, then -0: the extreme is the first zero's, +0.
    const zero = heights.slice();
    zero.fill(1);
    zero[3] = 0;
    zero[9] = -0;
    put('zero.r32', (p) => writeOwnHeightfieldFile(p, floatHeightfield(domainGrid(n), zero)));
    // One byte changed after the sidecar was written: refused by its digest.
    put('changed.r16', (p) => {
      writeOwnHeightfieldFile(p, codeHeightfield(domainGrid(n), codes, { min: -500, max: 500 }));
      const b = readFileSync(p);
      b[1234] ^= 1;
      writeFileSync(p, b);
    });
    // One byte short: refused by its size.
    put('short.r32', (p) => {
      writeOwnHeightfieldFile(p, floatHeightfield(domainGrid(n), heights));
      writeFileSync(p, readFileSync(p).subarray(1));
    });
    // An interrupted pair write: the new sidecar committed, its payload still under the pending name.
    put('pending.r16', (p) => {
      writeOwnHeightfieldFile(p, codeHeightfield(domainGrid(n), codes, { min: -500, max: 500 }));
      const old = readFileSync(p);
      const w = writeOwnHeightfieldFile(
        p,
        codeHeightfield(
          domainGrid(n),
          codes.map((q) => q ^ 5),
          { min: -500, max: 500 },
        ),
      );
      renameSync(p, pendingPathFor(p, w.sidecar.payload.sha256));
      writeFileSync(p, old);
    });
    // The sidecar's container is not the extension's.
    put('wrong.r32', (p) => {
      writeOwnHeightfieldFile(join(own, 'x.r16'), codeHeightfield(domainGrid(n), codes, { min: -500, max: 500 }));
      renameSync(join(own, 'x.r16'), p);
      renameSync(join(own, 'x.r16.json'), `${p}.json`);
    });
    const settings: ReadSettings[] = [{}, { endian: 'be' }, { size: { width: n, height: n } }, { encoding: 'metres' }, { range: { min: 0, max: 1 } }];
    let answered = 0;
    let refused = 0;
    for (const p of paths)
      for (const s of settings) {
        const [streamed, whole] = await both(p, s);
        expect(streamed, `${p} ${JSON.stringify(s)}`).toEqual(whole);
        if ('ok' in whole) answered++;
        else refused++;
      }
    expect(answered).toBeGreaterThan(8);
    expect(refused).toBeGreaterThan(8);
    const pending = await summarizeHeightfieldFile(join(own, 'pending.r16'));
    expect(pending.summary.notes.join(' ')).toMatch(/interrupted/);
    const zeroSummary = (await summarizeHeightfieldFile(join(own, 'zero.r32'))).summary;
    expect(Object.is(zeroSummary.minMetres, 0)).toBe(true);
  });
});

describe('OpenEXR: the streamed summary says what the whole read says', () => {
  const EXR_SETTINGS: ReadSettings[] = [...SETTINGS, { channel: 'R' }, { channel: 'G' }, { channel: 'B' }, { channel: 'nope' }];

  it('every .exr the peer wrote, under each setting and channel', async () => {
    const names = files(exrDir, '.exr');
    expect(names.length).toBeGreaterThan(30);
    let answered = 0;
    let refused = 0;
    for (const f of names) {
      for (const s of EXR_SETTINGS) {
        const [streamed, whole] = await both(join(exrDir, f), s);
        expect(streamed, `${f} ${JSON.stringify(s)}`).toEqual(whole);
        if ('ok' in whole) answered++;
        else refused++;
      }
    }
    expect(answered).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(30);
  });

  it('truncated and corrupted files: the same summary or the same refusal', async () => {
    const rnd = testRandom(0x5e7);
    const names = files(exrDir, '.exr').filter((f) => /^(scanline|tiled)-/.test(f));
    const tally = { answered: 0, refused: 0 };
    for (let k = 0; k < 80; k++) {
      const name = names[k % names.length];
      const clean = new Uint8Array(readFileSync(join(exrDir, name)));
      let b: Uint8Array;
      if (k % 4 === 0) {
        b = clean.subarray(0, Math.floor(clean.length * (0.2 + 0.75 * rnd())));
      } else {
        const start = readExrHeader(clean, name).offsetTableStart;
        b = clean.slice();
        for (let j = 0; j < 1 + (k % 3); j++) b[start + Math.floor(rnd() * (b.length - start))] ^= 1 << Math.floor(rnd() * 8);
      }
      const path = join(own, `damaged-${k}.exr`);
      writeFileSync(path, b);
      const [streamed, whole] = await both(path, {});
      expect(streamed, `${name} #${k}`).toEqual(whole);
      tally['ok' in whole ? 'answered' : 'refused']++;
    }
    expect(tally.refused).toBeGreaterThan(20);
    expect(tally.answered).toBeGreaterThan(5);
  });

  it("the rows handed over are the whole decode's samples, on the block kernel and in JavaScript", () => {
    // Besides the peer's files: one FLOAT channel stored raw in whole rows (NONE, and RLE that OpenEXR stores raw),
    // whose chunks the kernel path hands over where they lie, with the header padded so that the chunks lie at each
    // file offset mod 4.
    const script = `
import numpy as np, OpenEXR
rng = np.random.default_rng(3)
a = rng.standard_normal((37, 301)).astype(np.float32)
a.tofile("${exrDir}/single.f32")
for pad in ("", "x", "xy", "xyz"):
    for name, c in (("none", OpenEXR.NO_COMPRESSION), ("rle", OpenEXR.RLE_COMPRESSION)):
        OpenEXR.File({"compression": c, "type": OpenEXR.scanlineimage, "note": "pad" + pad}, {"Y": a}).write("${exrDir}/single-" + name + "-" + str(len(pad)) + ".exr")
`;
    const r = spawnSync(python, ['-c', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const names = files(exrDir, '.exr');
    expect(names.filter((f) => f.startsWith('single-')).length).toBe(8);
    // Those hold the samples numpy wrote, bit for bit.
    const written = new Uint8Array(readFileSync(join(exrDir, 'single.f32')));
    for (const f of names.filter((n) => n.startsWith('single-'))) {
      const v = decodeExrBlocks(new Uint8Array(readFileSync(join(exrDir, f))), f, {}, { pixelLimit: 1 << 28 }, true).values;
      expect(Buffer.from(v.buffer, v.byteOffset, v.byteLength).equals(written), f).toBe(true);
    }
    let compared = 0;
    for (const f of names) {
      for (const channel of [undefined, 'R', 'G']) {
        const path = join(exrDir, f);
        const sel = { channel };
        const limits = { pixelLimit: 1 << 28 };
        let whole: ReturnType<typeof decodeExrBlocks>;
        try {
          whole = decodeExrBlocks(new Uint8Array(readFileSync(path)), path, sel, limits, true);
        } catch {
          continue;
        }
        const want = new Uint32Array(whole.values.buffer, whole.values.byteOffset, whole.values.length);
        const { values: _values, ...header } = whole;
        for (const useKernel of [true, false]) {
          const got = new Uint32Array(want.length);
          let at = 0;
          const src = fileSource(path);
          let streamedHeader;
          try {
            streamedHeader = decodeExrRows(
              src,
              path,
              sel,
              limits,
              (words) => {
                expect(words.length % whole.width, `${f} ${channel} whole rows`).toBe(0);
                got.set(words, at);
                at += words.length;
              },
              useKernel,
            );
          } finally {
            src.close();
          }
          expect(streamedHeader, `${f} ${channel} ${useKernel}`).toEqual(header);
          expect(at, `${f} ${channel} ${useKernel}`).toBe(want.length);
          expect(Buffer.from(got.buffer).equals(Buffer.from(want.buffer, want.byteOffset, want.byteLength)), `${f} ${channel} ${useKernel}`).toBe(true);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(150);
  });
});
