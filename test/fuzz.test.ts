/**
 * Fuzz suite: a seeded mutator over valid PNG16, R16 (with and without sidecar), sidecar and request files —
 * bit flips (with and without fixed-up CRCs), truncation at every chunk boundary, length-field lies, huge dimensions,
 * zlib bombs, bad CRCs and Adler-32s, inserted chunks, JSON field swaps. Every case must be decoded correctly (the
 * codes equal an independent reading of the bytes) or refused with exit 2 and a one-line reason — never exit 1, never
 * a crash; memory stays under 512 MB (measured: peak RSS of this test process); nothing partial is left on disk.
 * Fixed seed; the figures are printed (cases, peak RSS; counted, never timed).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { codeHeightfield, domainGrid, readHeightfieldFile, writeHeightfieldFile } from '../src/index.js';
import { isInputError } from '../src/errors.js';
import { loadRequest } from '../src/plan/request.js';
import { cli, tempDir, testRandom } from './helpers.js';

const SEED = 0x19_2026;
const rnd = testRandom(SEED);
const int = (n: number) => Math.floor(rnd() * n);
const pick = <T>(a: readonly T[]): T => a[int(a.length)];

const root = tempDir('hb-fuzz-');
let peakRss = 0;
const sampleRss = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));

interface Outcome {
  code: number;
  err: string;
}
const tally = { cases: 0, accepted: 0, refused: 0 };

function expectOutcome(o: Outcome, what: string): void {
  tally.cases++;
  expect([0, 2], `${what}: exit ${o.code}: ${o.err}`).toContain(o.code);
  if (o.code === 2) {
    tally.refused++;
    expect(o.err, what).toMatch(/^heightbench: (?!internal error)[^\n]+\n$/);
  } else tally.accepted++;
  sampleRss();
}

// ---------------------------------------------------------------- PNG16
interface Chunk {
  off: number;
  len: number;
  type: string;
}
function chunksOf(b: Buffer): Chunk[] {
  const out: Chunk[] = [];
  for (let off = 8; off + 12 <= b.length;) {
    const len = b.readUInt32BE(off);
    out.push({ off, len, type: b.toString('latin1', off + 4, off + 8) });
    off += 12 + len;
  }
  return out;
}
function fixCrc(b: Buffer, c: Chunk): void {
  b.writeUInt32BE(crc32(b.subarray(c.off + 4, c.off + 8 + c.len)), c.off + 8 + c.len);
}
function chunk(type: string, data: Uint8Array): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt32BE(data.length, 0);
  h.write(type, 4, 'latin1');
  const c = Buffer.alloc(4);
  c.writeUInt32BE(crc32(Buffer.concat([h.subarray(4), data])), 0);
  return Buffer.concat([h, data, c]);
}
function withIdat(b: Buffer, z: Uint8Array): Buffer {
  const cs = chunksOf(b);
  const first = cs.find((c) => c.type === 'IDAT')!;
  const iend = cs.find((c) => c.type === 'IEND')!;
  return Buffer.concat([b.subarray(0, first.off), chunk('IDAT', z), b.subarray(iend.off)]);
}

interface PngBase {
  name: string;
  bytes: Buffer;
  w: number;
  h: number;
  codes: Uint16Array;
}
const pngBases: PngBase[] = [];
for (const [w, h, interlace] of [
  [16, 16, false],
  [13, 7, true],
  [40, 3, false],
] as const) {
  const codes = Uint16Array.from({ length: w * h }, () => int(65536));
  const bytes = Buffer.from(encode({ width: w, height: h, data: codes, depth: 16, channels: 1 }, { interlace: interlace ? 'Adam7' : 'null' }));
  pngBases.push({ name: `${w}x${h}${interlace ? 'i' : ''}`, bytes, w, h, codes });
}
const bombZ = deflateSync(Buffer.alloc(16 << 20)); // 16 MiB of zeros in ~16 KiB

const pngMutators: [string, (b: Buffer, base: PngBase) => Buffer][] = [
  [
    'bit flip',
    (b) => {
      const i = int(b.length);
      b[i] ^= 1 << int(8);
      return b;
    },
  ],
  [
    'bit flip, CRC fixed',
    (b) => {
      const cs = chunksOf(b);
      const c = pick(cs.filter((x) => x.len > 0));
      b[c.off + 8 + int(c.len)] ^= 1 << int(8);
      fixCrc(b, c);
      return b;
    },
  ],
  ['random truncation', (b) => b.subarray(0, int(b.length))],
  [
    'length-field lie',
    (b) => {
      const c = pick(chunksOf(b));
      b.writeUInt32BE(pick([c.len + 1, Math.max(0, c.len - 1), int(2 ** 32), 0x7fffffff, 0]), c.off);
      return b;
    },
  ],
  [
    'huge dimensions, CRC fixed',
    (b) => {
      b.writeUInt32BE(pick([2 ** 32 - 1, 2 ** 28, 1 << 20, 65536, 1 + int(1 << 16)]), 16);
      b.writeUInt32BE(pick([2 ** 32 - 1, 1, 16384, 1 + int(1 << 16)]), 20);
      fixCrc(b, chunksOf(b)[0]);
      return b;
    },
  ],
  ['zlib bomb', (b) => withIdat(b, bombZ)],
  [
    'bad Adler-32, CRC fixed',
    (b) => {
      const c = chunksOf(b)
        .filter((x) => x.type === 'IDAT')
        .pop()!;
      b[c.off + 8 + c.len - 1 - int(4)] ^= 1 << int(8);
      fixCrc(b, c);
      return b;
    },
  ],
  [
    'bad CRC',
    (b) => {
      const c = pick(chunksOf(b));
      b[c.off + 8 + c.len + int(4)] ^= 1 << int(8);
      return b;
    },
  ],
  [
    'inserted chunk',
    (b) => {
      const cs = chunksOf(b);
      const at = pick(cs.slice(1)).off;
      const ins = pick([
        chunk('ABCD', Buffer.from('x')),
        chunk('PLTE', Buffer.alloc(6)),
        b.subarray(8, 33),
        chunk('tEXt', Buffer.from('k\0v')),
        chunk('IEND', Buffer.alloc(0)),
      ]);
      return Buffer.concat([b.subarray(0, at), ins, b.subarray(at)]);
    },
  ],
  ['data after IEND', (b) => Buffer.concat([b, Buffer.from(pick(['x', '\0\0\0\0', 'IEND']))])],
  [
    'IDAT byte deleted or inserted, CRC fixed',
    (b) => {
      const c = chunksOf(b).find((x) => x.type === 'IDAT')!;
      const z = Buffer.from(b.subarray(c.off + 8, c.off + 8 + c.len));
      const i = 2 + int(z.length - 2);
      const nz = rnd() < 0.5 ? Buffer.concat([z.subarray(0, i), z.subarray(i + 1)]) : Buffer.concat([z.subarray(0, i), Buffer.of(int(256)), z.subarray(i)]);
      return withIdat(b, nz);
    },
  ],
  [
    're-deflated with a wrong filter byte or a short row',
    (b, base) => {
      // Non-interlaced only: rebuild the filtered rows, then break them.
      const rows = Buffer.alloc(base.h * (1 + 2 * base.w));
      for (let y = 0; y < base.h; y++) for (let x = 0; x < base.w; x++) rows.writeUInt16BE(base.codes[y * base.w + x], y * (1 + 2 * base.w) + 1 + 2 * x);
      const r = rnd();
      const broken = r < 0.5 ? (() => ((rows[int(base.h) * (1 + 2 * base.w)] = 5 + int(250)), rows))() : rows.subarray(0, rows.length - 1 - int(2 * base.w));
      return withIdat(b, deflateSync(broken));
    },
  ],
];

function pngOk(p: string, base: PngBase, tag: string): void {
  const f = readHeightfieldFile(p).field;
  expect(f.grid.columns, tag).toBe(base.w);
  expect(
    f.kind === 'codes' && Buffer.from(f.code_px.buffer).equals(Buffer.from(base.codes.buffer)),
    `${tag}: accepted, so its codes must be the original ones`,
  ).toBe(true);
}

// ---------------------------------------------------------------- R16, sidecars
const RW = 24;
const r16Codes = Uint16Array.from({ length: RW * RW }, () => int(65536));
const r16Dir = join(root, 'r16-src');
mkdirSync(r16Dir, { recursive: true });
writeHeightfieldFile(join(r16Dir, 'm.r16'), codeHeightfield({ ...domainGrid(RW), xmin: -7, sizeX: 90 }, r16Codes, { min: -2, max: 43.3 }));
const r16Bytes = readFileSync(join(r16Dir, 'm.r16'));
const sidecarObj = JSON.parse(readFileSync(join(r16Dir, 'm.r16.json'), 'utf8'));

const JUNK: unknown[] = [-1, 0, 0.5, 1e308, -1e308, 2 ** 53, 'x', '', null, true, [], {}, 'NaN', 1 << 20, (1 << 20) + 1];
function leafPaths(o: unknown, prefix: string[] = []): string[][] {
  if (o === null || typeof o !== 'object') return [prefix];
  return Object.keys(o as object).flatMap((k) => leafPaths((o as Record<string, unknown>)[k], [...prefix, k]));
}
function setPath(o: Record<string, any>, path: string[], v: unknown): void {
  let t = o;
  for (const k of path.slice(0, -1)) t = t[k];
  if (v === undefined) delete t[path[path.length - 1]];
  else t[path[path.length - 1]] = v;
}
function mutateJson(o: object): { text: string; value: unknown } {
  const copy = structuredClone(o) as Record<string, any>;
  const paths = leafPaths(copy);
  const n = 1 + int(2);
  for (let k = 0; k < n; k++) setPath(copy, pick(paths), rnd() < 0.1 ? undefined : pick(JUNK));
  let text = JSON.stringify(copy);
  if (rnd() < 0.2) {
    const b = Buffer.from(text);
    b[int(b.length)] ^= 1 << int(7);
    text = b.toString('latin1');
  }
  return { text, value: copy };
}

describe('fuzz: hostile files are decoded correctly or refused with exit 2', () => {
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });

  it('PNG16: every mutation kind over three valid files, plus truncation at every chunk boundary', async () => {
    let n = 0;
    for (const base of pngBases) {
      // Truncation at every chunk boundary (and one byte either side).
      for (const c of chunksOf(base.bytes)) {
        for (const cut of [c.off - 1, c.off, c.off + 8, c.off + 8 + c.len, c.off + 12 + c.len - 1]) {
          if (cut >= base.bytes.length || cut < 0) continue;
          const p = join(work, `t${n++}.png`);
          writeFileSync(p, base.bytes.subarray(0, cut));
          expectOutcome(await cli('info', p), `${base.name} cut at ${cut}`);
          rmSync(p);
        }
      }
      for (let k = 0; k < 420; k++) {
        const [kind, mutate] = pick(pngMutators);
        if (kind.startsWith('re-deflated') && base.name.endsWith('i')) continue;
        const bytes = mutate(Buffer.from(base.bytes), base);
        const p = join(work, `m${n++}.png`);
        writeFileSync(p, bytes);
        const tag = `${base.name} ${kind} #${k}`;
        const o = await cli('info', p, '--json');
        expectOutcome(o, tag);
        if (o.code === 0) pngOk(p, base, tag);
        rmSync(p);
      }
    }
    expect(n).toBeGreaterThan(1200);
  });

  it('R16 with and without sidecar, and sidecar mutations', async () => {
    for (let k = 0; k < 500; k++) {
      const dir = join(work, `r${k}`);
      mkdirSync(dir);
      const p = join(dir, 'm.r16');
      const kind = pick([
        'data flip (sidecar)',
        'truncate (sidecar)',
        'data flip (no sidecar)',
        'truncate (no sidecar)',
        'sidecar field',
        'sidecar field',
        'sidecar field',
      ]);
      let data = Buffer.from(r16Bytes);
      if (kind.startsWith('data flip')) data[int(data.length)] ^= 1 << int(8);
      if (kind.startsWith('truncate')) data = data.subarray(0, int(data.length));
      writeFileSync(p, data);
      let sidecar: unknown = null;
      if (!kind.includes('no sidecar')) {
        if (kind === 'sidecar field') {
          const m = mutateJson(sidecarObj);
          sidecar = m.value;
          writeFileSync(`${p}.json`, m.text);
        } else writeFileSync(`${p}.json`, JSON.stringify(sidecarObj));
      }
      const o = await cli('info', p, '--json');
      expectOutcome(o, `r16 ${kind} #${k}`);
      if (o.code === 0) {
        const f = readHeightfieldFile(p).field;
        // Independent reading: little-endian pairs of the bytes on disk, over the size the sidecar or byte count gives.
        const want = Array.from({ length: data.length >> 1 }, (_, i) => data.readUInt16LE(2 * i));
        expect(f.kind === 'codes' && Array.from(f.code_px), `r16 ${kind} #${k}`).toEqual(want);
        if (kind.startsWith('data flip (sidecar)') || kind.startsWith('truncate (sidecar)'))
          throw new Error(`a payload that differs from its sidecar's hash was accepted (#${k})`);
        if (sidecar) expect(JSON.parse(o.out).grid).toEqual((sidecar as { grid: unknown }).grid);
      }
      // A convert of each case writes a complete pair or nothing.
      const out = join(dir, 'out.png');
      const c = await cli('convert', p, out);
      expectOutcome(c, `convert r16 ${kind} #${k}`);
      expect(existsSync(out), `#${k}`).toBe(c.code === 0);
      expect(existsSync(`${out}.json`), `#${k}`).toBe(c.code === 0);
      expect(
        readdirSync(dir).filter((e) => e.startsWith('.')),
        `#${k}: no leftovers`,
      ).toEqual([]);
      rmSync(dir, { recursive: true });
    }
  });

  it('request files: field mutations are loaded with their values or refused as input errors', async () => {
    const reqText = readFileSync(join(import.meta.dirname, '..', 'config', 'requests', 'teaching-512.json'), 'utf8');
    const req = JSON.parse(reqText);
    for (let k = 0; k < 300; k++) {
      const m = mutateJson(req);
      const p = join(work, `q${k}.json`);
      writeFileSync(p, m.text);
      tally.cases++;
      let r: ReturnType<typeof loadRequest> | null = null;
      try {
        r = loadRequest(p);
      } catch (e) {
        expect(isInputError(e), `request #${k}: ${(e as Error).stack}`).toBe(true);
        expect((e as Error).message).not.toMatch(/\n/);
        tally.refused++;
      }
      if (r) {
        tally.accepted++;
        const v = JSON.parse(m.text) as typeof req; // what the file says (a flipped byte may have changed a value)
        expect(r.seed, `request #${k}`).toBe(v.seed);
        expect(r.size, `request #${k}`).toBe(v.size);
        expect(r.domain, `request #${k}`).toEqual(v.domain);
      }
      sampleRss();
      rmSync(p);
    }
    // A few accepted mutations run through the CLI's plan stage: exit 0 or 2, never an internal error.
    for (let k = 0, ran = 0; k < 200 && ran < 6; k++) {
      const m = mutateJson(req);
      const p = join(work, `qr${k}.json`);
      writeFileSync(p, m.text);
      try {
        loadRequest(p);
      } catch {
        continue;
      }
      ran++;
      expectOutcome(await cli('run', p, '--stages', 'layout', '--out', join(work, `qo${k}`)), `run request #${k}`);
    }
  });

  it('figures: at least 2000 cases, peak RSS under 512 MB, nothing left behind', () => {
    const maxRssMb = process.resourceUsage().maxRSS / 1024;
    sampleRss();
    console.log(
      `fuzz: ${tally.cases} cases (${tally.accepted} accepted, ${tally.refused} refused); peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB sampled, ${maxRssMb.toFixed(0)} MB maxRSS of the process`,
    );
    expect(tally.cases).toBeGreaterThanOrEqual(2000);
    expect(maxRssMb).toBeLessThan(512);
    expect(readdirSync(work).filter((e) => e.startsWith('.'))).toEqual([]);
  });
});
