/**
 * The command line around the GPU page and the GPU run:
 *  - `heightbench gpu-page DIR` writes one self-contained index.html (no external script, style or link: it works
 *    offline), the same bytes on a second build;
 *  - `heightbench run REQ --backend webgpu` reports progress step by step through progress.ts (draw list, each
 *    executor stage in draw-list order, write, done), the same stage names timings.json records; quiet with --quiet
 *    and when stderr is not a terminal;
 *  - --stages picks what is read back and written: the other stages are computed, not written.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const bin = join(import.meta.dirname, '..', 'bin', 'heightbench.mjs');
const d = tempDir('hb-gpupage-cli-');
/** heightbench's own stderr lines (progress and errors); a Vulkan driver's own warnings (e.g. lavapipe's) are not ours. */
const own = (stderr: string) => stderr.split('\n').filter((l) => /^(run |heightbench)/.test(l));
const hb = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });

describe('heightbench gpu-page', () => {
  it('writes one self-contained page, the same bytes twice', () => {
    const a = hb(['gpu-page', join(d, 'a')]);
    const b = hb(['gpu-page', join(d, 'b')]);
    expect(a.status, a.stderr).toBe(0);
    expect(b.status, b.stderr).toBe(0);
    expect(readdirSync(join(d, 'a'))).toEqual(['index.html']);
    const html = readFileSync(join(d, 'a', 'index.html'), 'utf8');
    expect(readFileSync(join(d, 'b', 'index.html'), 'utf8') === html).toBe(true);
    // Everything inline: no script, stylesheet or other link by URL; the only module is inline.
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link[^>]*rel="stylesheet"/i);
    expect(html.match(/<script type="module">/g)?.length).toBe(1);
    expect(html).toMatch(/connect-src 'self' blob:/);
    // The executor's WGSL and the draw-list parser are in the bundle.
    expect(html).toContain('@fragment fn fs_filter_x');
    expect(html).toContain('heightbench-drawlist');
    // The adapter the page asks for: auto unless --adapter says otherwise (?adapter= on the address overrides it).
    expect(html).toContain('data-adapter="auto"');
    const c = hb(['gpu-page', join(d, 'c'), '--adapter', 'SwiftShader']);
    expect(c.status, c.stderr).toBe(0);
    expect(readFileSync(join(d, 'c', 'index.html'), 'utf8')).toContain('data-adapter="swiftshader"');
  });
});

describe('heightbench run --backend webgpu progress', () => {
  const stagesInOrder = ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode', 'final'];
  it('prints the draw list, each executor stage, the write and the end, as timings.json names them', () => {
    const out = join(d, 'p');
    const r = hb(['run', 'teaching-512', '--size', '64', '--backend', 'webgpu', '--out', out], { HEIGHTBENCH_PROGRESS: '1' });
    expect(r.status, r.stderr).toBe(0);
    const all = own(r.stderr);
    // One note with the list's counts, then the steps.
    expect(all.filter((l) => /webgpu: draw list: 1501 \+ 974 triangles/.test(l)).length).toBe(1);
    const lines = all.filter((l) => !l.includes('webgpu: draw list:'));
    const steps = lines.map((l) => /^run teaching-512 64² webgpu: (\S+)/.exec(l)?.[1]);
    expect(steps).toEqual(['drawlist', ...stagesInOrder, 'write', 'done']);
    // Each stage line carries a time and the running total.
    for (const l of lines.filter((x) => stagesInOrder.some((s) => x.includes(`webgpu: ${s} `))))
      expect(l).toMatch(/\d+\.\d+ s {3}\(total \d+\.\d+ s\) +\[\d+\/10, \d+ %, about [^\]]+ left\]$/);
    // How far it is: the draw list is step 1 of 10, the final stage step 9 (never 100 % before the end).
    expect(lines.find((l) => / webgpu: drawlist /.test(l))).toMatch(/\[1\/10, 10 %/);
    expect(lines.find((l) => / webgpu: final /.test(l))).toMatch(/\[9\/10, 90 %/);
    const timings = JSON.parse(readFileSync(join(out, 'timings.json'), 'utf8')).timingsMs as Record<string, number>;
    expect(Object.keys(timings)).toEqual(stagesInOrder);
  }, 120_000);

  it('is quiet with --quiet and when stderr is not a terminal', () => {
    const q = hb(['run', 'teaching-512', '--size', '64', '--backend', 'webgpu', '--out', join(d, 'q'), '--quiet'], { HEIGHTBENCH_PROGRESS: '' });
    expect(q.status, q.stderr).toBe(0);
    expect(own(q.stderr)).toEqual([]);
    const n = hb(['run', 'teaching-512', '--size', '64', '--backend', 'webgpu', '--out', join(d, 'n')], { HEIGHTBENCH_PROGRESS: '' });
    expect(n.status, n.stderr).toBe(0);
    expect(own(n.stderr)).toEqual([]);
  }, 120_000);

  it('--stages base,final writes those two fields only (the rest computed, not read back)', () => {
    const out = join(d, 's');
    const r = hb(['run', 'teaching-512', '--size', '64', '--backend', 'webgpu', '--stages', 'base,final', '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    const fields = readdirSync(out)
      .filter((f) => /\.(r32|r16)$/.test(f))
      .sort();
    expect(fields).toEqual(['base.r32', 'final.r16']);
    expect(existsSync(join(out, 'base.r32.json'))).toBe(true);
  }, 120_000);
});
