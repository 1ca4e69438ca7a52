/**
 * The comparison page's viewer: three canvases (Δq, generated, reference) with linked pan and zoom, tiles at full
 * resolution loaded by zoom level, a hover read-out, blink, and the jumps the page offers (the largest |Δq|, a pixel,
 * a gallery card). No library; works offline and from file://.
 *
 * Inputs: the page's viewer data (page-data.ts) and its elements by id — vdiff, vgen, vref (canvases), vread, vstatus,
 *   vzoom, vlabel-gen, vreset, vmax, vblink, vgo, vpix — and `a[data-goto]` links; tile files call HB_TILE(key, w, h,
 *   deflated base64) (report-maps.ts writes them), loaded as scripts or, in a self-contained page, from
 *   `<script id="tiles-GROUP" type="text/plain">`.
 * Outputs, for a person and for the Chromium tests: each canvas's data-drawn, the Δq canvas's data-marked (outlines
 *   drawn zoomed in), the read-out's data-pixel, data-dq, data-gen, data-ref, body's data-viewer ('loading' | 'ready')
 *   and data-first-draw-ms, and window.HB ({ zoomTo, view, tilesLoaded }).
 */
import { byId, pageWindow, type CanvasElement, type InputElement, type PageEvent } from './dom.js';
import type { ViewerData } from './page-data.js';

/** A tile at full resolution: reference codes, generated − reference (mod 2^16), first divergent stage + 1 (0: none). */
interface Tile {
  w: number;
  h: number;
  ref: Uint16Array;
  d: Uint16Array;
  st: Uint8Array;
}

/** A pixel's values: full resolution where its tile is loaded, else its overview block's. */
type PixelValues = { full: true; ref: number; gen: number; st: number } | { full: false; block: number; ogen: number; oref: number };

/** Map column x and display row y (0 = top = north) at the canvas's left and top edges; s screen pixels per map pixel. */
export interface ViewState {
  x: number;
  y: number;
  s: number;
}

interface ViewerWindow {
  HB_TILE: (key: string, w: number, h: number, s: string) => Promise<void>;
  HB: { zoomTo(i: number, j: number, s: number): void; readonly view: ViewState; tilesLoaded(): number };
}

/** Codes stored as the difference to their west, north and north-west neighbours' prediction (low bytes, then high). */
function unpredict(b: Uint8Array, at: number, w: number, h: number): Uint16Array {
  const n = w * h;
  const v = new Uint16Array(n);
  for (let j = 0; j < h; j++)
    for (let i = 0; i < w; i++) {
      const k = j * w + i;
      const a = i > 0 ? v[k - 1] : 0;
      const up = j > 0 ? v[k - w] : 0;
      const c = i > 0 && j > 0 ? v[k - w - 1] : 0;
      const p = i > 0 && j > 0 ? a + up - c : i > 0 ? a : up;
      v[k] = (p + (b[at + k] | (b[at + n + k] << 8))) & 65535;
    }
  return v;
}

/** Draws the viewer, wires its controls, then calls `afterFirstDraw` (the page loads Plotly then). */
export async function startViewer(V: ViewerData, afterFirstDraw: () => void): Promise<void> {
  const win = pageWindow();
  const doc = win.document;
  const hb = win as unknown as ViewerWindow;
  const u8 = (s: string) => Uint8Array.from(win.atob(s), (c) => c.charCodeAt(0));
  const inflate = async (s: string) =>
    new Uint8Array(await new win.Response(new win.Blob([u8(s)]).stream().pipeThrough(new win.DecompressionStream('deflate'))).arrayBuffer());
  const lut = u8(V.lut);
  const ter = u8(V.terrain);
  const block = new Int32Array((await inflate(V.block)).buffer);
  const ogen = unpredict(await inflate(V.ogen), 0, V.ow, V.oh);
  const oref = unpredict(await inflate(V.oref), 0, V.ow, V.oh);
  const T = V.tile;
  const have = new Set(V.tiles);
  const tiles = new Map<string, Tile>();
  const asked = new Set<string>();
  const outliers = V.outliers;
  const cv = ['vdiff', 'vgen', 'vref'].map((id) => byId<CanvasElement>(doc, id));
  const N = cv[0].width;
  // View: map pixel column i and display row r (0 = top = north) at screen (sx, sy) = ((i - x) * s, (r - y) * s).
  let view: ViewState = { x: 0, y: 0, s: N / Math.max(V.W, V.H) };
  let hover: { i: number; r: number } | null = null;
  let blinkOn = false;
  let blinkRef = false;
  let pending = 0;
  const dataRow = (r: number) => (V.row0AtBottom ? V.H - 1 - r : r);
  const values = (i: number, j: number): PixelValues => {
    const t = tiles.get(`${(i / T) | 0}_${(j / T) | 0}`);
    if (t) {
      const k = (j % T) * t.w + (i % T);
      return { full: true, ref: t.ref[k], gen: (t.ref[k] + t.d[k]) & 65535, st: t.st[k] };
    }
    const b = ((j / V.f) | 0) * V.ow + ((i / V.f) | 0);
    return { full: false, block: block[b], ogen: ogen[b], oref: oref[b] };
  };
  let hlo = V.codeLo;
  let hhi = V.codeHi;
  const dqRgb = (d: number): [number, number, number] => {
    const k = (Math.max(-V.lutA, Math.min(V.lutA, d)) + V.lutA) * 3;
    return [lut[k], lut[k + 1], lut[k + 2]];
  };
  const hRgb = (q: number): [number, number, number] => {
    const t = hhi > hlo ? (q - hlo) / (hhi - hlo) : 0.5;
    const k = Math.max(0, Math.min(255, Math.round(t * 255))) * 3;
    return [ter[k], ter[k + 1], ter[k + 2]];
  };

  function draw(): void {
    // Zoomed in, the terrain scale spans the heights in view (both panels on one scale); zoomed out, the whole map's.
    hlo = V.codeLo;
    hhi = V.codeHi;
    if (view.s >= 0.5) {
      let a = 65535;
      let b = 0;
      for (let sy = 0; sy < N; sy += 4) {
        const r = Math.floor(view.y + (sy + 0.5) / view.s);
        if (r < 0 || r >= V.H) continue;
        for (let sx = 0; sx < N; sx += 4) {
          const i = Math.floor(view.x + (sx + 0.5) / view.s);
          if (i < 0 || i >= V.W) continue;
          const v = values(i, dataRow(r));
          for (const q of v.full ? [v.gen, v.ref] : [v.ogen, v.oref]) {
            if (q < a) a = q;
            if (q > b) b = q;
          }
        }
      }
      if (b > a) {
        hlo = a;
        hhi = b;
      }
    }
    // A screen pixel wider than a block: the largest |Δq| of every block it covers (no difference is skipped).
    const pool = 1 / view.s / V.f;
    const pooled = (i: number, r: number) => {
      const b0 = (i / V.f) | 0;
      const b1 = Math.min(V.ow - 1, ((i + 1 / view.s) / V.f) | 0);
      const j0 = dataRow(r);
      const j1 = dataRow(Math.min(V.H - 1, Math.floor(r + 1 / view.s)));
      const c0 = (Math.min(j0, j1) / V.f) | 0;
      const c1 = Math.min(V.oh - 1, (Math.max(j0, j1) / V.f) | 0);
      let m = 0;
      for (let bj = c0; bj <= c1; bj++)
        for (let bi = b0; bi <= b1; bi++) {
          const d = block[bj * V.ow + bi];
          if (Math.abs(d) > Math.abs(m)) m = d;
        }
      return m;
    };
    for (let c = 0; c < 3; c++) {
      const ctx = cv[c].getContext('2d');
      const img = ctx.createImageData(N, N);
      const px = img.data;
      const which = c === 1 && blinkOn && blinkRef ? 2 : c;
      for (let sy = 0; sy < N; sy++) {
        const r = Math.floor(view.y + (sy + 0.5) / view.s);
        for (let sx = 0; sx < N; sx++) {
          const i = Math.floor(view.x + (sx + 0.5) / view.s);
          const o = (sy * N + sx) * 4;
          let rgb: [number, number, number] = [236, 236, 236];
          if (i >= 0 && r >= 0 && i < V.W && r < V.H) {
            const v = values(i, dataRow(r));
            if (which === 0 && pool > 1) rgb = dqRgb(pooled(i, r));
            else if (which === 0) rgb = dqRgb(v.full ? (V.signed ? v.gen - v.ref : Math.abs(v.gen - v.ref)) : v.block);
            else rgb = hRgb(v.full ? (which === 1 ? v.gen : v.ref) : which === 1 ? v.ogen : v.oref);
          }
          px[o] = rgb[0];
          px[o + 1] = rgb[1];
          px[o + 2] = rgb[2];
          px[o + 3] = 255;
        }
      }
      ctx.putImageData(img, 0, 0);
      // Outliers (|Δq| ≥ 4) ringed on the difference panel while zoomed out, so a few dark pixels are seen at a glance.
      if (c === 0 && view.s < 2) {
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 1.5;
        for (const [i, j] of outliers) {
          const r = V.row0AtBottom ? V.H - 1 - j : j;
          ctx.beginPath();
          ctx.arc((i + 0.5 - view.x) * view.s, (r + 0.5 - view.y) * view.s, 7, 0, 2 * Math.PI);
          ctx.stroke();
        }
      }
      // Zoomed in (a map pixel ≥ 4 screen pixels), every differing pixel at full resolution outlined on the difference
      // panel: a difference of one code is as visible as the largest; data-marked counts the outlines drawn.
      if (c === 0) {
        let marked = 0;
        if (view.s >= 4) {
          ctx.strokeStyle = '#000';
          ctx.lineWidth = 1;
          const i0 = Math.max(0, Math.floor(view.x));
          const i1 = Math.min(V.W - 1, Math.floor(view.x + N / view.s));
          const r0 = Math.max(0, Math.floor(view.y));
          const r1 = Math.min(V.H - 1, Math.floor(view.y + N / view.s));
          for (let r = r0; r <= r1; r++)
            for (let i = i0; i <= i1; i++) {
              const v = values(i, dataRow(r));
              if (v.full && v.gen !== v.ref) {
                ctx.strokeRect((i - view.x) * view.s + 0.5, (r - view.y) * view.s + 0.5, view.s - 1, view.s - 1);
                marked++;
              }
            }
        }
        cv[0].dataset.marked = String(marked);
      }
      if (hover && view.s >= 3) {
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 1;
        ctx.strokeRect((hover.i - view.x) * view.s - 0.5, (hover.r - view.y) * view.s - 0.5, view.s + 1, view.s + 1);
      }
      cv[c].dataset.drawn = '1';
    }
    byId(doc, 'vlabel-gen').textContent = blinkOn && blinkRef ? 'reference (blink)' : 'generated';
    byId(doc, 'vzoom').textContent = view.s >= 1 ? `${view.s.toFixed(1)} screen px per map pixel` : `${(1 / view.s).toFixed(1)} map pixels per screen px`;
    load();
  }

  // Tiles at full resolution once a screen pixel covers at most two map pixels; elsewhere the overview blocks.
  function load(): void {
    if (view.s < 0.5) return;
    const i0 = Math.max(0, Math.floor(view.x));
    const i1 = Math.min(V.W - 1, Math.floor(view.x + N / view.s));
    const r0 = Math.max(0, Math.floor(view.y));
    const r1 = Math.min(V.H - 1, Math.floor(view.y + N / view.s));
    const ja = Math.min(dataRow(r0), dataRow(r1));
    const jb = Math.max(dataRow(r0), dataRow(r1));
    for (let ty = (ja / T) | 0; ty <= ((jb / T) | 0); ty++)
      for (let tx = (i0 / T) | 0; tx <= ((i1 / T) | 0); tx++) {
        const key = `${tx}_${ty}`;
        if (!have.has(key) || asked.has(key)) continue;
        const grp = `${(tx / V.group) | 0}_${(ty / V.group) | 0}`;
        // One file carries a group of tiles: every tile of the group is asked for at once.
        for (const t of V.tiles) {
          const [a, b] = t.split('_').map(Number);
          if (`${(a / V.group) | 0}_${(b / V.group) | 0}` === grp && !asked.has(t)) {
            asked.add(t);
            pending++;
          }
        }
        const el = doc.createElement('script');
        // A self-contained page carries its tile files inline (as text, run only when asked for).
        const inline = doc.getElementById(`tiles-${grp}`);
        if (inline) el.textContent = inline.textContent;
        else {
          el.src = `viewer/${grp}.js`;
          el.onerror = () => {
            pending = 0;
            status();
            byId(doc, 'vstatus').textContent = `tiles ${grp} did not load`;
          };
        }
        doc.head.appendChild(el);
      }
    status();
  }

  function status(): void {
    byId(doc, 'vstatus').textContent =
      view.s < 0.5 ? `overview: block maxima of ${V.f}×${V.f} px` : pending ? `loading ${pending} tile(s)…` : 'full resolution where a tile is written';
    doc.body.dataset.viewer = pending ? 'loading' : 'ready';
  }

  hb.HB_TILE = async (key, w, h, s) => {
    const raw = await inflate(s);
    tiles.set(key, { w, h, ref: unpredict(raw, 0, w, h), d: unpredict(raw, 2 * w * h, w, h), st: raw.subarray(4 * w * h) });
    pending--;
    draw();
    if (hover) readout(hover.i, hover.r);
  };

  function readout(i: number, r: number): void {
    const el = byId(doc, 'vread');
    if (i < 0 || r < 0 || i >= V.W || r >= V.H) {
      el.textContent = 'outside the map';
      return;
    }
    const j = dataRow(r);
    const v = values(i, j);
    const x = V.x0 + i * V.dx;
    const y = V.y0 + j * V.dy;
    const hm = (q: number) => (V.range.min + (q / 65535) * (V.range.max - V.range.min)).toFixed(3);
    let t = `pixel (${i}, ${j})  world (${x.toFixed(2)}, ${y.toFixed(2)}) m  `;
    el.dataset.pixel = `${i},${j}`;
    if (v.full) {
      const d = v.gen - v.ref;
      t += `generated ${v.gen} (${hm(v.gen)} m)  reference ${v.ref} (${hm(v.ref)} m)  Δq ${d > 0 ? '+' : ''}${d}`;
      if (v.st) t += `  first diverges: ${V.stageNames[v.st - 1]}`;
      el.dataset.dq = String(d);
      el.dataset.gen = String(v.gen);
      el.dataset.ref = String(v.ref);
    } else {
      const kept = have.has(`${(i / T) | 0}_${(j / T) | 0}`);
      t += `${kept ? 'tile loading; ' : view.s >= 0.5 ? 'tile not written (size budget); ' : ''}overview block of ${V.f}×${V.f} px: largest Δq ${v.block}, mean height ≈ ${hm(v.ogen)} m`;
      delete el.dataset.dq;
      delete el.dataset.gen;
      delete el.dataset.ref;
    }
    el.textContent = t;
  }

  const at = (e: PageEvent, c: CanvasElement): [number, number] => {
    const b = c.getBoundingClientRect();
    return [((e.clientX - b.left) * N) / b.width, ((e.clientY - b.top) * N) / b.height];
  };
  let drag: [number, number, number, number] | null = null;
  for (const c of cv) {
    c.addEventListener(
      'wheel',
      (e) => {
        e.preventDefault();
        const [sx, sy] = at(e, c);
        const k = e.deltaY < 0 ? 1.25 : 0.8;
        const s = Math.max(N / Math.max(V.W, V.H) / 2, Math.min(64, view.s * k));
        view = { x: view.x + sx / view.s - sx / s, y: view.y + sy / view.s - sy / s, s };
        draw();
      },
      { passive: false },
    );
    c.addEventListener('mousedown', (e) => {
      drag = [e.clientX, e.clientY, view.x, view.y];
    });
    c.addEventListener('mousemove', (e) => {
      const [sx, sy] = at(e, c);
      if (drag) {
        const b = c.getBoundingClientRect();
        view = { ...view, x: drag[2] - ((e.clientX - drag[0]) * N) / b.width / view.s, y: drag[3] - ((e.clientY - drag[1]) * N) / b.height / view.s };
        draw();
      }
      hover = { i: Math.floor(view.x + sx / view.s), r: Math.floor(view.y + sy / view.s) };
      readout(hover.i, hover.r);
      if (view.s >= 3) draw();
    });
  }
  win.addEventListener('mouseup', () => {
    drag = null;
  });
  const zoomTo = (i: number, j: number, s: number) => {
    const r = V.row0AtBottom ? V.H - 1 - j : j;
    view = { s, x: i + 0.5 - N / 2 / s, y: r + 0.5 - N / 2 / s };
    hover = { i, r };
    draw();
    readout(i, r);
  };
  byId(doc, 'vreset').onclick = () => {
    view = { x: 0, y: 0, s: N / Math.max(V.W, V.H) };
    draw();
  };
  byId(doc, 'vmax').onclick = () => {
    if (V.maxAt) zoomTo(V.maxAt[0], V.maxAt[1], 24);
  };
  const blink = byId<InputElement>(doc, 'vblink');
  blink.onchange = () => {
    blinkOn = blink.checked;
  };
  byId(doc, 'vgo').onsubmit = (e) => {
    e.preventDefault();
    const m = /(\d+)\D+(\d+)/.exec(byId<InputElement>(doc, 'vpix').value);
    if (m) zoomTo(+m[1], +m[2], 24);
  };
  for (const a of doc.querySelectorAll('a[data-goto]'))
    a.addEventListener('click', () => {
      const [i, j] = (a.dataset.goto ?? '').split(',').map(Number);
      zoomTo(i, j, 24);
    });
  win.setInterval(() => {
    if (blinkOn) {
      blinkRef = !blinkRef;
      draw();
    }
  }, 600);
  hb.HB = {
    zoomTo,
    get view() {
      return view;
    },
    tilesLoaded: () => tiles.size,
  };
  draw();
  doc.body.dataset.firstDrawMs = String(Math.round(win.performance.now()));
  win.setTimeout(afterFirstDraw, 0);
}
