/**
 * `compare --json`'s text (src/report/metrics.ts metricsJsonText): the text JSON.stringify(doc, null, 2) gives, byte for
 * byte, with each histogram written from its accumulator (histogramJsonText) — for identical fields, near ones (dense
 * bins only), a few wide outliers (WideBins' map), unrelated ones (WideBins' array, both signs), counts past 2^31, a
 * histogram that histogramRecord did not make, and a document whose strings print the mark. The result's histograms
 * are lazy (defineLazyHistogram): the text is written without making them, and every way of reading one sees the
 * record histogramRecord makes.
 */
import { describe, expect, it } from 'vitest';
import { codeHeightfield, compareHeightfields, floatHeightfield, type GridDescription } from '../src/index.js';
import { histogramJsonText, histogramRecord, histogramSource, RegionAccumulator } from '../src/compare/metric-accumulators.js';
import { metricsJsonText, resultJson } from '../src/report/metrics.js';
import { DEFAULT_RANGE } from '../src/core/grid.js';
import { testRandom } from './helpers.js';

function grid(n: number): GridDescription {
  return { xmin: -n / 2, ymin: -n / 2, sizeX: n, sizeY: n, columns: n, rows: n, convention: 'texel-centre', rowDirection: 'row0-at-ymin' };
}

/** What `compare --json` prints for the pair: the result's document and the keys the command adds. */
function cliDoc(gen: Uint16Array | Float32Array, ref: Uint16Array, n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const g = grid(n);
  const G = gen instanceof Uint16Array ? codeHeightfield(g, gen) : floatHeightfield(g, gen);
  const r = compareHeightfields(G, codeHeightfield(g, ref));
  // As the command does: keys added to resultJson's object (a spread would make the lazy histogram).
  return Object.assign(resultJson(r), { gates: [{ name: 'exact', ok: false }], inputs: { generated: 'gen.npy', reference: 'ref.r16' } }, extra);
}

/** Whether holder.histogram is still unmade (an accessor of defineLazyHistogram). */
const unmade = (holder: object) => Object.getOwnPropertyDescriptor(holder, 'histogram')?.get !== undefined;

const codes = (n: number, f: (k: number) => number) => Uint16Array.from({ length: n * n }, (_, k) => f(k));

describe('compare --json text', () => {
  const n = 64;
  const rnd = testRandom(41);
  const ref = codes(n, () => 20000 + Math.floor(rnd() * 20000));
  const cases: [string, Uint16Array | Float32Array][] = [
    ['identical', ref.slice()],
    ['near: ±3 codes', ref.map((q, k) => q + ((k * 7) % 7) - 3)],
    ['a few wide outliers (map)', ref.map((q, k) => (k % 97 === 0 ? q + 500 * (k % 3) - 700 : q))],
    ['unrelated (array, both signs)', codes(n, () => Math.floor(rnd() * 65536))],
    ['unrelated float metres', Float32Array.from({ length: n * n }, () => DEFAULT_RANGE.min + rnd() * (DEFAULT_RANGE.max - DEFAULT_RANGE.min))],
  ];
  for (const [name, gen] of cases) {
    it(`${name}: the text of JSON.stringify(doc, null, 2)`, () => {
      const doc = cliDoc(gen, ref, n);
      const holders = [doc, ...Object.values(doc.masks as Record<string, object>)];
      expect(holders.length).toBe(5);
      // Every histogram of the document has a source, and the text leaves each unmade (the fast path, not the fallback).
      for (const h of holders) expect(histogramSource(h)).not.toBeNull();
      const text = metricsJsonText(doc);
      for (const h of holders) expect(unmade(h)).toBe(true);
      expect(text).toBe(JSON.stringify(doc, null, 2));
      for (const h of holders) expect(unmade(h)).toBe(false);
    });
  }

  it('the unrelated pair holds wide bins of both signs and more than the map keeps', () => {
    const doc = cliDoc(cases[3][1], ref, n);
    const keys = Object.keys(doc.histogram as object).map(Number);
    expect(keys.filter((d) => d < -64).length).toBeGreaterThan(256);
    expect(keys.filter((d) => d > 64).length).toBeGreaterThan(256);
  });

  it('counts past 2^31 and wide keys at ±65535, at any depth', () => {
    const acc = new RegionAccumulator();
    for (const dq of [-65535, -65535, -3, 1, 64, 65, 65535]) acc.addCode(dq, 0);
    acc.dense![64 + 1] = 2 ** 40 + 3;
    const h = histogramRecord(acc, 2 ** 33 + 7);
    for (const indent of [0, 2, 6]) {
      const nested = JSON.stringify(h, null, 2).replace(/\n/g, `\n${' '.repeat(indent)}`);
      expect(histogramJsonText({ acc, exact: 2 ** 33 + 7 }, indent)).toBe(nested);
    }
  });

  it('a histogram histogramRecord did not make is written by JSON.stringify', () => {
    const doc = { ...cliDoc(ref, ref, n), histogram: { '0': 4096, '-1': 0 } };
    expect(histogramSource(doc)).toBeNull();
    expect(metricsJsonText(doc)).toBe(JSON.stringify(doc, null, 2));
  });

  it('a lazy histogram reads as the record histogramRecord makes, however it is read, and an assignment replaces it', () => {
    const g = grid(n);
    const fresh = () => compareHeightfields(codeHeightfield(g, cases[3][1] as Uint16Array), codeHeightfield(g, ref));
    const want = JSON.stringify(fresh().histogram);
    expect(Object.keys(JSON.parse(want) as object).length).toBeGreaterThan(512);
    const viaSpread = { ...fresh() };
    expect(JSON.stringify(viaSpread.histogram)).toBe(want);
    expect(JSON.stringify(structuredClone(fresh()).histogram)).toBe(want);
    expect(JSON.stringify(Object.fromEntries(Object.entries(fresh().masks.innerDisk.histogram)))).toBe(JSON.stringify(fresh().masks.innerDisk.histogram));
    // The key keeps its place in the result's key order.
    const r = fresh();
    const order = Object.keys(r);
    void r.histogram;
    expect(Object.keys(r)).toEqual(order);
    expect(order.slice(0, 4)).toEqual(['pixels', 'exact', 'exactPercent', 'histogram']);
    r.histogram = { '0': 1 };
    expect(r.histogram).toEqual({ '0': 1 });
    expect(histogramSource(r)).toBeNull();
  });

  it('a string that prints the mark: the plain text, not a spliced one', () => {
    const doc = cliDoc(cases[1][1], ref, n, { inputs: { generated: '\u0000heightbench-histogram:0' } });
    expect(metricsJsonText(doc)).toBe(JSON.stringify(doc, null, 2));
  });
});
