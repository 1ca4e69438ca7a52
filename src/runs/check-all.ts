/**
 * `heightbench check --all` / `check --list FILE`: every comparison of two folders a repository declares
 * (heightbench.yaml, src/runs/repo-config.ts), each checked with its own gates into its report folder
 * (`<reports>/<name>/`: the check report, metrics.json and hashes.json — the files `regress` reads on both sides),
 * then one summary table of them all.
 * Outputs: `<reports>/check/{index.html, summary.md, summary.json}` (written whole), the Markdown table on stdout.
 * Rules: one exit status — 2 when a comparison could not be run (its reason is in its row; the others still run),
 * else 3 with --strict when a gate fails, else 0. Every string reaching the HTML is escaped.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { EXIT_GATE, EXIT_INPUT, inputErrorMessage, isInputError, UsageError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic.js';
import { writeFolderWhole } from '../io/report-folder.js';
import { escapeHtml } from '../core/html.js';
import { pageCss, TEXT_TABLES } from '../report/page-style.js';
import { mdCell } from '../report/markdown.js';
import { checkRun } from '../runs/check.js';
import { readInputText } from '../io/read-input.js';
import type { CheckOutput } from './check-folders.js';
import { findRepoConfig, loadRepoConfig, parseRepoConfig, stageHashes, type DeclaredComparison, type RepoConfig } from './repo-config.js';

export interface DeclaredCheckRow {
  name: string;
  generated: string;
  reference: string;
  /** 'pass' | 'FAIL' (a gate failed) | 'error' (the check could not run: see `error`). */
  verdict: 'pass' | 'FAIL' | 'error';
  exactPercent: number | null;
  maxAbsCode: number | null;
  rmsMm: number | null;
  gates: { name: string; limit: string; value: number; passed: boolean }[];
  firstDivergentStage: string | null;
  report: string;
  error: string | null;
}

/** The repository's declaration: --list FILE (its folder is the root), else the nearest heightbench.yaml. */
export function declaredConfig(list: string | undefined): RepoConfig {
  if (list !== undefined) {
    const root = dirname(resolve(list));
    return parseRepoConfig(root, readInputText(list, 1 << 20), list);
  }
  const root = findRepoConfig();
  const c = root === null ? null : loadRepoConfig(root);
  if (!c) throw new UsageError(`no heightbench.yaml at or above ${process.cwd()}: run \`heightbench init\` to scaffold one, or give GEN_DIR REF_DIR`);
  return c;
}

/** Runs one declared comparison into its report folder (check report + hashes.json); a row either way. */
export function runDeclared(cfg: RepoConfig, c: DeclaredComparison, sharedPlotly?: string): DeclaredCheckRow {
  const k = c.check;
  if (!k) throw new UsageError(`${c.name}: not a comparison of two folders`);
  const row: DeclaredCheckRow = {
    name: c.name,
    generated: k.generated,
    reference: k.reference,
    verdict: 'error',
    exactPercent: null,
    maxAbsCode: null,
    rmsMm: null,
    gates: [],
    firstDivergentStage: null,
    report: c.report,
    error: null,
  };
  const gen = join(cfg.root, k.generated);
  const ref = join(cfg.root, k.reference);
  const out = join(cfg.root, c.report);
  try {
    const r = checkRun(gen, ref, k.gates, out, c.name, sharedPlotly, {
      attribution: k.attribution,
      referenceKind: c.label,
      ...(cfg.pipeline ? { pipeline: cfg.pipeline } : {}),
    });
    writeFileAtomic(join(out, 'hashes.json'), `${JSON.stringify({ generated: stageHashes(gen), references: stageHashes(ref) }, null, 2)}\n`);
    Object.assign(row, {
      verdict: r.passed ? 'pass' : 'FAIL',
      exactPercent: r.final.exactPercent,
      maxAbsCode: r.final.maxAbsCode,
      rmsMm: r.final.rmsMm,
      gates: r.gates.map((g) => ({ name: g.name, limit: g.limit, value: g.value, passed: g.passed })),
      firstDivergentStage: r.firstDivergentStage ?? null,
    });
  } catch (e) {
    if (!isInputError(e)) throw e;
    row.error = inputErrorMessage(e).replace(/\s*\n\s*/g, ' ');
  }
  return row;
}

const fmt = (v: number | null, d: number) => (v === null ? '–' : Number.isInteger(v) ? String(v) : v.toFixed(d));

export function declaredMarkdown(rows: readonly DeclaredCheckRow[]): string {
  const failed = rows.filter((r) => r.verdict !== 'pass').length;
  const L = [
    `# heightbench check --all: ${rows.length} comparison${rows.length === 1 ? '' : 's'}, ${failed} not passing`,
    '',
    '| comparison | generated | reference | exact % | max \\|Δq\\| | RMS mm | gates | first stage differing | verdict | report |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const cell = mdCell;
  for (const r of rows) {
    const gates = r.gates.length ? r.gates.map((g) => `${g.name} ${g.limit}: ${g.passed ? 'pass' : '**FAIL**'}`).join('; ') : '–';
    const verdict = r.verdict === 'pass' ? 'pass' : r.verdict === 'FAIL' ? '**FAIL**' : `**error**: ${cell(r.error ?? '')}`;
    L.push(
      `| ${cell(r.name)} | ${cell(r.generated)} | ${cell(r.reference)} | ${fmt(r.exactPercent, 4)} | ${fmt(r.maxAbsCode, 0)} | ${fmt(r.rmsMm, 4)} | ${cell(gates)} | ${r.firstDivergentStage ?? '–'} | ${verdict} | ${r.verdict === 'error' ? '–' : `[${cell(r.name)}](../${cell(r.name)}/index.html)`} |`,
    );
  }
  return `${L.join('\n')}\n`;
}

function declaredHtml(rows: readonly DeclaredCheckRow[]): string {
  const head = ['comparison', 'generated', 'reference', 'exact %', 'max |Δq|', 'RMS mm', 'gates', 'first stage differing', 'verdict'];
  const tr = rows.map((r) => {
    const cells = [
      r.verdict === 'error' ? escapeHtml(r.name) : `<a href="../${encodeURIComponent(r.name)}/index.html">${escapeHtml(r.name)}</a>`,
      escapeHtml(r.generated),
      escapeHtml(r.reference),
      fmt(r.exactPercent, 4),
      fmt(r.maxAbsCode, 0),
      fmt(r.rmsMm, 4),
      escapeHtml(r.gates.map((g) => `${g.name} ${g.limit}: ${g.passed ? 'pass' : 'FAIL'}`).join('; ') || '–'),
      escapeHtml(r.firstDivergentStage ?? '–'),
      r.verdict === 'error' ? `<b>error</b>: ${escapeHtml(r.error ?? '')}` : r.verdict === 'FAIL' ? '<b>FAIL</b>' : 'pass',
    ];
    return `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>heightbench check --all</title>
<style>${pageCss(TEXT_TABLES)}</style></head><body>
<h1>heightbench check --all: ${rows.length} comparisons, ${rows.filter((r) => r.verdict !== 'pass').length} not passing</h1>
<table><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>
${tr.join('\n')}
</table></body></html>
`;
}

/** check --all / --list: runs every declared comparison, writes the summary, returns the one exit status. */
export function checkDeclared(list: string | undefined, o: { strict: boolean; sharedPlotly?: string }, io: CheckOutput): number {
  const cfg = declaredConfig(list);
  const todo = cfg.comparisons.filter((c) => c.check !== null);
  if (!todo.length) throw new UsageError(`${cfg.file}: declares no comparison of two folders (comparisons: [{ name, generated, reference, gates }])`);
  const rows = todo.map((c) => runDeclared(cfg, c, o.sharedPlotly));
  const md = declaredMarkdown(rows);
  writeFolderWhole(join(cfg.root, cfg.reports, 'check'), (stage) => {
    writeFileAtomic(join(stage, 'summary.md'), md);
    writeFileAtomic(join(stage, 'summary.json'), `${JSON.stringify({ format: 'heightbench.check-all', version: 1, comparisons: rows }, null, 2)}\n`);
    writeFileAtomic(join(stage, 'index.html'), declaredHtml(rows));
  });
  io.out(`${md}\nSummary: ${join(cfg.reports, 'check', 'index.html')} (also summary.md, summary.json)\n`);
  if (rows.some((r) => r.verdict === 'error')) return EXIT_INPUT;
  return o.strict && rows.some((r) => r.verdict === 'FAIL') ? EXIT_GATE : 0;
}

/**
 * `heightbench bless NAME --yes --reason TEXT` for a declared comparison: records the stage hashes of both folders
 * and the reason in its bless record (default blessed/NAME.json). A commit that changes the record blesses the
 * hashes that moved with it (regress). Without --yes it says what it would record and writes nothing.
 */
export function blessDeclared(cfg: RepoConfig, c: DeclaredComparison, o: { yes?: boolean; reason?: string }, io: CheckOutput): number {
  const k = c.check;
  if (!k) throw new UsageError(`bless ${c.name}: not a comparison of two folders`);
  const reason = o.reason?.trim();
  if (o.yes && !reason) throw new UsageError(`bless ${c.name}: --yes needs --reason "<why the heights moved>" (the bless record keeps it)`);
  const generated = stageHashes(join(cfg.root, k.generated));
  const references = stageHashes(join(cfg.root, k.reference));
  if (generated === null) throw new UsageError(`bless ${c.name}: ${k.generated}: no such folder`);
  const record = { format: 'heightbench.bless', version: 1, comparison: c.name, reason: reason ?? null, generated, references };
  if (!o.yes) {
    io.out(
      `bless ${c.name}: would record ${Object.keys(generated).length} generated and ${Object.keys(references ?? {}).length} reference stage hashes in ${c.bless}; give --yes --reason TEXT\n`,
    );
    return 0;
  }
  const target = join(cfg.root, c.bless);
  mkdirSync(dirname(target), { recursive: true });
  writeFileAtomic(target, `${JSON.stringify(record, null, 2)}\n`);
  io.out(`blessed ${c.name}: ${c.bless} records the hashes of ${k.generated} and ${k.reference}; commit it with the move\n`);
  return 0;
}
