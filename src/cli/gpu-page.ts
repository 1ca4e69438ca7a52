/**
 * `heightbench gpu-page DIR`: writes the static GPU reference page, DIR/index.html — `make
 * reproduce` writes it to reports/gpu/.
 *
 * The page runs the same WebGPU executor as `run --backend webgpu` (src/gpu: execute.ts and its passes, via
 * static-page.ts and page-ui.ts) on the viewer's GPU, on a draw list written by `heightbench drawlist REQ
 * --embed-assets --out FILE.json` (file button, drag and drop, or `?list=URL` on the page's own origin).
 * Build [R]: esbuild bundles one entry — the draw-list parser (src/drawlist/serial.ts), the producer name and version,
 *   the page UI — with ktx-parse into a single ES module, inlined into index.html with the styles, so the page is one
 *   self-contained file: it works offline, from file:// (no module fetch, which file:// pages may not do) or from
 *   any static server, and a Content-Security-Policy limits it to its own origin and the blobs it makes
 *   (connect-src 'self' blob:). esbuild is
 *   pinned in package.json; the same tree gives the same bytes (no time stamps; paths relative to the package).
 * The bundle is built from the modules beside this file: dist/ when the CLI runs compiled, src/ under tsx.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { writeFileAtomic } from '../io/atomic.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { CliExit, type CliIO, type CommandInstaller } from './io.js';
import { parseAdapterSpec } from '../gpu/adapter-select.js';
import { escapeHtml } from '../core/html.js';
import { pageCss, TEXT_TABLES } from '../report/page-style.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The page's missing build tool: the user's environment (exit 2). */
export class GpuPageBuildError extends Error {
  override readonly name = 'GpuPageBuildError';
  readonly exitCode = 2;
}

const ENTRY = `import { parseDrawList } from './drawlist/serial.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from './version.js';
import { startPageUi } from './gpu/page/page-ui.js';
startPageUi({ parse: parseDrawList, producer: { name: PRODUCER_NAME, version: PRODUCER_VERSION } });
`;

const STYLE = pageCss(`body{max-width:70em;color:#222}
h1{font-size:1.4em}code{background:#f3f3f3;padding:0 3px}
.drop{border:2px dashed #999;border-radius:6px;padding:1.2em;text-align:center;margin:1em 0;background:#fafafa}
.drop.over{border-color:#06c;background:#eef5ff}
#error{color:#a00;background:#fff0f0;border:1px solid #e99;padding:.6em;white-space:pre-wrap}
table{margin:1em 0}${TEXT_TABLES}.ok{color:#070}.run{color:#06c}.wait{color:#888}.bad{color:#a00}
a[download]{margin-right:.6em}canvas{border:1px solid #ccc;image-rendering:pixelated;width:min(100%,512px)}`);

/** The page's HTML around the bundled module `js`; `adapter`: the adapter spec the page asks for unless ?adapter= says otherwise. */
export function pageHtml(js: string, adapter = 'auto'): string {
  const script = js.replace(/<\/(script)/gi, '<\\/$1');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self' blob:; img-src data: blob:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>heightbench — GPU reference in your browser</title>
<style>${STYLE}</style></head>
<body data-state="idle" data-adapter="${escapeHtml(adapter)}">
<h1>heightbench — the GPU reference on this browser's GPU</h1>
<p>This page runs heightbench's WebGPU executor (the same WGSL and host code as <code>heightbench run REQUEST --backend webgpu</code>)
on a draw list, on the GPU this browser offers, and gives every stage field for download with its sidecar naming the adapter.
Write a list with <code>heightbench drawlist REQUEST --size N --embed-assets --out list.json</code>, then drop it here, pick it,
or serve it next to this page and open <code>index.html?list=list.json</code>. Nothing leaves this page: it makes no network request.</p>
<p id="adapter">Asking for a WebGPU adapter…</p>
<div id="drop" class="drop">Drop a draw list (.json) here, or <input id="list-input" type="file" accept=".json,application/json"></div>
<p id="status">No draw list yet.</p>
<p id="summary"></p>
<div id="error" hidden></div>
<table><thead><tr><th>stage</th><th>status</th><th>time</th><th>split</th><th>downloads (field, sidecar)</th></tr></thead><tbody id="stages"></tbody></table>
<p>Files are named as <code>run --backend webgpu</code> names them (<code>STAGE.r32</code>: float32 little-endian, row 0 = the grid's ymin;
<code>final.r16</code>: UNORM16 little-endian), so a folder of them can be compared with <code>heightbench check</code>.
Times include reading each field back from the GPU. The preview shows the final codes, stretched from the lowest to the highest code present, north up.</p>
<canvas id="preview" hidden></canvas>
<script type="module">${script}</script>
</body></html>
`;
}

/** Bundles the page's module (esbuild) and returns the HTML. */
export async function buildGpuPage(adapter = 'auto'): Promise<string> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch (e) {
    throw new GpuPageBuildError(
      `the GPU page is bundled with the npm package esbuild, which did not load (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); run \`npm ci\` (it is a devDependency)`,
    );
  }
  const srcRoot = join(here, '..');
  const pkgRoot = join(srcRoot, '..');
  const ts = !existsSync(join(srcRoot, 'gpu', 'page', 'page-ui.js'));
  const out = await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: srcRoot, loader: ts ? 'ts' : 'js', sourcefile: `gpu-page-entry.${ts ? 'ts' : 'js'}` },
    absWorkingDir: pkgRoot,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'inline',
    logLevel: 'silent',
  });
  if (out.outputFiles.length !== 1) throw new Error(`gpu-page: esbuild gave ${out.outputFiles.length} output files, expected 1`);
  return pageHtml(out.outputFiles[0].text, adapter);
}

export async function gpuPageCommand(dir: string, io: CliIO, adapter = 'auto'): Promise<number> {
  const html = await buildGpuPage(parseAdapterSpec(adapter));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'index.html');
  writeFileAtomic(path, html);
  io.out(`GPU reference page (${PRODUCER_NAME} ${PRODUCER_VERSION}, ${(html.length / 1024).toFixed(0)} KiB, self-contained) → ${path}\n`);
  return 0;
}

export const installGpuPage: CommandInstaller = (program: Command, io: CliIO) => {
  program
    .command('gpu-page')
    .description('write the static GPU reference page (DIR/index.html): runs a draw list on the viewer’s GPU, offers every stage for download')
    .argument('<dir>', 'output folder (make reproduce uses reports/gpu)')
    .option(
      '--adapter <a>',
      "the adapter the page asks for: auto (a hardware adapter when the browser has one, else SwiftShader), swiftshader, or a part of its name; ?adapter= on the page's address overrides it",
      'auto',
    )
    .action(async (dir: string, o: { adapter: string }) => {
      throw new CliExit(await gpuPageCommand(dir, io, o.adapter));
    });
};
