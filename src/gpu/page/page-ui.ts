/**
 * The static GPU page's user interface (reports/gpu/index.html, built by `heightbench gpu-page DIR`): binds the
 * page's elements to static-page.ts. A person drops or picks a draw list (or names one with `?list=URL`, a file on the
 * page's own origin), sees the adapter, each stage's progress and time, and downloads each stage field with its
 * sidecar and the final R16.
 *
 * Inputs: the page's elements by id — adapter, list-input, drop, status, summary, error, stages (a tbody), preview
 *   (a canvas) — and the entry's dependencies (the draw-list parser and the producer; src/gpu imports nothing
 *   from the rest of heightbench, so the entry passes them in).
 * Outputs: the page's state in document.body.dataset.state: 'idle' | 'running' | 'done' | 'error' (for a person's
 *   eye via CSS, and for the headless test, which waits on it).
 * [R] Errors are shown on the page, never thrown to the console: a missing WebGPU adapter, a list that does not
 *   parse, a list without embedded assets each name the reason. The DOM is typed by the few members used here (the
 *   project compiles without the DOM library).
 */
import type { DrawList, DrawListStage } from '../../drawlist/types.js';
import { adapterRecord } from '../context.js';
import type { StageEvent } from '../execute.js';
import { PAGE_HINT, runListOnGpu, type PageFile, type PageProducer } from './static-page.js';
import { parseAdapterSpec, requestMatchingAdapter } from '../adapter-select.js';

interface DomEvent {
  preventDefault(): void;
  dataTransfer?: { files: ArrayLike<FileLike> } | null;
}
interface FileLike {
  name: string;
  size: number;
  text(): Promise<string>;
}
interface El {
  textContent: string | null;
  hidden: boolean;
  className: string;
  dataset: Record<string, string | undefined>;
  append(...nodes: (El | string)[]): void;
  replaceChildren(...nodes: (El | string)[]): void;
  addEventListener(type: string, fn: (ev: DomEvent) => void): void;
  setAttribute(name: string, value: string): void;
}
interface Anchor extends El {
  href: string;
  download: string;
}
interface FileInput extends El {
  files: ArrayLike<FileLike> | null;
}
interface ImageDataLike {
  data: Uint8ClampedArray;
}
interface Canvas extends El {
  width: number;
  height: number;
  getContext(kind: '2d'): { createImageData(w: number, h: number): ImageDataLike; putImageData(img: ImageDataLike, x: number, y: number): void } | null;
}
interface Doc {
  getElementById(id: string): El | null;
  createElement(tag: string): El;
  body: El;
}
interface Win {
  document: Doc;
  location: { href: string; search: string; origin: string; protocol: string };
  navigator: { gpu?: GPU };
}

export interface PageUiDeps {
  /** Text of a serialised draw list → a validated DrawList (src/drawlist/serial.ts parseDrawList). */
  parse: (text: string, what?: string) => DrawList;
  producer: PageProducer;
}

/** Stage rows in execution order — written here independently on purpose: src/gpu is the independent reference and reads nothing of src/conventions. */
const STAGES: readonly DrawListStage[] = ['raster-layer0', 'raster', 'base', 'after-support', 'after-stamps', 'after-locations', 'pre-encode', 'final'];
/** Longest side of the preview canvas, pixels. */
const PREVIEW_MAX = 512;

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 3 : 1)} s`;

export function startPageUi(deps: PageUiDeps): void {
  const w = globalThis as unknown as Win;
  const doc = w.document;
  const el = <T extends El = El>(id: string) => {
    const e = doc.getElementById(id);
    if (!e) throw new Error(`GPU page: element #${id} is missing`);
    return e as T;
  };
  const make = <T extends El = El>(tag: string, text?: string, cls?: string) => {
    const e = doc.createElement(tag) as T;
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  const state = (s: 'idle' | 'running' | 'done' | 'error') => (doc.body.dataset.state = s);
  // The adapter spec: ?adapter= on the page's address, else the one `gpu-page --adapter` wrote (data-adapter), else auto.
  const adapterSpec = () => parseAdapterSpec(new URLSearchParams(w.location.search).get('adapter') ?? doc.body.dataset.adapter ?? 'auto');
  const status = el('status');
  const errorBox = el('error');
  const summary = el('summary');
  const tbody = el('stages');
  let urls: string[] = [];
  let busy = false;

  const fail = (what: string, e: unknown) => {
    errorBox.hidden = false;
    errorBox.textContent = `${what}: ${e instanceof Error ? e.message : String(e)}`;
    status.textContent = 'Stopped.';
    state('error');
  };

  // The adapter, shown before any list is loaded (a fresh adapter is requested for each run).
  const showAdapter = async () => {
    const box = el('adapter');
    const gpu = w.navigator.gpu;
    if (!gpu) {
      box.textContent = `No WebGPU in this browser: ${PAGE_HINT}.`;
      return;
    }
    let adapter: GPUAdapter | null;
    try {
      adapter = await requestMatchingAdapter(gpu, adapterSpec(), PAGE_HINT);
    } catch (e) {
      box.textContent = e instanceof Error ? e.message : String(e);
      return;
    }
    if (!adapter) {
      box.textContent = `WebGPU is present but offers no adapter: ${PAGE_HINT}.`;
      return;
    }
    const r = adapterRecord(adapter, 'browser');
    const need = ['float32-filterable', 'float32-blendable'].filter((f) => !r.features.includes(f));
    box.replaceChildren(
      make('b', 'Adapter: '),
      `vendor ${r.vendor || '(not reported)'}, architecture ${r.architecture || '(not reported)'}, device ${r.device || '(not reported)'}, description ${r.description || '(not reported)'}`,
      need.length ? make('span', ` — lacks ${need.join(', ')}: the reference cannot run here`, 'bad') : ' — offers float32-filterable and float32-blendable',
    );
  };

  const rows = new Map<DrawListStage, { status: El; time: El; split: El; files: El }>();
  const resetTable = () => {
    for (const u of urls) URL.revokeObjectURL(u);
    urls = [];
    rows.clear();
    tbody.replaceChildren();
    for (const s of STAGES) {
      const tr = make('tr');
      const r = { status: make('td', 'waiting', 'wait'), time: make('td', ''), split: make('td', ''), files: make('td', '') };
      tr.append(make('td', s), r.status, r.time, r.split, r.files);
      tbody.append(tr);
      rows.set(s, r);
    }
  };

  const onProgress = (e: StageEvent) => {
    const r = rows.get(e.stage);
    if (!r) return;
    if (e.phase === 'start') {
      r.status.textContent = 'running';
      r.status.className = 'run';
      status.textContent = `Running ${e.stage}…`;
      return;
    }
    r.status.textContent = 'done';
    r.status.className = 'ok';
    r.time.textContent = seconds(e.ms);
    r.split.textContent = e.stage === 'final' ? 'encode + read-back' : `GPU ${seconds(e.gpuMs)}, read-back ${seconds(e.readbackMs)}`;
  };

  const link = (name: string, bytes: Uint8Array | string, type: string) => {
    const a = make<Anchor>('a', name);
    const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer> | string], { type }));
    urls.push(url);
    a.href = url;
    a.download = name;
    return a;
  };

  const onFile = (f: PageFile, dl: DrawList) => {
    const r = rows.get(f.stage);
    if (!r) return;
    r.files.replaceChildren(link(f.name, f.bytes, 'application/octet-stream'), ' ', link(`${f.name}.json`, f.sidecar, 'application/json'));
    if (f.stage === 'final') preview(f.bytes, dl.grid.n);
  };

  // Final codes as grey levels stretched from the lowest to the highest code present (terrain uses a small part of
  // the encoding range), north up: the file's row 0 is ymin, drawn at the bottom.
  const preview = (bytes: Uint8Array, n: number) => {
    const canvas = el<Canvas>('preview');
    const step = Math.max(1, Math.ceil(n / PREVIEW_MAX));
    const m = Math.floor(n / step);
    canvas.width = m;
    canvas.height = m;
    const g = canvas.getContext('2d');
    if (!g) return;
    const img = g.createImageData(m, m);
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let lo = 65535; // the largest R16 code, written here on purpose (src/gpu does not read the conventions)
    let hi = 0;
    for (let k = 0; k < n * n; k++) {
      const c = dv.getUint16(2 * k, true);
      if (c < lo) lo = c;
      if (c > hi) hi = c;
    }
    const scale = hi > lo ? 255 / (hi - lo) : 0;
    for (let y = 0; y < m; y++) {
      const j = (m - 1 - y) * step;
      for (let x = 0; x < m; x++) {
        const v = Math.round((dv.getUint16(2 * (j * n + x * step), true) - lo) * scale);
        const o = 4 * (y * m + x);
        img.data[o] = img.data[o + 1] = img.data[o + 2] = v;
        img.data[o + 3] = 255;
      }
    }
    g.putImageData(img, 0, 0);
    canvas.hidden = false;
  };

  const run = async (text: string, what: string) => {
    if (busy) return;
    busy = true;
    errorBox.hidden = true;
    el<Canvas>('preview').hidden = true;
    resetTable();
    state('running');
    try {
      status.textContent = `Reading ${what}…`;
      let dl: DrawList;
      try {
        dl = deps.parse(text, what);
      } catch (e) {
        return fail(`${what} is not a heightbench draw list`, e);
      }
      const c = dl.raster.layers;
      summary.textContent =
        `${dl.request.id} (world ${dl.request.world}, seed ${dl.request.seed}) at ${dl.grid.n}² over ${dl.grid.size} m; ` +
        `${c[0].count} + ${c[1].count} triangles, ${dl.support.locations.length} support locations, ${dl.stamps.draws.length} stamps, ` +
        `${dl.locations.draws.length} location textures, ${dl.assets.length} assets; list by ${dl.producer.name} ${dl.producer.version}.`;
      const t0 = performance.now();
      const res = await runListOnGpu(w.navigator.gpu, dl, deps.producer, { progress: onProgress, file: (f) => onFile(f, dl) }, 'browser', adapterSpec());
      const a = res.adapter;
      const name = [a.vendor, a.architecture, a.device, a.description].filter(Boolean).join(' / ');
      status.textContent = `Done in ${seconds(performance.now() - t0)} on ${name}; measured vertex snapping: ${a.subpixelBits ?? '?'} fraction bits.`;
      state('done');
    } catch (e) {
      fail('The GPU run failed', e);
    } finally {
      busy = false;
    }
  };

  const takeFile = async (files: ArrayLike<FileLike> | null | undefined) => {
    const f = files?.[0];
    if (!f) return;
    await run(await f.text(), f.name);
  };

  resetTable();
  state('idle');
  showAdapter().catch((e) => fail('Asking for a WebGPU adapter failed', e));
  const input = el<FileInput>('list-input');
  input.addEventListener('change', () => void takeFile(input.files));
  const drop = el('drop');
  drop.addEventListener('dragover', (ev) => {
    ev.preventDefault();
    drop.className = 'drop over';
  });
  drop.addEventListener('dragleave', () => (drop.className = 'drop'));
  drop.addEventListener('drop', (ev) => {
    ev.preventDefault();
    drop.className = 'drop';
    void takeFile(ev.dataTransfer?.files);
  });

  // ?list=URL: a list on the page's own origin (e.g. next to the page).
  const q = new URLSearchParams(w.location.search).get('list');
  if (q) {
    let url: URL;
    try {
      url = new URL(q, w.location.href);
    } catch (e) {
      fail(`?list=${q} is not a URL`, e);
      return;
    }
    if (w.location.protocol === 'file:') {
      fail(
        `?list=${q}`,
        new Error(
          'a page opened from a file cannot fetch another file; serve the folder over HTTP (e.g. `python3 -m http.server`) or pick the list with the button',
        ),
      );
    } else if (url.origin !== w.location.origin) {
      fail(`?list=${q}`, new Error(`the list must be on the page's own origin ${w.location.origin}, got ${url.origin}`));
    } else {
      status.textContent = `Fetching ${url.pathname}…`;
      fetch(url)
        .then(async (r) => {
          if (!r.ok) throw new Error(`HTTP ${r.status} for ${url.pathname}`);
          await run(await r.text(), url.pathname.split('/').pop() || url.pathname);
        })
        .catch((e) => fail(`Fetching ?list=${q} failed`, e));
    }
  }
}
