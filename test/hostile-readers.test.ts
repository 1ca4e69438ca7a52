/**
 * Issue 30, class 4 — one hardened reader for every input kind. Stores, assets (KTX2 and their index), sidecars,
 * draw lists, configs and metrics go through src/io/read-input.ts (regular files only, size checked before reading;
 * inputPresent judges presence by lstat so a dangling or looping link is refused, never "absent") and
 * src/io/json-check.ts parseJson (depth and size bounded before parsing). Decompression is capped at the size the
 * layout promises. Supercompressed KTX2 levels are refused unless decoded (they never are: heightbench reads raw
 * R16 only), and an asset whose declared data does not match its world or whose mip chain was edited is refused.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { read as readKtx, write as writeKtx } from 'ktx-parse';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeHeightfield } from '../src/core/heightfield.js';
import { FormatError } from '../src/errors.js';
import { decodeAsset } from '../src/gpu/assets.js';
import { writeHeightfieldFile } from '../src/io/heightfield-file.js';
import { jsonDepth, parseJson } from '../src/io/json-check.js';
import { buildAssets, loadAssets, readAssetKtx2, writeAssetKtx2, type AssetIndexEntry } from '../src/assets/assets.js';
import { loadWorld } from '../src/pipeline/inputs.js';
import { ensureAssets, worldHash } from '../src/pipeline/run.js';
import { sha256Hex } from '../src/io/sidecar.js';
import { readStore, STORE_MAGIC } from '../src/terrain/store.js';
import { cli, tempDir } from './helpers.js';

const world = loadWorld('tundra');
const assetsDir = join(tempDir('hb-readers-assets-'), 'assets');
beforeAll(() => {
  buildAssets(world, assetsDir, worldHash(world));
}, 120_000);

/** A copy of the built asset folder whose index entry `k` is rewritten with `bytes` (its hash updated to match). */
function alteredAssets(k: number, bytes: Uint8Array, entry: Partial<AssetIndexEntry> = {}): string {
  const dir = join(tempDir('hb-readers-alt-'), 'assets');
  cpSync(assetsDir, dir, { recursive: true });
  const idx = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { assets: AssetIndexEntry[] };
  writeFileSync(join(dir, idx.assets[k].file), bytes);
  idx.assets[k] = { ...idx.assets[k], ...entry, sha256: sha256Hex(bytes) };
  writeFileSync(join(dir, 'index.json'), JSON.stringify(idx));
  return dir;
}

function firstAsset(): { entry: AssetIndexEntry; bytes: Uint8Array } {
  const idx = JSON.parse(readFileSync(join(assetsDir, 'index.json'), 'utf8')) as { assets: AssetIndexEntry[] };
  return { entry: idx.assets[0], bytes: readFileSync(join(assetsDir, idx.assets[0].file)) };
}

/** A hand-made version 1 store: `header` as given, a 64×64 base, one layer with one chunk of `chunk` deflated bytes. */
function store(header: unknown, chunk?: Uint8Array): Uint8Array {
  const u32 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    return b;
  };
  const json = Buffer.from(JSON.stringify(header));
  const parts: Buffer[] = [Buffer.from(STORE_MAGIC, 'latin1'), u32(1), u32(json.length), json, Buffer.alloc(64 * 64 * 4)];
  if (chunk) {
    const z = deflateRawSync(chunk);
    const meta = Buffer.alloc(9);
    meta.writeDoubleLE(1, 0);
    meta[8] = 1;
    const c = Buffer.alloc(9);
    c.writeUInt32LE(0, 0);
    c[4] = 4;
    c.writeUInt32LE(z.length, 5);
    parts.push(u32(1), u32(1), Buffer.from('L'), meta, u32(1), c, z);
  } else parts.push(u32(0));
  return Buffer.concat(parts);
}

const header = { width: 64, height: 64, range: { min: -100, max: 100 }, chunk: 64 };

describe('terrain stores', () => {
  it('store-fifo-and-devices: a FIFO, /dev/zero behind a link and a folder are refused at once (exit 2), never read', async () => {
    const d = tempDir('hb-store-');
    execFileSync('mkfifo', [join(d, 'fifo.hbt')]);
    symlinkSync('/dev/zero', join(d, 'zero.hbt'));
    mkdirSync(join(d, 'dir.hbt'));
    // Bytes this process read while refusing them (the kernel's count, /proc/self/io): reading /dev/zero would pile up
    // megabytes, opening the FIFO would block until the test's timeout — counted, not timed.
    const readSoFar = (): number => Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
    const before = readSoFar();
    for (const [f, what] of [
      ['fifo.hbt', 'a FIFO'],
      ['zero.hbt', 'a character device'],
      ['dir.hbt', 'folder'],
    ]) {
      const r = await cli('terrain', 'info', join(d, f));
      expect(r.code, f).toBe(2);
      expect(r.err).toContain(what);
    }
    expect(readSoFar() - before).toBeLessThan(1 << 20);
  });

  it('store-deflate-bomb: a chunk inflating past CHUNK²·4 bytes is stopped at that size and refused', () => {
    const ok = readStore(store(header, new Uint8Array(64 * 64 * 4)));
    expect(ok.stack.layers).toHaveLength(1);
    const bomb = store(header, new Uint8Array(64 << 20)); // 64 MiB of zeros deflate to ~64 kB
    expect(bomb.length).toBeLessThan(200_000);
    const before = process.memoryUsage().rss;
    expect(() => readStore(bomb)).toThrow(/inflates past 16384 bytes/);
    expect(process.memoryUsage().rss - before).toBeLessThan(48 << 20);
  });

  it('store-header-not-object: a header of null, [] or 10⁵ nested arrays is refused as a FormatError, not a crash', () => {
    for (const h of [null, [], 5]) expect(() => readStore(store(h)), JSON.stringify(h)).toThrow(FormatError);
    const deep = Buffer.from('['.repeat(100_000) + ']'.repeat(100_000));
    const u32 = (v: number) => Buffer.from(Uint32Array.of(v).buffer);
    const bytes = Buffer.concat([Buffer.from(STORE_MAGIC, 'latin1'), u32(1), u32(deep.length), deep]);
    expect(() => readStore(bytes)).toThrow(/nested deeper than 64/);
  });
});

describe('sidecars', () => {
  it('sidecar-dangling-link: a dangling or looping sidecar link is refused (exit 2), never read as "no sidecar"', async () => {
    const d = tempDir('hb-side-');
    const grid = { xmin: 0, ymin: 0, sizeX: 160, sizeY: 160, columns: 16, rows: 16, convention: 'texel-centre', rowDirection: 'row0-at-ymin' } as const;
    writeHeightfieldFile(join(d, 'a.r16'), codeHeightfield(grid, new Uint16Array(256).fill(1000)));
    cpSync(join(d, 'a.r16'), join(d, 'b.r16'));
    cpSync(join(d, 'a.r16'), join(d, 'c.r16'));
    symlinkSync(join(d, 'gone.json'), join(d, 'b.r16.json'));
    symlinkSync(join(d, 'c.r16.json'), join(d, 'c.r16.json.loop'));
    symlinkSync(join(d, 'c.r16.json.loop'), join(d, 'c.r16.json'));
    const a = await cli('info', join(d, 'a.r16'), '--json');
    expect(a.code, a.err).toBe(0);
    const b = await cli('info', join(d, 'b.r16'));
    expect(b.code).toBe(2);
    expect(b.err).toContain('b.r16.json: is a symbolic link that points to nothing (dangling)');
    const c = await cli('info', join(d, 'c.r16'));
    expect(c.code).toBe(2);
    expect(c.err).toContain('c.r16.json: is a symbolic link that loops');
    for (const f of ['b.r16', 'c.r16']) expect((await cli('compare', join(d, f), join(d, 'a.r16'))).code).toBe(2);
  });

  it('sidecar-deep-json: a sidecar nested 10⁵ deep exits 2 with one line, not a stack overflow', async () => {
    const d = tempDir('hb-side-deep-');
    const grid = { xmin: 0, ymin: 0, sizeX: 160, sizeY: 160, columns: 16, rows: 16, convention: 'texel-centre', rowDirection: 'row0-at-ymin' } as const;
    writeHeightfieldFile(join(d, 'a.r16'), codeHeightfield(grid, new Uint16Array(256)));
    writeFileSync(join(d, 'a.r16.json'), `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const r = await cli('info', join(d, 'a.r16'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^heightbench: .*a\.r16\.json: JSON nested deeper than 64 levels; refused before parsing\n$/);
    expect(jsonDepth('{"s":"[[[[","a":[[1]]}')).toBe(3);
    expect(() => parseJson('[1]'.padStart(3, ' '), 'x')).not.toThrow();
  });
});

describe('assets', () => {
  it('ktx2-supercompressed: a level flagged as supercompressed is refused on the CLI path and on the GPU page path', () => {
    const { entry, bytes } = firstAsset();
    const c = readKtx(bytes);
    for (const scheme of [1, 2, 3]) {
      c.supercompressionScheme = scheme as typeof c.supercompressionScheme;
      const flagged = writeKtx(c);
      expect(() => readAssetKtx2(flagged, entry.file)).toThrow(`supercompression scheme ${scheme}, expected 0`);
      const levelSizes = Array.from({ length: c.levels.length }, (_, k) => Math.max(1, entry.size >> k));
      const rec = { id: entry.key, file: entry.file, size: entry.size, levelSizes, worldSize: entry.worldSize, decode: { metresPerCode: 1, offsetMetres: 0 } };
      expect(() => decodeAsset(rec as never, flagged)).toThrow(/supercompression scheme/);
    }
  });

  it('asset-metadata-altered: metadata edited with the index hash updated is refused against the world, naming the asset', () => {
    const { entry, bytes } = firstAsset();
    const a = readAssetKtx2(bytes, entry.file);
    const codes = readKtx(bytes).levels.map((l) => new Uint16Array(l.levelData.slice().buffer));
    // World extent edited in the file and in its index entry: the mip chain is still consistent, the world is not.
    const wider = writeAssetKtx2(a.key, a.size, a.worldSize * 2, a.decode, { sizes: a.sizes, levels: codes });
    const dir = alteredAssets(0, wider, { worldSize: a.worldSize * 2 });
    expect(() => ensureAssets(world, dir)).toThrow(`asset ${entry.key} declares other data than world tundra: worldSize ${a.worldSize * 2} ≠ ${a.worldSize}`);
    // Decode edited: refused (by the world check, or earlier when the chain no longer re-encodes to the same codes).
    const shifted = writeAssetKtx2(a.key, a.size, a.worldSize, { ...a.decode, offsetMetres: a.decode.offsetMetres + 100 }, { sizes: a.sizes, levels: codes });
    expect(() => ensureAssets(world, alteredAssets(0, shifted))).toThrow(new RegExp(`${entry.key}.*(declares other data|the chain was altered)`));
  });

  it('asset-level-altered: a mip level that is not the filter of level 0 is refused', () => {
    const { entry, bytes } = firstAsset();
    const c = readKtx(bytes);
    const l1 = c.levels[1].levelData;
    l1[10] ^= 0x40;
    const dir = alteredAssets(0, writeKtx(c));
    expect(() => ensureAssets(world, dir)).toThrow(/level 1 texel 5 is code .*the chain was altered/);
    void entry;
  });

  it('asset-fifo-and-index: an asset that is a FIFO, an index naming a file outside, or a malformed index exit 2', async () => {
    const { entry } = firstAsset();
    const fifoDir = join(tempDir('hb-asset-fifo-'), 'assets');
    cpSync(assetsDir, fifoDir, { recursive: true });
    execFileSync('rm', [join(fifoDir, entry.file)]);
    execFileSync('mkfifo', [join(fifoDir, entry.file)]);
    expect(() => ensureAssets(world, fifoDir)).toThrow(/a FIFO \(named pipe\), expected a regular file/);
    const outDir = join(tempDir('hb-asset-out-'), 'assets');
    cpSync(assetsDir, outDir, { recursive: true });
    const idx = JSON.parse(readFileSync(join(outDir, 'index.json'), 'utf8'));
    idx.assets[0].file = '../../../etc/passwd';
    writeFileSync(join(outDir, 'index.json'), JSON.stringify(idx));
    expect(() => loadAssets(outDir)).toThrow(/assets\[0\]\.file: "\.\.\/\.\.\/\.\.\/etc\/passwd"/);
    for (const text of ['{', 'null', '{"assets":5}', '{"assets":[{"key":"__proto__"}]}', '{"assets":[null]}']) {
      writeFileSync(join(outDir, 'index.json'), text);
      expect(() => loadAssets(outDir), text).toThrow(FormatError);
    }
    // ensureAssets rebuilds an unreadable index (it is derived data) instead of failing.
    expect(ensureAssets(world, outDir).size).toBeGreaterThan(0);
  });
});
