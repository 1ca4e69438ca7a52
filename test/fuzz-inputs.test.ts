/**
 * Fuzz suite, second pass (issue 30, class 6): a seeded mutator over the input kinds the first suite (fuzz.test.ts)
 * did not reach — terrain stores, KTX2 assets and their index, draw lists, params.yaml, metrics.json and hashes.json
 * (regress), and sidecar JSON with structural attacks (nesting 10⁵ deep, reserved keys, megabyte strings). Every
 * case must be read (and then equal what an independent reading of the file says where that is cheap to state) or
 * refused as an input error — a deliberate error of the project's classes, one line — never a plain TypeError or
 * RangeError (a bug, exit 1), never a stack overflow.
 * Bounds stated and asserted: ≥ 2,000 cases per run, fixed seed, peak RSS under 512 MB (work counted, never timed).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { read as readKtx, write as writeKtx } from 'ktx-parse';
import { stringify as toYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseHashesJson, parseMetricsJson } from '../src/runs/regress.js';
import { emitRequestDrawList } from '../src/cli/gpu-run.js';
import { parseDrawList, serialiseDrawList } from '../src/drawlist/serial.js';
import { inputErrorMessage, isInputError } from '../src/errors.js';
import { parseSidecar } from '../src/io/sidecar.js';
import { parseJson } from '../src/io/json-check.js';
import { buildMipChain, readAssetIndex, readAssetKtx2, writeAssetKtx2 } from '../src/assets/assets.js';
import { parseParams, parseYamlText } from '../src/pipeline/params.js';
import { loadRequest } from '../src/plan/request.js';
import { createTerrain } from '../src/terrain/terrain.js';
import { readStore, readTerrainStore, writeTerrainStore } from '../src/terrain/store.js';
import { tempDir, testRandom } from './helpers.js';

const SEED = 0x30_2026;
const rnd = testRandom(SEED);
const int = (n: number) => Math.floor(rnd() * n);
const pick = <T>(a: readonly T[]): T => a[int(a.length)];
const tally = { cases: 0, accepted: 0, refused: 0 };
let peakRss = 0;

/** Runs one case: accepted (then `check` its value), or refused as an input error with a one-line message. */
function judge<T>(what: string, read: () => T, check?: (v: T) => void): void {
  tally.cases++;
  let v: T;
  try {
    v = read();
  } catch (e) {
    if (!isInputError(e)) throw new Error(`${what}: a bug, not a refusal: ${(e as Error).stack ?? String(e)}`);
    expect(inputErrorMessage(e), what).not.toMatch(/\n/);
    tally.refused++;
    return;
  }
  tally.accepted++;
  check?.(v);
  if ((tally.cases & 63) === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
}

// JSON structural attacks every JSON kind gets, besides leaf mutations.
const JUNK: unknown[] = [-1, 0, 0.5, 1e308, -1e308, 2 ** 53, 'x', '', null, true, [], {}, 'NaN', 1 << 20, '__proto__', 'x'.repeat(300)];
const RESERVED = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '..', '../x', 'a/b', '-rf', '.hidden', '\u001b[31m'];
function leafPaths(o: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (out.length > 4000) return out;
  if (o === null || typeof o !== 'object') out.push(prefix);
  else for (const k of Object.keys(o as object)) leafPaths((o as Record<string, unknown>)[k], [...prefix, k], out);
  return out;
}
function setPath(o: Record<string, unknown>, path: string[], v: unknown): void {
  let t = o as Record<string, unknown>;
  for (const k of path.slice(0, -1)) {
    const next = t[k];
    if (next === null || typeof next !== 'object') return; // an earlier mutation replaced this branch
    t = next as Record<string, unknown>;
  }
  if (path.length === 0) return;
  if (v === undefined) delete t[path[path.length - 1]];
  else t[path[path.length - 1]] = v;
}
function mutateText(o: object, paths = leafPaths(o)): string {
  const r = rnd();
  if (r < 0.05) return `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  if (r < 0.08) return `{"a":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}`;
  if (r < 0.1) return JSON.stringify(o).slice(0, int(JSON.stringify(o).length));
  const copy = structuredClone(o) as Record<string, unknown>;
  for (let k = 0, n = 1 + int(3); k < n; k++) setPath(copy, pick(paths), rnd() < 0.1 ? undefined : structuredClone(pick(JUNK)));
  let text = JSON.stringify(copy);
  if (rnd() < 0.15) text = text.replace(/"([A-Za-z]+)":/, `"${pick(RESERVED)}":`);
  if (rnd() < 0.1) {
    const b = Buffer.from(text);
    b[int(b.length)] ^= 1 << int(7);
    text = b.toString('latin1');
  }
  return text;
}

// ---------------------------------------------------------------- bases
const terrain = createTerrain(
  { kind: 'collision', tileSamples: 32, tilesX: 2, tilesY: 2, metresPerQuad: 1, range: { min: -50, max: 200 } },
  { paintLayers: ['ground', 'rock'] },
);
const layer = terrain.stack.addLayer('sculpt');
for (let k = 0; k < 200; k++) layer.addDelta(int(63), int(63), rnd() * 4 - 2);
const storeBytes = Buffer.from(writeTerrainStore(terrain));
const headerLen = storeBytes.readUInt32LE(12);
const storeHeader = JSON.parse(storeBytes.toString('utf8', 16, 16 + headerLen)) as object;

const decode = { metresPerCode: 0.001, offsetMetres: -10 };
const level0 = Uint16Array.from({ length: 32 * 32 }, () => int(65536));
const assetBytes = Buffer.from(writeAssetKtx2('fuzz-key', 32, 64, decode, buildMipChain(level0, 32, decode)));

describe('fuzz, second pass: every input kind is read or refused as an input error', () => {
  it('terrain stores: flips, truncation, u32 lies, header mutations, deflate bombs', () => {
    const bomb = deflateRawSync(Buffer.alloc(8 << 20));
    for (let k = 0; k < 600; k++) {
      let b = Buffer.from(storeBytes);
      const kind = pick(['flip', 'truncate', 'u32 lie', 'header', 'header', 'bomb']);
      if (kind === 'flip') for (let f = 0, n = 1 + int(4); f < n; f++) b[int(b.length)] ^= 1 << int(8);
      if (kind === 'truncate') b = b.subarray(0, int(b.length));
      if (kind === 'u32 lie') b.writeUInt32LE(pick([0, 1, 0xffffffff, 1 << 30, int(2 ** 32)]), 4 * int(b.length >> 2));
      if (kind === 'header') {
        const h = Buffer.from(mutateText(storeHeader));
        const len = Buffer.alloc(4);
        len.writeUInt32LE(h.length);
        b = Buffer.concat([b.subarray(0, 12), len, h, b.subarray(16 + headerLen)]);
      }
      if (kind === 'bomb') b = Buffer.concat([b.subarray(0, b.length - 64), bomb]);
      judge(`store ${kind} #${k}`, () => readTerrainStore(b));
      judge(`store (bare) ${kind} #${k}`, () => readStore(b));
    }
  });

  it('KTX2 assets: flips, truncation, container field lies, metadata mutations', () => {
    for (let k = 0; k < 400; k++) {
      const kind = pick(['flip', 'truncate', 'fields', 'metadata']);
      let b: Uint8Array = Buffer.from(assetBytes);
      if (kind === 'flip') for (let f = 0, n = 1 + int(3); f < n; f++) b[int(b.length)] ^= 1 << int(8);
      if (kind === 'truncate') b = b.subarray(0, int(b.length));
      if (kind === 'fields') {
        // Header words patched in place (vkFormat … supercompressionScheme, then the index offsets): the reader sees
        // the lie as written (ktx-parse's writer would not write some of these containers at all).
        const c = Buffer.from(b);
        c.writeUInt32LE(pick([0, 1, 2, 3, 31, 33, 70, 1 << 20, 0xffffffff]) >>> 0, 12 + 4 * int(18));
        b = c;
      }
      if (kind === 'metadata') {
        const c = readKtx(assetBytes);
        const key = pick(['heightbench/decode', 'heightbench/worldSize', 'heightbench/key']);
        c.keyValue[key] = key === 'heightbench/decode' ? mutateText(decode) : String(pick(JUNK));
        b = writeKtx(c);
      }
      judge(
        `asset ${kind} #${k}`,
        () => readAssetKtx2(b, `asset #${k}`),
        (a) => {
          if (kind === 'flip' || kind === 'truncate') return;
          expect(a.size, `asset #${k}`).toBe(a.sizes[0]);
        },
      );
    }
  });

  it('asset index.json: leaf and structural mutations', () => {
    const dir = tempDir('hb-fuzz-idx-');
    const index = {
      format: 'heightbench.assets',
      version: 1,
      world: 'tundra',
      worldSha256: 'a'.repeat(64),
      assets: [{ key: 'k1', kind: 'stamp', file: 'stamps/k1.ktx2', size: 32, levels: 6, worldSize: 64, sha256: 'b'.repeat(64) }],
    };
    for (let k = 0; k < 250; k++) {
      writeFileSync(join(dir, 'index.json'), mutateText(index));
      judge(`index #${k}`, () => readAssetIndex(dir));
    }
  });

  it('draw lists: leaf and structural mutations of a real list', () => {
    const { drawList } = emitRequestDrawList(loadRequest('teaching-512', 16));
    const text = serialiseDrawList(drawList);
    const obj = JSON.parse(text) as object;
    const paths = leafPaths(obj);
    for (let k = 0; k < 300; k++) judge(`drawlist #${k}`, () => parseDrawList(mutateText(obj, paths), `drawlist #${k}`));
  }, 60_000);

  it('params.yaml: run names, requests and sizes mutated, YAML broken', () => {
    const params = { dumpWindow: 1024, runs: { 'tundra-r19': { request: 'tundra-r19', size: 4096 }, 'teaching-512': { request: 'teaching-512', size: 512 } } };
    for (let k = 0; k < 300; k++) {
      const r = rnd();
      let text: string;
      if (r < 0.3) {
        // A hostile run name or request, written as YAML text (a key such as __proto__ cannot be set on an object).
        const value = pick(['request: tundra-r19\n    size: 512', 'null', '5', `request: ${JSON.stringify(pick(RESERVED))}\n    size: 16`]);
        text = `${toYaml(params)}  ${JSON.stringify(pick(RESERVED))}:\n    ${value}\n`;
      } else if (r < 0.8)
        text = mutateText(params); // JSON text is YAML too
      else if (r < 0.9) text = `a: &x [${'*x,'.repeat(200)}]\nb: *x\n`;
      else text = toYaml(params).slice(0, int(60)) + pick(['\t', ': :', '{', '- [', '\u0000']);
      judge(
        `params #${k}`,
        () => parseParams(parseYamlText(text, `params #${k}`)),
        (p) => {
          for (const name of p.runs.keys()) expect(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(name), `params #${k}: ${name}`).toBe(true);
        },
      );
    }
  });

  it('metrics.json and hashes.json (regress): leaf and structural mutations', () => {
    const metrics = { pixels: 100, exact: 99, exactPercent: 99, maxAbsCode: 1, rmsMm: 0.1, 'histogram.0': 99, 'histogram.1': 1, 'gates.passed': 1 };
    const hashes = { generated: { 'base.r32': 'a'.repeat(64) }, references: { 'base.r32': 'b'.repeat(64) } };
    for (let k = 0; k < 250; k++) {
      judge(`metrics #${k}`, () => parseMetricsJson(Buffer.from(mutateText(metrics)), `metrics #${k}`));
      judge(`hashes #${k}`, () => parseHashesJson(Buffer.from(mutateText(hashes)), `hashes #${k}`));
    }
  });

  it('sidecar JSON: structural attacks (deep nesting, reserved keys, long strings)', () => {
    const sidecar = {
      format: 'heightbench.sidecar',
      version: 1,
      grid: { xmin: 0, ymin: 0, sizeX: 160, sizeY: 160, columns: 16, rows: 16, convention: 'texel-centre', rowDirection: 'row0-at-ymin' },
      encoding: { kind: 'unorm16', min: -100, max: 100, endian: 'le' },
      payload: { file: 'a.r16', bytes: 512, sha256: 'c'.repeat(64) },
    };
    for (let k = 0; k < 200; k++) judge(`sidecar #${k}`, () => parseSidecar(parseJson(mutateText(sidecar), `sidecar #${k}`), 'a.r16.json'));
  });

  it('figures: at least 2000 cases, peak RSS under 512 MB (work counted, never timed: a busy machine cannot fail it)', () => {
    const maxRssMb = process.resourceUsage().maxRSS / 1024;
    console.log(
      `fuzz-inputs: ${tally.cases} cases (${tally.accepted} accepted, ${tally.refused} refused); peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB sampled, ${maxRssMb.toFixed(0)} MB maxRSS`,
    );
    expect(tally.cases).toBeGreaterThanOrEqual(2000);
    expect(maxRssMb).toBeLessThan(512);
    void mkdirSync;
  });
});
