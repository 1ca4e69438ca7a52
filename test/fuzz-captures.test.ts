/**
 * Fuzz suite, third pass: a seeded mutator over every outside container — DDS, OpenEXR (NONE, RLE, ZIP, PIZ; scanline
 * and tiled), TIFF/GeoTIFF (deflate and LZW, strips and tiles, chunky and planar, big-endian, sparse) and .npy — with
 * the mutation kinds of the hostile-capture classes: bit flips and u32/u64 lies in the headers, truncation, appended
 * tails, duplicated and retyped TIFF entries, zero byte counts, EXR attributes named twice. The seeds are files the
 * reference tools wrote (numpy, tifffile, rasterio/GDAL, OpenEXR, the documented-layout DDS writer of the example).
 *
 * Every case is read through the file-backed source (headers first, then only the ranges they name) under a 64 MiB
 * reader budget, and must be read or refused as an input error (one line) — never a bug (a plain TypeError or
 * RangeError, exit 1), never over the budget. Every TIFF and EXR case heightbench accepts is then read by the
 * reference reader of its format (rasterio/GDAL, OpenEXR) in one batch: where that reader reads it too, the samples
 * must be the same (no answer differing from the reference's with exit 0). A sample of the cases runs through the
 * commands (info, convert, compare, import) for their exit codes. Manifests, sidecar grids with extreme or null fields
 * and terrain store descriptions with null or extreme fields go through every command that reads them.
 * Bounds stated and asserted: ≥ 3,000 decoder cases and ≥ 300 command runs per run, fixed seed (work counted, never
 * timed).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSource } from '../src/io/byte-source.js';
import { decodeDds } from '../src/io/formats/dds.js';
import { decodeExr } from '../src/io/formats/exr.js';
import { decodeNpy } from '../src/io/formats/npy.js';
import { decodeTiff } from '../src/io/formats/tiff.js';
import type { DecodedRaster } from '../src/io/formats/decoded-image.js';
import { inputErrorMessage, isInputError } from '../src/errors.js';
import { cli, tempDir, testRandom } from './helpers.js';

const py = join(process.cwd(), '.venv', 'bin', 'python');
const d = tempDir('hb-fuzz-captures-');
const cases = join(d, 'cases');
const SEED = 0x42_2026;
const rnd = testRandom(SEED);
const int = (n: number): number => Math.floor(rnd() * n);
const pick = <T>(a: readonly T[]): T => a[int(a.length)];
const LIMITS = { pixelLimit: 1 << 24 };
const tally = { cases: 0, accepted: 0, refused: 0, commands: 0, differential: 0, differentialSame: 0 };
const savedBudget = process.env.HEIGHTBENCH_MAX_MEMORY_MB;

function python(code: string): string {
  const r = spawnSync(py, ['-c', code], { encoding: 'utf8', cwd: d, maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`python failed: ${r.stderr}`);
  return r.stdout;
}

type Kind = 'dds' | 'exr' | 'tiff' | 'npy';
const seeds: { kind: Kind; name: string; bytes: Buffer }[] = [];

beforeAll(() => {
  mkdirSync(cases);
  process.env.HEIGHTBENCH_MAX_MEMORY_MB = '64';
  python(`
import sys, numpy as np, tifffile, rasterio, OpenEXR
from rasterio.transform import from_origin
sys.path.insert(0, ${JSON.stringify(join(process.cwd(), 'examples', 'external-reconstruction'))})
from reconstruct import write_dds_r16_unorm
rng = np.random.default_rng(42)
h = (rng.standard_normal((24, 40)) * 100).astype('f4')
write_dds_r16_unorm('seed-r16.dds', (np.arange(24 * 40).reshape(24, 40) * 61 % 65536).astype('<u2'))
np.save('seed-c.npy', h)
np.save('seed-fortran-be.npy', np.asfortranarray(h.astype('>f8')))
np.save('seed-i2.npy', (h * 10).astype('<i2'))
tifffile.imwrite('seed-lzw-u16.tif', (h * 100 + 30000).astype('u2'), compression='lzw', predictor=2, rowsperstrip=5)
tifffile.imwrite('seed-planar.tif', np.stack([h, h * 2, h * 3]).astype('f4'), planarconfig='separate', compression='deflate', tile=(16, 16))
tifffile.imwrite('seed-be-i16.tif', (h * 10).astype('>i2'), byteorder='>', rowsperstrip=7)
tifffile.imwrite('seed-f64.tif', h.astype('f8'), compression='deflate', predictor=3, rowsperstrip=8)
with rasterio.open('seed-gdal.tif', 'w', driver='GTiff', width=40, height=24, count=1, dtype='float32', nodata=-9999.0, compress='deflate',
                   predictor=3, tiled=True, blockxsize=16, blockysize=16, transform=from_origin(500, 900, 10, 10)) as ds:
    ds.write(h, 1)
with rasterio.open('seed-sparse.tif', 'w', driver='GTiff', width=40, height=24, count=1, dtype='float32', nodata=-9999.0, tiled=True,
                   blockxsize=16, blockysize=16, sparse_ok=True, transform=from_origin(500, 900, 10, 10)) as ds:
    ds.write(h[:16, :16], 1, window=rasterio.windows.Window(0, 0, 16, 16))
for name, comp, tiled, half in [('seed-zip.exr', OpenEXR.ZIP_COMPRESSION, False, False), ('seed-piz.exr', OpenEXR.PIZ_COMPRESSION, True, True),
                               ('seed-rle.exr', OpenEXR.RLE_COMPRESSION, False, True), ('seed-none.exr', OpenEXR.NO_COMPRESSION, True, False)]:
    hdr = {"compression": comp, "type": OpenEXR.tiledimage if tiled else OpenEXR.scanlineimage}
    if tiled:
        t = OpenEXR.TileDescription(); t.xSize = 16; t.ySize = 16; t.mode = OpenEXR.ONE_LEVEL; hdr["tiles"] = t
    px = h.astype('f2') if half else h
    with OpenEXR.File(hdr, {"Y": px.copy(), "Z": (px * 2).copy()}) as f: f.write(name)
`);
  for (const name of readdirSync(d).filter((n) => n.startsWith('seed-'))) {
    const ext = name.split('.').pop() as string;
    const kind: Kind = ext === 'tif' ? 'tiff' : (ext as Kind);
    seeds.push({ kind, name, bytes: readFileSync(join(d, name)) });
  }
}, 120_000);

afterAll(() => {
  if (savedBudget === undefined) delete process.env.HEIGHTBENCH_MAX_MEMORY_MB;
  else process.env.HEIGHTBENCH_MAX_MEMORY_MB = savedBudget;
});

/** The byte offsets of a classic little- or big-endian TIFF's IFD 0 entries (for the structural mutations). */
function tiffEntries(b: Buffer): { le: boolean; at: number; n: number } | null {
  if (b.length < 8) return null;
  const le = b[0] === 0x49;
  if (b.readUInt16LE(2) !== 42 && b.readUInt16BE(2) !== 42) return null;
  const at = le ? b.readUInt32LE(4) : b.readUInt32BE(4);
  if (at + 2 > b.length) return null;
  const n = le ? b.readUInt16LE(at) : b.readUInt16BE(at);
  return { le, at: at + 2, n };
}

/** One mutation of a seed; the kind is named for the failure message. */
function mutate(seed: Buffer, kind: Kind): { bytes: Buffer; how: string } {
  const b = Buffer.from(seed);
  const head = Math.min(b.length, kind === 'exr' ? 400 : 200);
  const m = int(10);
  if (m === 0) {
    const n = 1 + int(4);
    for (let k = 0; k < n; k++) b[int(b.length)] ^= 1 << int(8);
    return { bytes: b, how: `${n} bit flips anywhere` };
  }
  if (m === 1 || m === 2) {
    const at = int(head - 4) & ~(m === 1 ? 0 : 3);
    const v = pick([0, 1, 0xffff, 0x7fffffff, 0xffffffff, b.length, b.length + 1, 1 << 28, 0x10000]);
    b.writeUInt32LE(v >>> 0, at);
    return { bytes: b, how: `u32 ${v} at header byte ${at}` };
  }
  if (m === 3) {
    const n = int(b.length);
    return { bytes: b.subarray(0, n), how: `truncated to ${n} bytes` };
  }
  if (m === 4) {
    const tail = Buffer.alloc(pick([1, 7, 4096, 1 << 16]), pick([0, 0xff, 0x41]));
    return { bytes: Buffer.concat([b, tail]), how: `${tail.length}-byte tail appended` };
  }
  if (m === 5) {
    b[int(head)] = pick([0, 0xff, 0x80, 0x7f]);
    return { bytes: b, how: 'one header byte set to an extreme' };
  }
  if (kind === 'tiff') {
    const t = tiffEntries(b);
    if (t !== null && t.n > 1) {
      const e = int(t.n);
      const at = t.at + 12 * e;
      const u16 = (o: number, v: number): void => void (t.le ? b.writeUInt16LE(v, o) : b.writeUInt16BE(v, o));
      const u32 = (o: number, v: number): void => void (t.le ? b.writeUInt32LE(v >>> 0, o) : b.writeUInt32BE(v >>> 0, o));
      const tag = t.le ? b.readUInt16LE(at) : b.readUInt16BE(at);
      if (m === 6) {
        // Duplicate: the next entry takes this entry's tag (a tag given twice, pointing at other values).
        if (e + 1 < t.n) u16(at + 12, tag);
        return { bytes: b, how: `entry ${e + 1} given tag ${tag} of entry ${e}` };
      }
      if (m === 7) {
        const type = pick([1, 2, 5, 7, 9, 11, 12, 16, 0, 19]);
        u16(at + 2, type);
        return { bytes: b, how: `entry ${e} (tag ${tag}) retyped ${type}` };
      }
      if (m === 8) {
        const count = pick([0, 2, 1 << 20, 0xffffffff]);
        u32(at + 4, count);
        return { bytes: b, how: `entry ${e} (tag ${tag}) count ${count}` };
      }
      // Zero byte counts: every StripByteCounts/TileByteCounts value set to 0 when inline, else its offset lied.
      u32(at + 8, pick([0, 0xffffffff, b.length - 2]));
      return { bytes: b, how: `entry ${e} (tag ${tag}) value or offset lied` };
    }
  }
  if (kind === 'exr' && m >= 6) {
    // An attribute name overwritten by another's (named twice), or a channel name changed in place.
    const names = ['channels', 'compression', 'dataWindow', 'displayWindow', 'lineOrder', 'tiles', 'type'];
    const a = pick(names);
    const z = pick(names);
    const i = b.indexOf(`${a}\0`);
    if (i > 0 && a.length === z.length) b.write(z, i, 'latin1');
    else {
      const c = b.indexOf('Z\0');
      if (c > 0) b.write(pick(['Y', 'A', '\u0001']), c, 'latin1');
    }
    return { bytes: b, how: `attribute ${a} renamed ${z} or channel renamed` };
  }
  const at = int(head);
  b[at] = int(256);
  return { bytes: b, how: `byte ${at} randomised` };
}

async function decode(kind: Kind, path: string): Promise<DecodedRaster> {
  const src = fileSource(path);
  try {
    if (kind === 'dds') return decodeDds(src, path, {}, LIMITS);
    if (kind === 'exr') return decodeExr(src, path, {}, LIMITS);
    if (kind === 'npy') return decodeNpy(src, path, {}, LIMITS);
    return await decodeTiff(src, path, {}, LIMITS);
  } finally {
    src.close();
  }
}

const accepted: { path: string; kind: Kind; values: string; width: number; height: number }[] = [];

describe('fuzz, third pass: every outside container is read or refused, and what is read agrees with the reference reader', () => {
  it('decoders: ≥ 3000 mutated captures, each read within the 64 MiB budget or refused as an input error', async () => {
    const perSeed = Math.ceil(3000 / seeds.length);
    expect(seeds.length).toBeGreaterThanOrEqual(12);
    for (const s of seeds) {
      for (let k = 0; k < perSeed; k++) {
        const { bytes, how } = mutate(s.bytes, s.kind);
        const path = join(cases, `${s.name}-${k}.${s.kind === 'tiff' ? 'tif' : s.kind}`);
        writeFileSync(path, bytes);
        tally.cases++;
        let r: DecodedRaster;
        try {
          r = await decode(s.kind, path);
        } catch (e) {
          if (!isInputError(e)) throw new Error(`${s.name} ${how}: a bug, not a refusal: ${(e as Error).stack ?? String(e)}`);
          expect(inputErrorMessage(e), `${s.name} ${how}`).not.toMatch(/\n/);
          tally.refused++;
          rmSync(path);
          continue;
        }
        tally.accepted++;
        expect(r.values.length, `${s.name} ${how}`).toBe(r.width * r.height);
        if ((s.kind === 'tiff' || s.kind === 'exr') && accepted.length < 1500) {
          const f = new Float64Array(r.values.length);
          for (let i = 0; i < f.length; i++) f[i] = r.values[i];
          writeFileSync(`${path}.f64`, new Uint8Array(f.buffer));
          accepted.push({ path, kind: s.kind, values: `${path}.f64`, width: r.width, height: r.height });
        } else rmSync(path);
      }
    }
    expect(tally.cases).toBeGreaterThanOrEqual(3000);
    expect(process.resourceUsage().maxRSS / 1024).toBeLessThan(1024);
  }, 600_000);

  it('differential: every accepted TIFF and EXR case that GDAL or OpenEXR also reads holds the same samples there', () => {
    writeFileSync(join(d, 'accepted.json'), JSON.stringify(accepted));
    const out = python(`
import json, numpy as np, warnings, rasterio, OpenEXR
warnings.simplefilter('ignore')
from rasterio.errors import NotGeoreferencedWarning
res = []
for c in json.load(open('accepted.json')):
    mine = np.fromfile(c['values'], '<f8').reshape(c['height'], c['width'])
    try:
        if c['kind'] == 'tiff':
            with rasterio.open(c['path']) as ds:
                if ds.count < 1: raise ValueError('no band')
                theirs = ds.read(1).astype('f8')
        else:
            with OpenEXR.File(c['path']) as x:
                ch = x.channels()
                theirs = np.asarray(ch['Y'].pixels if 'Y' in ch else ch['R'].pixels).astype('f8')
    except Exception as e:
        res.append({"path": c['path'], "read": False}); continue
    same = theirs.shape == mine.shape and bool(np.array_equal(theirs, mine, equal_nan=True))
    res.append({"path": c['path'], "read": True, "same": same})
print(json.dumps(res))
`);
    const res = JSON.parse(out) as { path: string; read: boolean; same?: boolean }[];
    const differ = res.filter((r) => r.read && !r.same).map((r) => r.path);
    tally.differential = res.filter((r) => r.read).length;
    tally.differentialSame = tally.differential - differ.length;
    expect(differ, 'read by both, with different samples').toEqual([]);
    expect(tally.differential).toBeGreaterThan(100);
  }, 600_000);

  it('commands: a sample of the cases through info, convert, compare and import exits 0 or 2, never 1', async () => {
    const ref = join(d, 'ref.npy');
    python(`import numpy as np; np.save('ref.npy', np.zeros((24, 40), 'f4'))`);
    const sample = accepted.filter((_, i) => i % 8 === 0).slice(0, 60);
    const flags = ['--extent', '0,0,400,240', '--row-direction', 'row0-at-ymax', '--range', '-500,500'];
    for (const c of sample) {
      for (const argv of [
        ['info', c.path, '--assume-defaults'],
        ['convert', c.path, join(d, 'out.r32'), ...flags],
        ['compare', c.path, ref, ...flags],
        ['import', c.path, '--stage', 'pre-encode', '--out', join(d, 'run'), '--replace', ...flags],
      ]) {
        const r = await cli(...argv);
        tally.commands++;
        expect(r.code === 0 || r.code === 2 || r.code === 3, `${argv.join(' ')} → ${r.code}: ${r.err}`).toBe(true);
        if (r.code === 2) expect(r.err).toMatch(/^heightbench: (?!internal error)[^\n]+\n$/);
      }
    }
  }, 600_000);

  it('manifests, sidecar grids and store descriptions with extreme or null fields: every command that reads them exits 0 or 2', async () => {
    const run = join(d, 'src-run');
    expect((await cli('run', 'teaching-512', '--size', '32', '--out', run)).code).toBe(0);
    const EXTREME: unknown[] = [null, -1e308, 1.7e308, 1e308, -0, 0, 5e-324, 2 ** 53 + 2, 'NaN', 'Infinity', [], {}, true, '1e3'];
    const sidecar = JSON.parse(readFileSync(join(run, 'final.r16.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    const fields: [string, string][] = [
      ['grid', 'xmin'],
      ['grid', 'ymin'],
      ['grid', 'sizeX'],
      ['grid', 'sizeY'],
      ['grid', 'columns'],
      ['grid', 'rows'],
      ['grid', 'rowDirection'],
      ['encoding', 'range'],
      ['payload', 'bytes'],
    ];
    for (const [obj, key] of fields) {
      for (const v of EXTREME.slice(0, 8)) {
        const copy = join(d, 'fz-run');
        rmSync(copy, { recursive: true, force: true });
        spawnSync('cp', ['-r', run, copy]);
        const doc = structuredClone(sidecar);
        doc[obj] = { ...doc[obj], [key]: v };
        writeFileSync(join(copy, 'final.r16.json'), JSON.stringify(doc));
        for (const argv of [
          ['info', join(copy, 'final.r16')],
          ['compare', join(copy, 'final.r16'), join(run, 'final.r16')],
          ['check', copy, run],
          ['convert', join(copy, 'final.r16'), join(d, 'fz-out.r32')],
        ]) {
          const r = await cli(...argv);
          tally.commands++;
          expect(r.code === 0 || r.code === 2 || r.code === 3, `${obj}.${key} = ${JSON.stringify(v)}: ${argv[0]} → ${r.code}: ${r.err}`).toBe(true);
          if (r.code === 2) expect(r.err, `${obj}.${key} = ${JSON.stringify(v)}: ${argv[0]}`).toMatch(/^heightbench: (?!internal error)[^\n]+\n$/);
        }
      }
    }
    // Manifests: each key given an extreme value, and YAML broken.
    const npy = join(d, 'seed-c.npy');
    const good = { out: 'mrun', captures: [{ file: npy, stage: 'pre-encode', extent: '0,0,400,240', rowDirection: 'row0-at-ymax' }] };
    for (let k = 0; k < 60; k++) {
      const doc = structuredClone(good) as Record<string, unknown> & { captures: Record<string, unknown>[] };
      const key = pick(['out', 'captures', 'c.file', 'c.stage', 'c.extent', 'c.rowDirection', 'c.range', 'c.channel', 'c.level', 'pipeline']);
      const v = pick([...EXTREME, '../../x', '/etc', 'x'.repeat(300), '\u0000']);
      if (key.startsWith('c.')) doc.captures[0][key.slice(2)] = v;
      else doc[key] = v;
      const text = k % 10 === 9 ? `${JSON.stringify(doc).slice(0, int(200))}` : JSON.stringify(doc);
      writeFileSync(join(d, 'm.yaml'), text);
      const r = await cli('import', '--manifest', join(d, 'm.yaml'));
      tally.commands++;
      expect(r.code === 0 || r.code === 2, `manifest ${key} = ${JSON.stringify(v)} → ${r.code}: ${r.err}`).toBe(true);
      // The refusal names the manifest, the file it names, or the folder it would write (one line).
      if (r.code === 2) expect(r.err).toMatch(/^heightbench: (?!internal error)[^\n]*\/[^\n]*\n$/);
    }
    // Terrain store descriptions: a field null or extreme, through every terrain command that reads a store.
    const store = join(d, 'fz.hbt');
    expect((await cli('terrain', 'create', store, '--tile-samples', '16', '--tiles', '1')).code).toBe(0);
    const b = readFileSync(store);
    const jl = b.readUInt32LE(12);
    const header = JSON.parse(b.subarray(16, 16 + jl).toString('utf8')) as { description: Record<string, unknown> };
    for (const key of ['range', 'tileSamples', 'tilesX', 'metresPerQuad', 'kind', 'blockSize']) {
      for (const v of [null, 1.7e308, -1e308, 'x', { min: null, max: 1 }]) {
        const h = structuredClone(header);
        h.description[key] = v;
        const text = Buffer.from(JSON.stringify(h));
        const len = Buffer.alloc(4);
        len.writeUInt32LE(text.length);
        const bad = join(d, 'fz-bad.hbt');
        writeFileSync(bad, Buffer.concat([b.subarray(0, 12), len, text, b.subarray(16 + jl)]));
        for (const argv of [
          ['terrain', 'info', bad],
          ['terrain', 'export-tiles', bad, join(d, 'fz-tiles')],
          ['terrain', 'collision', bad, join(d, 'fz-coll')],
        ]) {
          const r = await cli(...argv);
          tally.commands++;
          expect(r.code === 0 || r.code === 2, `description.${key} = ${JSON.stringify(v)}: ${argv[1]} → ${r.code}: ${r.err}`).toBe(true);
        }
      }
    }
  }, 600_000);

  it('figures: cases and command runs counted (never timed)', () => {
    console.log(
      `fuzz-captures: ${tally.cases} decoder cases (${tally.accepted} read, ${tally.refused} refused); ${tally.differential} read by the reference reader too, ` +
        `${tally.differentialSame} with the same samples; ${tally.commands} command runs`,
    );
    expect(tally.cases).toBeGreaterThanOrEqual(3000);
    expect(tally.commands).toBeGreaterThanOrEqual(300);
  });
});
