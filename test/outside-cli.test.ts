/**
 * Every command takes the outside containers: files numpy and a documented-layout DDS writer made (never heightbench)
 * are described by `info`, compared by `compare`, explained by `diagnose`, and converted by `convert`; what heightbench
 * writes as .npy is read back by numpy with the same values.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { floatHeightfield, readHeightfieldFile, writeHeightfieldFile } from '../src/index.js';
import { cli, tempDir } from './helpers.js';

const py = join(process.cwd(), '.venv', 'bin', 'python');
const d = tempDir('hb-outside-');
const gen = join(d, 'gen');
const extent = ['--extent', '-1024,-1024,2048'];

function python(code: string): string {
  const r = spawnSync(py, ['-c', code], { encoding: 'utf8', cwd: d });
  if (r.status !== 0) throw new Error(`python failed: ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  expect(existsSync(py)).toBe(true); // make setup installs numpy in the venv
  expect((await cli('run', 'teaching-512', '--size', '128', '--out', gen)).code).toBe(0);
  // numpy reads heightbench's raw payloads by their documented layout (little-endian, row 0 first) and writes captures
  // a researcher's tools would: a north-up float32 .npy, and an R16_UNORM DDS render-target capture (north-up).
  python(`
import sys, numpy as np
sys.path.insert(0, ${JSON.stringify(join(process.cwd(), 'examples', 'external-reconstruction'))})
from reconstruct import write_dds_r16_unorm
pre = np.fromfile('gen/pre-encode.r32', '<f4').reshape(128, 128)
fin = np.fromfile('gen/final.r16', '<u2').reshape(128, 128)
np.save('pre-north-up.npy', np.flipud(pre))
np.save('pre-big-endian-fortran.npy', np.asfortranarray(np.flipud(pre).astype('>f4')))
write_dds_r16_unorm('final-capture.dds', np.flipud(fin))
import rasterio
from rasterio.transform import from_origin
with rasterio.open('pre-gdal.tif', 'w', driver='GTiff', width=128, height=128, count=1, dtype='float32', compress='deflate',
                   predictor=3, tiled=True, blockxsize=64, blockysize=64, transform=from_origin(-1024, 1024, 16, 16)) as ds:
    ds.write(np.flipud(pre), 1)
`);
}, 60_000);

describe('outside containers on the command line', () => {
  it('decoders-given-a-node-buffer: a Buffer (whose slice is a view) decodes to exactly width × height samples', async () => {
    const { decodeNpy } = await import('../src/io/formats/npy.js');
    const r = decodeNpy(readFileSync(join(d, 'pre-north-up.npy')), 'x.npy', {}, { pixelLimit: 1 << 20 });
    expect(r.values.length).toBe(128 * 128);
  });
  it('compare: a GeoTIFF rasterio (GDAL) wrote carries its own extent and row order: no flags needed', async () => {
    const r = await cli('compare', join(d, 'pre-gdal.tif'), join(gen, 'pre-encode.r32'), '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.floatEqualPercent).toBe(100);
    expect(j.inputs.generated).toMatchObject({ extent: 'file', rowDirection: 'file', encoding: 'file' });
    const contra = await cli('compare', join(d, 'pre-gdal.tif'), join(d, 'pre-north-up.npy'), '--extent', '0,0,10', '--row-direction', 'row0-at-ymax');
    expect(contra.code).toBe(2);
    expect(contra.err).toMatch(/--extent 0,0,10,10 contradicts the file's -1024,-1024,2048,2048/);
  });
  it('convert to .tif: GDAL (rasterio) reads the values and the extent heightbench wrote', async () => {
    for (const [src, dtype] of [
      ['pre-encode.r32', 'float32'],
      ['final.r16', 'uint16'],
    ]) {
      const out = join(d, `${src}.tif`);
      expect((await cli('convert', join(gen, src), out)).code).toBe(0);
      const seen = python(`
import json, numpy as np, rasterio
with rasterio.open(${JSON.stringify(out)}) as ds:
    a = ds.read(1); b = ds.bounds
raw = np.fromfile(${JSON.stringify(join(gen, src))}, '<f4' if ${JSON.stringify(dtype)} == 'float32' else '<u2').reshape(128, 128)
print(json.dumps({"dtype": str(a.dtype), "bounds": [b.left, b.bottom, b.right, b.top], "equal": bool(np.array_equal(a, np.flipud(raw)))}))
`);
      expect(JSON.parse(seen)).toEqual({ dtype, bounds: [-1024, -1024, 1024, 1024], equal: true });
    }
  });
  it('compare: a north-up .npy against the run, rows reordered, every value equal; the conventions named', async () => {
    for (const f of ['pre-north-up.npy', 'pre-big-endian-fortran.npy']) {
      const r = await cli('compare', join(d, f), join(gen, 'pre-encode.r32'), ...extent, '--generated-row-direction', 'row0-at-ymax', '--json');
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const j = JSON.parse(r.out);
      expect(j.floatEqualPercent).toBe(100);
      expect(j.floatRmsMm ?? 0).toBe(0);
      expect(j.inputs.generated).toMatchObject({ extent: 'flag', rowDirection: 'flag', encoding: 'file' });
    }
  });
  it('compare: a DDS R16_UNORM capture against the run: codes equal, row order from the container default', async () => {
    const r = await cli('compare', join(d, 'final-capture.dds'), join(gen, 'final.r16'), ...extent, '--range', '-500,500', '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.exactPercent).toBe(100);
    expect(j.inputs.generated).toMatchObject({ extent: 'flag', rowDirection: 'container', encoding: 'flag' });
    const missing = await cli('compare', join(d, 'final-capture.dds'), join(gen, 'final.r16'), ...extent);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/the height range of its UNORM16 codes \(--range MIN,MAX\)/);
  });
  it('conventions per side: a shared flag contradicting the DDS default is refused naming both; a bare pair names both sides', async () => {
    const npy = join(d, 'pre-north-up.npy');
    const dds = join(d, 'final-capture.dds');
    const shared = await cli('compare', npy, dds, ...extent, '--row-direction', 'row0-at-ymin', '--range', '-500,500');
    expect(shared.code).toBe(2);
    expect(shared.err).toMatch(
      /final-capture\.dds: --row-direction row0-at-ymin was given for both sides, but the reference carries row0-at-ymax \(.*\); give --reference-row-direction to override it for this side alone/,
    );
    // The .npy's own row direction: the DDS keeps its container's, and the flag is named as the generated side's.
    const own = await cli('compare', npy, dds, ...extent, '--generated-row-direction', 'row0-at-ymax', '--range', '-500,500', '--json');
    expect(own.err).toBe('');
    expect(own.code).toBe(0);
    const j = JSON.parse(own.out);
    expect(j.inputs.generated).toMatchObject({ rowDirection: 'flag' });
    expect(j.inputs.reference).toMatchObject({ rowDirection: 'container', encoding: 'flag' });
    expect(j.inputs.generated.notes.join(' ')).toMatch(/row direction row0-at-ymax from --generated-row-direction/);
    expect(j.codeRange).toMatchObject({ min: -500, max: 500, source: '--range' });
    // Nothing stated: one refusal naming every side that lacks conventions.
    const bare = await cli('compare', npy, dds);
    expect(bare.code).toBe(2);
    expect(bare.err).toMatch(/the generated side .*pre-north-up\.npy: has no sidecar .* and the reference .*final-capture\.dds: has no sidecar/);
    expect(bare.err).toMatch(/--reference-range/);
  });
  it('diagnose: the same .npy read with the wrong row direction is named a vertical flip', async () => {
    const r = await cli('diagnose', join(d, 'pre-north-up.npy'), join(gen, 'pre-encode.r32'), ...extent, '--generated-row-direction', 'row0-at-ymin', '--json');
    expect(r.code).toBe(0);
    expect(JSON.stringify(JSON.parse(r.out))).toMatch(/flip/i);
  });
  it("diagnose-says-where-conventions-came-from: --json and the text name each side's origins; defaults are warned on stderr", async () => {
    const npy = join(d, 'pre-north-up.npy');
    const j = JSON.parse((await cli('diagnose', npy, join(gen, 'pre-encode.r32'), ...extent, '--generated-row-direction', 'row0-at-ymax', '--json')).out);
    expect(j.inputs.generated).toMatchObject({ extent: 'flag', rowDirection: 'flag', encoding: 'file' });
    expect(j.inputs.reference).toMatchObject({ extent: 'sidecar', rowDirection: 'sidecar', encoding: 'sidecar' });
    expect(j.findings.map((f: { kind: string }) => f.kind).join(' ')).not.toMatch(/flip/i);
    const t = await cli('diagnose', npy, join(gen, 'pre-encode.r32'), '--assume-defaults');
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/Conventions of the generated side: extent from default, row direction from default, encoding from file/);
    expect(t.out).toMatch(/Conventions of the reference: extent from sidecar/);
    expect(t.err).toMatch(/^heightbench: generated .*pre-north-up\.npy: no sidecar; took extent -1024,-1024,2048,2048: heightbench's default/);
  });
  it('info describes a DDS capture: format, size, and where each convention came from', async () => {
    const r = await cli('info', join(d, 'final-capture.dds'), '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect([j.width, j.height]).toEqual([128, 128]);
    expect(j.notes.join(' ')).toMatch(/DXGI_FORMAT_R16_UNORM/);
    expect(j.conventions).toMatchObject({ rowDirection: 'container', extent: 'default' });
  });
  it('convert to .npy: numpy loads the same values, and the sidecar carries the grid back', async () => {
    const out = join(d, 'pre.npy');
    const r = await cli('convert', join(gen, 'pre-encode.r32'), out);
    expect(r.code).toBe(0);
    expect(existsSync(`${out}.json`)).toBe(true);
    const same = python(`
import numpy as np
a = np.load('pre.npy'); b = np.fromfile('gen/pre-encode.r32', '<f4').reshape(128, 128)
print(a.dtype.str, a.shape, bool(np.array_equal(a, b)))
`);
    expect(same.trim()).toBe('<f4 (128, 128) True');
    const back = await cli('compare', out, join(gen, 'pre-encode.r32'), '--json');
    expect(JSON.parse(back.out).inputs.generated.extent).toBe('sidecar');
    const sc = JSON.parse(readFileSync(`${out}.json`, 'utf8'));
    expect(sc.container).toBe('npy');
    expect(readHeightfieldFile(join(gen, 'pre-encode.r32')).field.grid).toEqual(sc.grid);
  });
});

describe('extent-rounding-in-geotiff-tags', () => {
  // GeoTIFF tags give ymin as tiepoint − scale × rows: an extent of 0.3,0.7,10.1 comes back as ymin 0.6999999999999993
  // (or …028). Exact comparison refused heightbench's own GeoTIFF beside its sidecar, a GDAL GeoTIFF against an .r32 of
  // the same extent, and a correctly stated --extent.
  it('GDAL and heightbench GeoTIFFs of a non-dyadic extent agree with the sidecar, the .r32 and --extent stated in decimals', async () => {
    const r32 = join(d, 'odd.r32');
    const grid = {
      xmin: 0.3,
      ymin: 0.7,
      sizeX: 10.1,
      sizeY: 10.1,
      columns: 100,
      rows: 100,
      convention: 'texel-centre' as const,
      rowDirection: 'row0-at-ymax' as const,
    };
    writeHeightfieldFile(
      r32,
      floatHeightfield(
        grid,
        Float32Array.from({ length: 100 * 100 }, (_, i) => Math.sin(i / 17) * 30),
      ),
    );
    const ours = join(d, 'odd-ours.tif');
    expect((await cli('convert', r32, ours)).code).toBe(0);
    const back = await cli('info', ours, '--json');
    expect(back.err).toBe('');
    expect(back.code).toBe(0);
    expect(JSON.parse(back.out).grid).toMatchObject({ xmin: 0.3, ymin: 0.7, sizeX: 10.1, sizeY: 10.1 });
    python(`
import numpy as np, rasterio
from rasterio.transform import from_origin
a = np.fromfile('odd.r32', '<f4').reshape(100, 100)
with rasterio.open('odd-gdal.tif', 'w', driver='GTiff', width=100, height=100, count=1, dtype='float32',
                   transform=from_origin(0.3, 0.7 + 10.1, 0.101, 0.101)) as ds:
    ds.write(a, 1)
`);
    const gdal = join(d, 'odd-gdal.tif');
    const c = await cli('compare', gdal, r32, '--json');
    expect(c.err).toBe('');
    expect(c.code).toBe(0);
    expect(JSON.parse(c.out).floatEqualPercent).toBe(100);
    expect((await cli('info', gdal, '--extent', '0.3,0.7,10.1')).code).toBe(0);
    const off = await cli('info', gdal, '--extent', '0.3,0.71,10.1');
    expect(off.code).toBe(2);
    expect(off.err).toMatch(/--extent 0\.3,0\.71,10\.1,10\.1 contradicts the file's/);
  });
});

/** A DX10 DDS header (Microsoft's DDS_HEADER + DDS_HEADER_DXT10 layout) for R16_UNORM, followed by `data` bytes. */
function ddsHeader(w: number, h: number, data: number): Buffer {
  const b = Buffer.alloc(4 + 124 + 20);
  b.writeUInt32LE(0x20534444, 0); // "DDS "
  b.writeUInt32LE(124, 4);
  b.writeUInt32LE(0x1 | 0x2 | 0x4 | 0x1000, 8); // CAPS | HEIGHT | WIDTH | PIXELFORMAT
  b.writeUInt32LE(h, 12);
  b.writeUInt32LE(w, 16);
  b.writeUInt32LE(1, 28); // mip count
  b.writeUInt32LE(32, 76); // DDS_PIXELFORMAT.dwSize
  b.writeUInt32LE(0x4, 80); // DDPF_FOURCC
  b.writeUInt32LE(0x30315844, 84); // "DX10"
  b.writeUInt32LE(0x1000, 108); // DDSCAPS_TEXTURE
  b.writeUInt32LE(56, 128); // DXGI_FORMAT_R16_UNORM
  b.writeUInt32LE(3, 132); // DDS_DIMENSION_TEXTURE2D
  b.writeUInt32LE(1, 140); // array size
  return Buffer.concat([b, Buffer.alloc(data, 7)]);
}

/** A .npy v1.0 file whose header states `shape`, followed by `data` bytes (numpy's documented layout). */
function npyHeader(shape: string, data: number): Buffer {
  let h = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  h += ' '.repeat((64 - ((10 + h.length + 1) % 64)) % 64) + '\n';
  const pre = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, h.length & 0xff, h.length >> 8]);
  return Buffer.concat([pre, Buffer.from(h, 'latin1'), Buffer.alloc(data, 1)]);
}

/** A little-endian baseline TIFF with one uncompressed strip of `data` bytes, declaring w × h uint16 samples. */
function tiffHeader(w: number, h: number, data: number): Buffer {
  const tags: [number, number, number][] = [
    [256, 4, w],
    [257, 4, h],
    [258, 3, 16],
    [259, 3, 1],
    [262, 3, 1],
    [273, 4, 0],
    [277, 3, 1],
    [278, 4, h],
    [279, 4, data],
  ];
  const start = 8 + 2 + tags.length * 12 + 4;
  const b = Buffer.alloc(start + data, 3);
  b.write('II', 0, 'latin1');
  b.writeUInt16LE(42, 2);
  b.writeUInt32LE(8, 4);
  b.writeUInt16LE(tags.length, 8);
  tags.forEach(([tag, type, v], i) => {
    const o = 10 + i * 12;
    b.writeUInt16LE(tag, o);
    b.writeUInt16LE(type, o + 2);
    b.writeUInt32LE(1, o + 4);
    if (type === 3) b.writeUInt16LE(v, o + 8);
    else b.writeUInt32LE(tag === 273 ? start : v, o + 8);
  });
  return b;
}

describe('hostile outside files through every command (exit 2, one line naming the value)', () => {
  const commands = (f: string): string[][] => [
    ['info', f],
    ['compare', f, join(gen, 'final.r16'), '--assume-defaults', '--range', '-500,500'],
    ['diagnose', f, join(gen, 'final.r16'), '--assume-defaults', '--range', '-500,500'],
    ['convert', f, join(d, 'hostile-out.r32')],
    ['import', f, '--stage', 'final', '--out', join(d, 'hostile-run'), '--assume-defaults', '--range', '-500,500'],
  ];
  async function refusedEverywhere(f: string, message: RegExp): Promise<void> {
    for (const argv of commands(f)) {
      const r = await cli(...argv);
      expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(2);
      expect(r.err, argv.join(' ')).toMatch(/^heightbench: (?!internal error)[^\n]+\n$/);
      expect(r.err, argv.join(' ')).toMatch(message);
    }
    expect(existsSync(join(d, 'hostile-out.r32'))).toBe(false);
    expect(existsSync(join(d, 'hostile-run'))).toBe(false);
  }
  it('declared-2^20-squared: a DDS, .npy or TIFF declaring 1048576 × 1048576 with 64 bytes present is refused before allocating', async () => {
    const before = process.memoryUsage().rss;
    const cases: [string, Buffer, RegExp][] = [
      ['huge.dds', ddsHeader(1 << 20, 1 << 20, 64), /1048576×1048576 = 1099511627776 pixels exceeds the limit of 268435456/],
      ['huge.npy', npyHeader('(1048576, 1048576)', 64), /shape \(1048576, 1048576\) = 1099511627776 samples exceeds the limit of 268435456/],
      ['huge.tif', tiffHeader(1 << 20, 1 << 20, 64), /TIFF 1048576x1048576 = 1099511627776 samples, over the limit of 268435456/],
    ];
    for (const [name, bytes, message] of cases) {
      writeFileSync(join(d, name), bytes);
      await refusedEverywhere(join(d, name), message);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(512 << 20);
  });
  it('a header that lies about the bytes present is refused naming both counts', async () => {
    writeFileSync(join(d, 'lie.npy'), npyHeader('(128, 128)', 100));
    await refusedEverywhere(join(d, 'lie.npy'), /shape \(128, 128\) of <f4 needs 65536 bytes after the 128-byte header, the file has 100/);
    writeFileSync(join(d, 'lie.dds'), ddsHeader(128, 128, 100));
    await refusedEverywhere(join(d, 'lie.dds'), /truncated/);
    writeFileSync(join(d, 'lie.tif'), tiffHeader(128, 128, 100));
    await refusedEverywhere(join(d, 'lie.tif'), /TIFF strip 0 holds 100 bytes of uncompressed data \(StripByteCounts\), too few to decode to the 32768 bytes/);
  });
  it('mkdir-loops-on-procfs: compare --report into a file system that refuses new folders exits 2 promptly (it hung)', async () => {
    const r = await cli('compare', join(d, 'pre-gdal.tif'), join(gen, 'pre-encode.r32'), '--report', '/proc/heightbench-report');
    expect(r.code).toBe(2);
    // Refused at the first thing it makes there: the report folder, or the writer's lock beside it.
    expect(r.err).toMatch(/^heightbench: \/proc\/\.?heightbench-report(\.lock)?: no such file or folder \(ENOENT, (mkdir|open)\)\n$/);
  }, 10_000);
  it('a FIFO, or a symbolic link to /dev/zero, named like a capture is refused by what it is, before a byte is read', async () => {
    const fifo = join(d, 'pipe.tif');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    await refusedEverywhere(fifo, /pipe\.tif: is a FIFO \(named pipe\), expected a regular file/);
    for (const name of ['zero.npy', 'zero.dds', 'zero.exr']) {
      symlinkSync('/dev/zero', join(d, name));
      await refusedEverywhere(join(d, name), /is a character device, expected a regular file/);
    }
  });
});
