// -*- coding: utf-8 -*-
// %% [markdown]
// # 12 — Verify your own reconstruction (a template)
//
// Any staged heightmap pipeline can be verified, in its own terms: declare its stages (names, order, what each holds,
// causes, footprints — docs/pipelines.md), import your rebuild's dumps and the original's captures under those names,
// and check them. This notebook does it on `examples/own-pipeline`, a numpy reconstruction of a four-stage pipeline
// (`noise` → `smooth` → `shaped` → `final`) against an "original" that differs by 5 planted pixels and stores its
// rows north-up. **To use it on yours**, change the next cell: your declaration, how your dumps and captures are
// made (or where they are), and the conventions each file cannot carry (extent, row direction, code range).

// %%
import * as hb from './dist/api/notebook.js';
import { runCli } from './dist/api/cli.js';
import * as tslab from 'tslab';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const EXAMPLE = 'examples/own-pipeline';
const PIPELINE = join(EXAMPLE, 'pipeline.yaml'); // your declaration
const EXTENT = '-2048,-2048,4096'; // xmin,ymin,size in metres: a .npy cannot carry it
const ROWS = { rebuild: 'row0-at-ymin', original: 'row0-at-ymax' }; // the original stores rows north-up
// Everything this notebook writes goes to one work folder, replaced on every run.
const work = join('.cache', 'own-pipeline');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
// Your rebuild and the original's captures: here both come from the example's numpy script.
for (const side of ['rebuild', 'original']) {
  const r = spawnSync(join('.venv', 'bin', 'python'), [join(EXAMPLE, 'reconstruct.py'), side, join(work, side)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`reconstruct.py ${side}: ${r.stderr}`);
}
const pipeline = hb.readPipelineDeclaration(PIPELINE);
console.log(`pipeline ${pipeline.name}: ${pipeline.stages.map((s) => `${s.name} (${s.holds.kind}${s.footprint ? `, footprint ${JSON.stringify(s.footprint)}` : ''})`).join(' → ')}`);

// %% [markdown]
// ## Import both sides under the declared stage names
//
// Each capture is one `heightbench import FILE --stage NAME --pipeline FILE --out RUN_DIR` (a manifest does the same
// in one file). The run folder records the declaration (`pipeline.json`); `check` refuses two folders whose
// declarations differ.

// %%
const cli = async (...argv: string[]) => {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  if (code !== 0) throw new Error(`heightbench ${argv.join(' ')}: exit ${code}\n${err}`);
  return out;
};
const folders = { rebuild: join(work, 'generated'), original: join(work, 'reference') };
for (const side of ['rebuild', 'original'] as const)
  for (const s of pipeline.stages) {
    const file = join(work, side, `${s.name}.npy`);
    const codes = s.holds.kind === 'codes' ? ['--range', `${s.holds.min},${s.holds.max}`] : [];
    await cli('import', file, '--stage', s.name, '--pipeline', PIPELINE, '--extent', EXTENT, '--row-direction', ROWS[side], ...codes, '--out', folders[side]);
  }
console.log(readFileSync(join(folders.original, 'imports.json'), 'utf8').split('\n').slice(0, 12).join('\n'));

// %% [markdown]
// ## Attribute, trace origins
//
// Attribution walks the declared order: each differing code is given the stage where it first differs and that
// stage's declared cause, and — through the declared footprints — the stage its difference originates in. From a
// shell, `heightbench check generated reference --attribution --report report` prints the same lines and writes the
// report (its gallery leads with the originating pixels).

// %%
const sa = hb.attributeRunFolders(folders.rebuild, folders.original);
console.log(hb.attributionSummary(sa).join('\n'));
const names = hb.floatStageNames(pipeline);
const originating = names.map((s) => sa.origins?.byStage[s] ?? 0);
const propagated = names.map((s) => Object.values(sa.origins?.propagated[s] ?? {}).reduce((a, b) => a + b, 0));
tslab.display.html(
  hb.plotlyFigure(
    'f12-origins',
    [
      { type: 'bar', name: 'originate there', x: names, y: originating },
      { type: 'bar', name: 'propagated into it', x: names, y: propagated },
    ],
    { title: { text: `Differing codes by the stage they first differ at (${sa.differing} in all)` }, barmode: 'stack', xaxis: { title: { text: 'stage (declared order)' } }, yaxis: { title: { text: 'differing codes' } } },
    420,
  ),
);
// The example's answer: the 5 planted pixels are the only origins; their smoothing footprint (5 × 24) is propagated.
if (sa.differing !== 125 || sa.origins?.byStage.noise !== 5 || sa.origins?.propagated.smooth?.noise !== 120) throw new Error(`unexpected attribution ${JSON.stringify(sa)}`);
