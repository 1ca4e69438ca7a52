/**
 * Gate names agree across the API, the CLI and params.yaml (issue 25): minExact, maxCode, maxRmsMm. Every gate key
 * params.yaml holds is one the API knows; the CLI's flags are those names in kebab case; an unknown key (a misspelling
 * in plain JavaScript) or a value that is not a number is refused with a UsageError naming it, before any file is read;
 * the earlier API name minExactPercent still works and means the same gate.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkRun } from '../src/runs/check.js';
import { compareHeightfields } from '../src/compare/compare.js';
import { GATE_NAMES, evaluateGates, normaliseGates } from '../src/compare/gates.js';
import { domainGrid } from '../src/core/grid.js';
import { codeHeightfield } from '../src/core/heightfield.js';
import { UsageError } from '../src/errors.js';
import { cli } from './helpers.js';

const root = resolve(import.meta.dirname, '..');
const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

describe('gate names', () => {
  it('params.yaml uses the API names, and the CLI the same names in kebab case', async () => {
    const p = parse(readFileSync(join(root, 'params.yaml'), 'utf8')) as { gates: Record<string, number>; gpu: { gates: Record<string, number> } };
    for (const k of [...Object.keys(p.gates), ...Object.keys(p.gpu.gates)]) expect(GATE_NAMES).toContain(k);
    const help = (await cli('check', '--help')).out;
    // The non-finite gate's flag is spelt --max-nonfinite (the name its issue gives); every other is the key in kebab case.
    for (const k of GATE_NAMES) expect(help).toContain(`--${k === 'maxNonFinite' ? 'max-nonfinite' : kebab(k)} `);
    const dvc = readFileSync(join(root, 'dvc.yaml'), 'utf8');
    for (const m of dvc.matchAll(/--([a-z-]+) \$\{(?:gpu\.)?gates\.(\w+)\}/g)) expect(m[1]).toBe(kebab(m[2]));
  });

  it('refuses an unknown gate key and a non-number, naming them; minExactPercent is minExact', () => {
    expect(() => normaliseGates({ minExactPct: 99 })).toThrow(UsageError);
    expect(() => normaliseGates({ minExactPct: 99 })).toThrow(/unknown gate "minExactPct": expected one of minExact, maxCode, maxRmsMm/);
    expect(() => normaliseGates({ maxCode: '1' })).toThrow(/gate maxCode = "1": expected a finite number/);
    expect(() => normaliseGates({ minExact: 99, minExactPercent: 98 })).toThrow(/disagree/);
    // A 4×4 pair with one code off by one: 15 of 16 equal (93.75 %).
    const grid = domainGrid(4);
    const a = new Uint16Array(16).fill(1000);
    const b = a.slice();
    b[5] = 1001;
    const r = compareHeightfields(codeHeightfield(grid, a), codeHeightfield(grid, b));
    expect(r.exactPercent).toBe(93.75);
    const [x] = evaluateGates(r, { minExact: 95 });
    const [y] = evaluateGates(r, { minExactPercent: 95 });
    expect(x).toEqual({ name: 'exact codes %', limit: '≥ 95', value: 93.75, passed: false });
    expect(y).toEqual(x);
    expect(() => checkRun('/nonexistent/gen', '/nonexistent/ref', { maxRms: 1 } as never)).toThrow(/unknown gate "maxRms"/);
  });
});
