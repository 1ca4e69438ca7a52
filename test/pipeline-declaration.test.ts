/**
 * Pipeline declarations (src/pipelines/): the validator's refusals (key path, expected, found), the hardened readers
 * (YAML and JSON files), the seed declaration built from the executors' own constants, the bell generator's and the
 * engine heightfield's declarations, and the first difference of two declarations.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONVENTIONS, STAGES } from '../src/conventions/index.js';
import { DEFAULT_MASKS, maskDefinitions } from '../src/compare/masks.js';
import { ARTICLE_STAGE_ANCHORS_MM } from '../src/pipelines/seed.js';
import { FormatError } from '../src/errors.js';
import {
  firstDeclarationDifference,
  floatStageNames,
  parsePipelineDeclaration,
  pipelineJson,
  readPipelineDeclaration,
  stageFileName,
  undeclaredStageFiles,
} from '../src/pipelines/declaration.js';
import { SEED_PIPELINE } from '../src/pipelines/seed.js';
import { bellPipeline } from '../src/bell/pipeline.js';
import { engineHeightfieldPipeline } from '../src/terrain/pipeline.js';
import { LayerStack } from '../src/terrain/layers.js';
import { tempDir } from './helpers.js';

const FOUR = {
  version: 1,
  name: 'my-terrain',
  stages: [
    { name: 'noise', holds: { kind: 'float', unit: 'm' }, cause: 'the noise octaves', footprint: { pixels: 0 } },
    { name: 'smooth', holds: { kind: 'float', unit: 'm' }, footprint: { pixels: 2 } },
    { name: 'shaped', holds: { kind: 'float', unit: 'm' }, footprint: { metres: 0 } },
    { name: 'final', holds: { kind: 'codes', encoding: 'unorm16', min: -200, max: 1800 }, encodedFrom: 'shaped' },
  ],
};

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const refusal = (doc: unknown): string => {
  try {
    parsePipelineDeclaration(doc, 'p.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    return (e as Error).message;
  }
  throw new Error('accepted');
};

describe('pipeline declaration: the validator', () => {
  it('accepts a four-stage pipeline of its own names and keeps its order', () => {
    const d = parsePipelineDeclaration(FOUR);
    expect(d.stages.map((s) => s.name)).toEqual(['noise', 'smooth', 'shaped', 'final']);
    expect(floatStageNames(d)).toEqual(['noise', 'smooth', 'shaped']);
    expect(d.stages.map(stageFileName)).toEqual(['noise.r32', 'smooth.r32', 'shaped.r32', 'final.r16']);
    expect(Object.isFrozen(d.stages[1].footprint)).toBe(true);
  });

  it('refuses each broken rule naming the key, what it expected and what it found', () => {
    const cases: [(d: typeof FOUR & Record<string, unknown>) => void, RegExp][] = [
      [(d) => void (d.version = 2), /^p\.yaml\.version: expected 1, found 2$/],
      [(d) => void (d.stages[1].name = 'noise'), /stages\[1\]\.name: expected a name not used before \(stages\[0\] is "noise"\), found "noise"/],
      [(d) => void (d.stages[1].name = 'NOISE'), /stages\[1\]\.name: expected a name not used before/],
      [(d) => void (d.stages[1].name = '../x'), /stages\[1\]\.name: expected a name of 1–100 characters.*found "\.\.\/x"/],
      [(d) => void (d.stages[1].name = 'final-only'), /stages\[1\]\.name: expected a name other than final-only, outside-window/],
      [(d) => void ((d.stages[0].holds as Record<string, unknown>).kind = 'int'), /stages\[0\]\.holds\.kind: expected one of "float", "codes", found "int"/],
      [(d) => void ((d.stages[3].holds as Record<string, unknown>).max = -300), /stages\[3\]\.holds\.max: expected a number above min \(-200\), found -300/],
      [(d) => void (d.stages[3].encodedFrom = 'later'), /stages\[3\]\.encodedFrom: expected an earlier stage \(one of noise, smooth, shaped\), found "later"/],
      [
        (d) => void (d.stages[1].footprint = { pixels: 1, metres: 2 } as never),
        /stages\[1\]\.footprint: unknown key|stages\[1\]\.footprint: expected exactly one of pixels, metres/,
      ],
      [(d) => void (d.stages[1].footprint = { pixels: -1 }), /stages\[1\]\.footprint\.pixels: expected a number in \[0, 65536\], found -1/],
      [(d) => void ((d.stages[0] as Record<string, unknown>).colour = 'red'), /stages\[0\]: unknown key "colour"/],
      [(d) => void (d.stages = d.stages.slice(0, 3)), /stages\[2\]\.holds\.kind: expected "codes" \(the last stage is the encoded map/],
      [(d) => void d.stages.push(clone(d.stages[3])), /stages\[3\]\.holds\.kind: expected "float" \(only the last stage holds codes\)/],
      [(d) => void (d.stages[0].cause = 'two\nlines'), /stages\[0\]\.cause: expected a line of 1–200 characters without control characters/],
      [
        (d) => void (d.anchors = [{ stage: 'smooth', mask: 'disk', rmsMm: 1, basis: 'x' }]),
        /anchors\[0\]\.mask: expected a declared mask \(none declared\), found "disk"/,
      ],
      [(d) => void (d.masks = [{ name: 'ring', kind: 'annulus', inner: 5, outer: 5 }]), /masks\[0\]\.outer: expected a radius above inner \(5\), found 5/],
      [(d) => void (d.stages = []), /stages: expected 1 to 64 stages, found "0 stages"/],
    ];
    for (const [edit, want] of cases) {
      const d = clone(FOUR) as typeof FOUR & Record<string, unknown>;
      edit(d);
      expect(refusal(d)).toMatch(want);
    }
  });

  it('reads YAML and JSON files through the hardened readers, and refuses an alias bomb and a deep nesting', () => {
    const dir = tempDir();
    const y = join(dir, 'p.yaml');
    writeFileSync(
      y,
      'version: 1\nname: my-terrain\nstages:\n  - name: noise\n    holds: { kind: float, unit: m }\n  - name: final\n    holds: { kind: codes, encoding: unorm16, min: -200, max: 1800 }\n    encodedFrom: noise\n',
    );
    expect(readPipelineDeclaration(y).stages.map((s) => s.name)).toEqual(['noise', 'final']);
    const j = join(dir, 'p.json');
    writeFileSync(j, pipelineJson(parsePipelineDeclaration(FOUR)));
    expect(readPipelineDeclaration(j)).toEqual(parsePipelineDeclaration(FOUR));
    const bomb = join(dir, 'bomb.yaml');
    writeFileSync(bomb, `a: &a [x, x]\n${Array.from({ length: 120 }, (_, i) => `b${i}: *a`).join('\n')}\n`);
    expect(() => readPipelineDeclaration(bomb)).toThrow(/not valid YAML/);
    const deep = join(dir, 'deep.yaml');
    writeFileSync(deep, `${'['.repeat(100)}${']'.repeat(100)}\n`);
    expect(() => readPipelineDeclaration(deep)).toThrow(/nested deeper than 64 levels/);
    writeFileSync(y, 'version: 1\nname: x\nname: y\n');
    expect(() => readPipelineDeclaration(y)).toThrow(/not valid YAML/);
  });

  it('names the first difference of two declarations', () => {
    const a = parsePipelineDeclaration(FOUR);
    const b = clone(FOUR);
    b.stages[1].footprint = { pixels: 3 };
    expect(firstDeclarationDifference(a, parsePipelineDeclaration(b))).toBe('stages[1].footprint.pixels: 2 vs 3');
    const c = clone(FOUR);
    c.stages.splice(2, 1);
    c.stages[2].encodedFrom = 'smooth';
    expect(firstDeclarationDifference(a, parsePipelineDeclaration(c))).toBe('stages[2].name: "shaped" vs "final"');
    expect(firstDeclarationDifference(a, parsePipelineDeclaration(clone(FOUR)))).toBeNull();
  });

  it('lists the heightfield files of a folder that no stage declares', () => {
    const dir = tempDir();
    for (const f of ['noise.r32', 'noise.r32.json', 'final.r16', 'erosion.r32', 'final.png', 'smooth.r16']) writeFileSync(join(dir, f), '');
    expect(undeclaredStageFiles(dir, parsePipelineDeclaration(FOUR))).toEqual(['erosion.r32', 'smooth.r16']);
  });
});

describe('pipeline declaration: the three families', () => {
  it('declares the seed pipeline from the constants the executors, masks and reports use', () => {
    expect(SEED_PIPELINE.stages.map((s) => s.name)).toEqual([...STAGES]);
    expect(SEED_PIPELINE.stages.map(stageFileName).slice(-2)).toEqual(['pre-encode.r32', 'final.r16']);
    expect(SEED_PIPELINE.stages.at(-1)).toMatchObject({
      holds: { kind: 'codes', encoding: 'unorm16', min: DEFAULT_CONVENTIONS.encoding.min, max: DEFAULT_CONVENTIONS.encoding.max },
      encodedFrom: 'pre-encode',
    });
    const masks = Object.fromEntries((SEED_PIPELINE.masks ?? []).map(({ name, ...m }) => [name, m]));
    expect(masks).toEqual(maskDefinitions(DEFAULT_MASKS));
    expect(Object.fromEntries((SEED_PIPELINE.anchors ?? []).map((a) => [a.stage, a.rmsMm]))).toEqual(ARTICLE_STAGE_ANCHORS_MM);
    expect(SEED_PIPELINE.stages.every((s) => s.footprint === undefined)).toBe(true);
    // The declaration is a valid document of its own: written and read back, the same.
    expect(parsePipelineDeclaration(JSON.parse(pipelineJson(SEED_PIPELINE)))).toEqual(SEED_PIPELINE);
  });

  it('declares the bell generator with its own range and no masks', () => {
    const d = bellPipeline({ min: 0, max: 2 });
    expect(d.stages.map((s) => s.name)).toEqual(['bells-first-half', 'bells-all', 'final']);
    expect(d.stages[2].holds).toEqual({ kind: 'codes', encoding: 'unorm16', min: 0, max: 2 });
    expect(d.masks).toBeUndefined();
  });

  it("declares the engine heightfield's layers in stack order", () => {
    const stack = new LayerStack(4, 4, new Float32Array(16), { min: -10, max: 10 });
    stack.addLayer('roads');
    stack.addLayer('sculpt pass/2');
    const d = engineHeightfieldPipeline(stack);
    expect(d.stages.map((s) => s.name)).toEqual(['base', 'layer0-roads', 'layer1-sculpt_pass_2', 'composite', 'r16']);
    expect(d.stages[2].cause).toBe('layer 1 "sculpt pass/2" (sculpt)');
  });
});
