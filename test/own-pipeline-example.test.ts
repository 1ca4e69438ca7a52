/**
 * examples/own-pipeline: its declaration is a valid pipeline of its own names, and its committed metrics.json (what
 * `dvc repro` of the example wrote; make test reruns it and requires the same file) holds the attribution the planted
 * pixels must give: 125 differing codes, the 5 planted noise pixels the only origins, 120 propagated through smooth.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPipelineDeclaration } from '../src/pipelines/declaration.js';

const EXAMPLE = resolve(import.meta.dirname, '..', 'examples', 'own-pipeline');

describe('examples/own-pipeline', () => {
  it('declares its own four stages', () => {
    const d = readPipelineDeclaration(join(EXAMPLE, 'pipeline.yaml'));
    expect(d.stages.map((s) => s.name)).toEqual(['noise', 'smooth', 'shaped', 'final']);
    expect(d.stages[3].holds).toEqual({ kind: 'codes', encoding: 'unorm16', min: -200, max: 1800 });
    expect(d.masks).toBeUndefined();
  });

  it('its verified metrics name the 5 planted pixels as the only origins', () => {
    const m = JSON.parse(readFileSync(join(EXAMPLE, 'metrics.json'), 'utf8')) as Record<string, number>;
    expect(m['stageAttribution.differing']).toBe(125);
    expect(m['stageAttribution.origin.noise']).toBe(5);
    expect(m['stageAttribution.propagated.smooth.noise']).toBe(120);
    expect(Object.keys(m).filter((k) => k.startsWith('stageAttribution.origin.'))).toEqual(['stageAttribution.origin.noise']);
    expect(m['gates.passed']).toBe(1);
  });
});
