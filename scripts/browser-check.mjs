#!/usr/bin/env node
// Opens every generated page in Debian's chromium (playwright-core, headless, offline: every request that is not a
// file is blocked and counted) and checks what a person would see: no console error, no network request, every
// Plotly figure drawn with a non-zero size, the numbers shown equal to metrics.json, every link resolving. A full-page
// screenshot of each page goes to reports/screenshots/. Pages: reports/RUN/index.html, reports/index.html,
// reports/notebooks/*.html, reports/regress/index.html, the DVC plots page (dvc plots diff HEAD → dvc_plots/), and a
// report copied out of reports/ (it must say that Plotly did not load), and the static GPU page reports/gpu/index.html
// in a second chromium started with WebGPU on SwiftShader: it shows the adapter, runs the example draw list beside it
// (reports/gpu/teaching-512-128.json) from the file button to the end, offers the final R16, with no console error and
// no network request.
// Report pages (issue 26) also get functional checks: the viewer's three canvases drawn within 2 s of navigation; the
// "zoom to the largest |Δq|" button shows that pixel at full resolution and the hover read-out gives its Δq; the
// gallery's first card is that pixel; every stage map and gallery picture loads; every number marked data-metric
// equals metrics.json (histogram bins: histogram.json when present).
// Usage: browser-check.mjs [--results FILE] [--report DIR]…   (FILE gets {"passed": N, "failed": N}; with --report only
// those report folders are checked)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../dist/gpu/browser-host.js';
import YAML from 'yaml';

const root = resolve(import.meta.dirname, '..');
const reports = join(root, 'reports');
const shots = join(reports, 'screenshots');
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  console.log(`${ok ? '✓' : '✗'} ${name}${ok || !detail ? '' : `: ${detail}`}`);
  if (ok) passed++;
  else failed++;
}

/** Parses "1.234", "99.9941", "–" from a table cell. */
const cellNumber = (s) => Number(String(s).replace(/[^\d.eE+-]/g, ''));
/** True when `shown` is `value` rounded to the digits shown. */
function sameAsShown(shown, value) {
  const s = String(shown).trim();
  const dec = s.includes('.') ? s.split('.')[1].replace(/[^\d]/g, '').length : 0;
  const sig = s.replace(/^[-+]?0*\.?0*/, '').replace(/[^\d]/g, '').length;
  const tol = Math.max(0.5 * 10 ** -dec, sig ? Math.abs(value) * 0.5 * 10 ** (1 - sig) : 0) * 1.0000001;
  return Math.abs(cellNumber(s) - value) <= tol;
}

function reportDirs() {
  const out = [];
  process.argv.forEach((a, i) => {
    if (a === '--report' && process.argv[i + 1]) out.push(resolve(process.argv[i + 1]));
  });
  return out;
}

function pages() {
  const only = reportDirs();
  if (only.length)
    return only.map((d) => ({ kind: 'report', name: `report-${d.split('/').pop()}`, path: join(d, 'index.html'), metrics: join(d, 'metrics.json') }));
  const list = [];
  const runs = Object.keys(YAML.parse(readFileSync(join(root, 'params.yaml'), 'utf8')).runs ?? {});
  for (const run of runs) {
    const p = join(reports, run, 'index.html');
    if (existsSync(p)) list.push({ kind: 'report', name: run, path: p, metrics: join(reports, run, 'metrics.json') });
  }
  if (existsSync(join(reports, 'index.html'))) list.push({ kind: 'index', name: 'index', path: join(reports, 'index.html') });
  const nb = join(reports, 'notebooks');
  if (existsSync(nb))
    for (const f of readdirSync(nb)
      .filter((x) => x.endsWith('.html'))
      .sort())
      list.push({ kind: 'notebook', name: `notebook-${f.replace(/\.html$/, '')}`, path: join(nb, f) });
  if (existsSync(join(reports, 'regress', 'index.html'))) list.push({ kind: 'regress', name: 'regress', path: join(reports, 'regress', 'index.html') });
  return list;
}

/** `dvc plots diff HEAD` into dvc_plots/ (the template in .dvc/config loads vega from node_modules). */
function dvcPlotsPage() {
  const dvc = join(root, '.venv', 'bin', 'dvc');
  if (!existsSync(dvc)) return null;
  const r = spawnSync(dvc, ['plots', 'diff', 'HEAD', '-o', 'dvc_plots'], { cwd: root, encoding: 'utf8', env: { ...process.env, DVC_NO_ANALYTICS: '1' } });
  check('dvc plots diff HEAD writes dvc_plots/index.html', r.status === 0 && existsSync(join(root, 'dvc_plots', 'index.html')), r.stderr);
  return r.status === 0 ? { kind: 'dvc-plots', name: 'dvc-plots', path: join(root, 'dvc_plots', 'index.html') } : null;
}

async function open(browser, path) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, offline: true });
  const page = await context.newPage();
  const errors = [];
  const network = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    network.push(url);
    return route.abort();
  });
  await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
  return { context, page, errors, network };
}

/**
 * Waits until every Plotly figure has drawn (or 80 polls: a count, not a clock, so a busy machine only makes each poll
 * slower), then returns each figure's id and size.
 */
async function plotlyFigures(page) {
  for (let polls = 0; ; polls++) {
    const figs = await page.evaluate(() =>
      [...document.querySelectorAll('.js-plotly-plot')].map((el) => {
        const r = el.getBoundingClientRect();
        const svg = el.querySelector('.main-svg');
        const gl = el.querySelector('canvas');
        // Cartesian axes without a title (3D scenes and hidden axes aside): a reader should never guess a unit.
        // The title is read from the figure's own layout: the full layout fills in a placeholder text.
        const fl = el._fullLayout;
        const ids = fl && fl._subplots ? [...(fl._subplots.xaxis ?? []), ...(fl._subplots.yaxis ?? [])] : [];
        const untitled = ids.filter((id) => {
          const key = id.replace(/^([xy])/, '$1axis');
          if (fl[key]?.visible === false) return false;
          // An axis that shares another's range without tick labels (stacked subplots) is named by that one.
          if (el.layout?.[key]?.matches && el.layout[key].showticklabels === false) return false;
          const t = el.layout?.[key]?.title;
          return !String((typeof t === 'string' ? t : t?.text) ?? '').trim();
        });
        return { id: el.id, w: r.width, h: r.height, drawn: !!fl && !!svg && svg.getBoundingClientRect().width > 0, gl: !!gl, untitled };
      }),
    );
    if ((figs.length && figs.every((f) => f.drawn)) || polls >= 80) return figs;
    await page.waitForTimeout(250);
  }
}

/** Every link resolves: a file that exists, or an element with the anchor's id. */
async function brokenLinks(page) {
  const links = await page.evaluate(() => [...document.querySelectorAll('a[href]')].map((a) => ({ href: a.href, raw: a.getAttribute('href') })));
  const bad = [];
  for (const l of links) {
    if (l.raw === '#') continue; // the top of the page (vega-embed's action menu)
    if (l.raw.startsWith('#')) {
      if (!(await page.$(`[id="${l.raw.slice(1)}"], [name="${l.raw.slice(1)}"]`))) bad.push(l.raw);
    } else if (l.href.startsWith('file:')) {
      if (!existsSync(fileURLToPath(l.href.split('#')[0]))) bad.push(l.raw);
    } else bad.push(l.raw); // an offline page links no network address
  }
  return { count: links.length, bad };
}

async function checkPage(browser, p) {
  const { context, page, errors, network } = await open(browser, p.path);
  const label = `${p.kind} ${p.name}`;
  const html = readFileSync(p.path, 'utf8');
  // Plotly figures: every one the page creates is drawn with a non-zero size.
  const expected = p.kind === 'report' ? ['hist', 'radial', 'd3diff'] : [...html.matchAll(/Plotly\.newPlot\("([^"]+)"/g)].map((m) => m[1]);
  if (expected.length) {
    const figs = await plotlyFigures(page);
    const byId = new Map(figs.map((f) => [f.id, f]));
    const notDrawn = expected.filter((id) => !(byId.get(id)?.drawn && byId.get(id).w > 0 && byId.get(id).h > 0));
    check(`${label}: ${expected.length} Plotly figures drawn with non-zero size`, notDrawn.length === 0, `not drawn: ${notDrawn.join(', ')}`);
    const untitled = figs.filter((f) => f.untitled?.length).map((f) => `${f.id} (${f.untitled.join(', ')})`);
    check(`${label}: every cartesian axis of every figure has a title`, untitled.length === 0, `untitled: ${untitled.join('; ')}`);
    check(`${label}: no "Plotly did not load" message`, !(await page.isVisible('#plotly-missing')) && (await page.$$('.plotly-missing')).length === 0);
  }
  if (p.kind === 'dvc-plots') {
    const n = (html.match(/vegaEmbed\(/g) ?? []).length;
    await page
      .waitForFunction((k) => document.querySelectorAll('.vega-embed svg, .vega-embed canvas').length >= k, n, { timeout: 20000 })
      .catch(() => undefined);
    const drawn = await page.$$eval('.vega-embed svg, .vega-embed canvas', (els) => els.filter((e) => e.getBoundingClientRect().width > 0).length);
    check(`${label}: ${n} vega plots drawn from node_modules`, n > 0 && drawn >= n, `${drawn} of ${n}`);
    const imgs = await page.$$eval('img', (els) => els.map((e) => ({ src: e.getAttribute('src'), ok: e.complete && e.naturalWidth > 0 })));
    check(
      `${label}: ${imgs.length} difference-map images load`,
      imgs.length > 0 && imgs.every((i) => i.ok),
      imgs
        .filter((i) => !i.ok)
        .map((i) => i.src)
        .join(', '),
    );
  }
  if (p.kind === 'regress') {
    const imgs = await page.$$eval('img', (els) => els.map((e) => ({ src: e.getAttribute('src'), ok: e.complete && e.naturalWidth > 0 })));
    check(
      `${label}: ${imgs.length} difference-map images load`,
      imgs.every((i) => i.ok),
      imgs
        .filter((i) => !i.ok)
        .map((i) => i.src)
        .join(', '),
    );
  }
  // Numbers shown equal metrics.json.
  if (p.kind === 'report') {
    const m = JSON.parse(readFileSync(p.metrics, 'utf8'));
    const row = await page.$$eval('table tr', (trs) =>
      trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())).find((cells) => cells[0] === 'full map'),
    );
    const ok =
      row &&
      sameAsShown(row[1], m.pixels) &&
      sameAsShown(row[2], m.exactPercent) &&
      sameAsShown(row[4], m.maxAbsCode) &&
      sameAsShown(row[5], m.rmsMm) &&
      sameAsShown(row[6], m.maxAbsMm);
    check(`${label}: full-map pixels, exact %, max |Δq|, RMS and max mm equal metrics.json`, !!ok, JSON.stringify(row));
    await checkReportViewer(page, p, m, label);
  }
  if (p.kind === 'index') {
    const rows = await page.$$eval('table tr', (trs) => trs.slice(1).map((tr) => [...tr.children].map((c) => c.textContent.trim())));
    let bad = [];
    for (const r of rows) {
      const mp = join(reports, r[0], 'metrics.json');
      if (!existsSync(mp)) {
        bad.push(`${r[0]}: no metrics.json`);
        continue;
      }
      const m = JSON.parse(readFileSync(mp, 'utf8'));
      if (!(sameAsShown(r[1], m.exactPercent) && sameAsShown(r[3], m.maxAbsCode) && sameAsShown(r[4], m.rmsMm)))
        bad.push(`${r[0]}: ${r.slice(1, 5).join(' | ')}`);
    }
    check(`${label}: ${rows.length} run rows show exact %, max |Δq| and RMS equal to metrics.json`, rows.length > 0 && bad.length === 0, bad.join('; '));
  }
  const links = await brokenLinks(page);
  check(`${label}: ${links.count} links resolve`, links.bad.length === 0, links.bad.join(', '));
  check(`${label}: no console error`, errors.length === 0, errors.slice(0, 3).join(' | '));
  check(`${label}: no network request`, network.length === 0, network.slice(0, 3).join(', '));
  await page.screenshot({ path: join(shots, `${p.name}.png`), fullPage: true });
  await context.close();
}

/** A number of the page's metrics: metrics.json, else (histogram bins) histogram.json; undefined when neither holds it. */
function metricValue(m, hist, key) {
  if (typeof m[key] === 'number') return m[key];
  const bin = /^histogram\.(-?\d+)$/.exec(key);
  if (bin && Array.isArray(hist)) return hist.find((h) => h.dq === Number(bin[1]))?.count ?? 0;
  if (hist && !Array.isArray(hist)) return key.split('.').reduce((o, k) => (o == null ? undefined : o[k]), hist);
  return undefined;
}

/** Issue 26's functional checks of a report page (see the header). */
async function checkReportViewer(page, p, m, label) {
  const dir = p.path.replace(/index\.html$/, '');
  const hp = join(dir, 'histogram.json');
  const hist = existsSync(hp) ? JSON.parse(readFileSync(hp, 'utf8')) : null;
  // Every displayed count marked data-metric equals the file.
  const shown = await page.$$eval('[data-metric]', (els) => els.map((e) => [e.dataset.metric, e.textContent.trim()]));
  const bad = shown.filter(([k, t]) => {
    const v = metricValue(m, hist, k);
    return v === undefined || !sameAsShown(t, v);
  });
  check(
    `${label}: ${shown.length} numbers marked data-metric equal metrics.json / histogram.json`,
    shown.length > 5 && bad.length === 0,
    JSON.stringify(bad.slice(0, 5)),
  );
  // The viewer draws first (Plotly comes after it).
  await page
    .waitForFunction(() => ['vdiff', 'vgen', 'vref'].every((id) => document.getElementById(id)?.dataset.drawn === '1'), null, { timeout: 20000 })
    .catch(() => undefined);
  const first = await page.evaluate(() => Number(document.body.dataset.firstDrawMs));
  check(`${label}: the difference map and both heightmaps drawn, the first within 2 s (${first} ms)`, first > 0 && first <= 2000, String(first));
  // Zoom to the largest |Δq| and read it back from the hover read-out.
  if (m.maxAbsCode > 0) {
    await page.click('#vmax');
    await page.waitForFunction(() => document.body.dataset.viewer === 'ready' && window.HB.tilesLoaded() > 0, null, { timeout: 20000 }).catch(() => undefined);
    const box = await page.$eval('#vdiff', (e) => {
      const r = e.getBoundingClientRect();
      return [r.x + r.width / 2, r.y + r.height / 2];
    });
    await page.mouse.move(box[0], box[1]);
    const read = await page.$eval('#vread', (e) => ({ ...e.dataset, text: e.textContent }));
    const want = `${m['maxAbsCodeAt.column']},${m['maxAbsCodeAt.row']}`;
    check(
      `${label}: zoomed to the largest |Δq|, the read-out shows pixel ${want} at full resolution with |Δq| = ${m.maxAbsCode}`,
      read.pixel === want && Math.abs(Number(read.dq)) === m.maxAbsCode && Number(read.gen) - Number(read.ref) === Number(read.dq),
      JSON.stringify(read),
    );
    const card = await page.$eval('#gallery-cards .card', (e) => ({ ...e.dataset, img: e.querySelector('img').naturalWidth }));
    check(
      `${label}: the gallery's first card is that pixel, its crops drawn`,
      card.pixel === want && Math.abs(Number(card.dq)) === m.maxAbsCode && card.img > 0,
      JSON.stringify(card),
    );
    // The tile decoded in the page gives the codes the report took from the files (two paths, one answer).
    check(
      `${label}: the viewer's decoded codes at that pixel equal the gallery's (${card.gen}, ${card.ref})`,
      read.gen === card.gen && read.ref === card.ref,
      JSON.stringify([read, card]),
    );
  }
  // The blink swaps the middle panel to the reference and back.
  await page.check('#vblink');
  const blinked = await page
    .waitForFunction(() => document.getElementById('vlabel-gen').textContent.startsWith('reference'), null, { timeout: 5000 })
    .then(() => true)
    .catch(() => false);
  await page.uncheck('#vblink');
  check(`${label}: the blink shows the reference in the generated panel`, blinked);
  const sj = join(dir, 'stages.json');
  const stages = existsSync(sj) ? JSON.parse(readFileSync(sj, 'utf8')).stages.map((s) => s.stage) : [];
  const maps = await page.$$eval('figure.stagemap', (els) =>
    els.map((e) => ({ stage: e.dataset.stage, ok: e.querySelector('img').complete && e.querySelector('img').naturalWidth > 0 })),
  );
  check(
    `${label}: a stage map drawn for every dumped stage (${stages.length})`,
    maps.length === stages.length && maps.every((x, k) => x.ok && x.stage === stages[k]),
    JSON.stringify(maps),
  );
  const imgs = await page.$$eval('#gallery-cards img, #first-divergence-map', (els) =>
    els.filter((e) => !(e.complete && e.naturalWidth > 0)).map((e) => e.getAttribute('src')),
  );
  check(`${label}: every gallery and first-divergence picture loads`, imgs.length === 0, imgs.join(', '));
}

/** A report copied out of reports/ (no plotly.min.js beside it) must say that Plotly did not load, not show blank boxes. */
async function checkCopiedOut(browser, p) {
  // Two fresh folders deep: the page's ../plotly.min.js must resolve to nothing, whatever the temporary folder holds.
  const d = mkdtempSync(join(tmpdir(), 'hb-copied-'));
  const inner = join(d, 'copy');
  mkdirSync(inner);
  try {
    copyFileSync(p.path, join(inner, 'index.html'));
    const { context, page, errors, network } = await open(browser, join(inner, 'index.html'));
    // A report page loads Plotly after its maps are drawn: the message comes when that load fails.
    await page.waitForSelector('#plotly-missing', { state: 'visible', timeout: 10000 }).catch(() => undefined);
    const shown = await page.isVisible('#plotly-missing');
    const text = shown ? await page.textContent('#plotly-missing') : '';
    check(`report ${p.name} copied out of reports/: the page says Plotly did not load`, shown && /Plotly did not load/.test(text), text);
    check(
      `report ${p.name} copied out of reports/: only the missing plotly.min.js fails, nothing else`,
      errors.every((e) => /ERR_FILE_NOT_FOUND|Failed to load resource/.test(e)) && network.length === 0,
      errors.join(' | '),
    );
    await page.screenshot({ path: join(shots, `${p.name}-copied-out.png`) });
    await context.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
}

/** The GPU page (reports/gpu/), in a chromium with WebGPU (SwiftShader): adapter shown, example list run, final offered. */
async function checkGpuPage(exe) {
  const path = join(reports, 'gpu', 'index.html');
  if (!existsSync(path)) return check('GPU page reports/gpu/index.html exists (make reproduce writes it)', false, 'missing');
  const browser = await chromium.launch({ executablePath: exe, headless: true, args: CHROMIUM_FLAGS });
  try {
    const { context, page, errors, network } = await open(browser, path);
    await page.waitForFunction(() => !/^Asking/.test(document.getElementById('adapter')?.textContent ?? ''), null, { timeout: 30000 }).catch(() => undefined);
    const adapter = (await page.textContent('#adapter')) ?? '';
    check('gpu page: shows the WebGPU adapter (SwiftShader here)', /architecture swiftshader/.test(adapter), adapter);
    const links = await brokenLinks(page);
    check(`gpu page: ${links.count} links resolve`, links.bad.length === 0, links.bad.join(', '));
    const list = join(reports, 'gpu', 'teaching-512-128.json');
    if (existsSync(list)) {
      await page.setInputFiles('#list-input', list);
      await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.state), null, { timeout: 180000 }).catch(() => undefined);
      const state = await page.evaluate(() => document.body.dataset.state);
      check('gpu page: runs teaching-512-128.json from the file button to the end', state === 'done', `${state}: ${await page.textContent('#error')}`);
      check(
        'gpu page: offers final.r16 and its sidecar',
        (await page.$('a[download="final.r16"]')) !== null && (await page.$('a[download="final.r16.json"]')) !== null,
      );
    } else check('gpu page: example list reports/gpu/teaching-512-128.json exists (make reproduce writes it)', false, 'missing');
    check('gpu page: no console error', errors.length === 0, errors.slice(0, 3).join(' | '));
    check('gpu page: no network request', network.length === 0, network.slice(0, 3).join(', '));
    await page.screenshot({ path: join(shots, 'gpu-page.png'), fullPage: true });
    await context.close();
  } catch (e) {
    check('gpu page: opened and checked', false, String(e));
  } finally {
    await browser.close();
  }
}

const exe = process.env.HEIGHTBENCH_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(exe)) {
  check(`chromium at ${exe} (scripts/ensure-chromium.sh installs Debian's)`, false, 'missing');
} else {
  mkdirSync(shots, { recursive: true });
  const list = pages();
  const plots = reportDirs().length ? null : dvcPlotsPage();
  if (plots) list.push(plots);
  check(
    `pages to check: ${list.length} (run reports, index, notebooks, regress, DVC plots)`,
    list.some((p) => p.kind === 'report'),
  );
  const browser = await chromium.launch({
    executablePath: exe,
    headless: true,
    args: ['--no-sandbox', '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  try {
    for (const p of list) {
      try {
        await checkPage(browser, p);
      } catch (e) {
        check(`${p.kind} ${p.name}: opened and checked`, false, String(e));
      }
    }
    const firstReport = list.find((p) => p.kind === 'report');
    if (firstReport) await checkCopiedOut(browser, firstReport);
  } finally {
    await browser.close();
  }
  if (!reportDirs().length) await checkGpuPage(exe);
  console.log(`browser check: ${passed} passed, ${failed} failed; screenshots in reports/screenshots/`);
}
const out = arg('--results');
if (out) writeFileSync(out, JSON.stringify({ passed, failed }));
process.exit(failed ? 1 : 0);
