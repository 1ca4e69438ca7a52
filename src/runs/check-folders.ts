/**
 * The check of two run folders as one call: the comparison (src/runs/check.ts), its text (what `heightbench check`
 * prints), the difference files asked for, and the exit status (0, or 3 for a failed gate with `strict`). The CLI's
 * `check GEN_DIR REF_DIR` and scripts/checks.mjs both call it, so the two print and write the same.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_GATE, EXIT_INPUT, inputErrorMessage, isInputError, UsageError } from '../errors.js';
import { terminalText } from '../core/text.js';
import { gateFailureLines, type Gates } from '../compare/gates.js';
import { foldHistogram, foldedHistogramText } from '../compare/histogram-fold.js';
import { attributionSummary } from '../compare/attribution.js';
import { codeRangeText } from '../report/summary-markdown.js';
import { folderForReading } from '../io/folder-swap.js';
import { pathKind as kind } from '../io/fs-ops.js';
import type { LoadedHeightfield } from '../io/heightfield-file.js';
import { SEED_PIPELINE } from '../pipelines/seed.js';
import { checkRun, writeDifferenceCsv, writeDifferenceField, type RunCheck } from './check.js';
import { FINAL_CODES_FILE } from './folder.js';

/** A check's text: the final codes, the stage table, the gates, the attribution (`name` heads the first line). */
export function checkText(name: string, c: RunCheck): string {
  const f = c.final;
  let t = `${name}: ${f.differing} of ${f.pixels} final codes differ | exact ${f.exactPercent.toFixed(4)} % | histogram ${foldedHistogramText(foldHistogram(f.histogram))} | max ${f.maxAbsCode} code | RMS ${f.rmsMm.toFixed(4)} mm | ${codeRangeText(f)}`;
  if (f.attribution) t += ` | straddles ${f.attribution.straddle}, deviations ${f.attribution.deviation}`;
  t += '\n';
  // The whole map first (max |Δ|, RMS, pixels differing), then the article's inner 400 m disk for the seed pipeline
  // (a declared pipeline's report shows no article scope).
  const inner = c.pipeline === SEED_PIPELINE;
  for (const s of c.stages)
    t += `  stage ${s.stage}: max |Δ| ${fmtMm(s.maxAbsMm)} mm, RMS ${fmtMm(s.rmsMm)} mm, ${s.differing} of ${s.pixels} px differ${inner ? `; inner 400 m RMS ${fmtMm(s.innerRmsMm)} mm` : ''}\n`;
  for (const g of c.gates) t += `  gate ${g.name} ${g.limit}: ${g.value} → ${g.passed ? 'pass' : 'FAIL'}\n`;
  if (c.firstDivergentStage) t += `  first stage differing beyond rounding: ${c.firstDivergentStage}\n`;
  for (const w of c.warnings) t += `  warning: ${w}\n`;
  for (const d of c.diagnoses ?? []) t += `  diagnosis of ${d.scope}: ${d.diagnosis.summary}\n`;
  for (const u of c.undeclared) t += `  ${u}\n`;
  if (c.stageAttribution)
    t += `  stage attribution: ${attributionSummary(c.stageAttribution)
      .map((l) => l.trim())
      .join('; ')}\n`;
  return t;
}

function fmtMm(v: number): string {
  return Number.isFinite(v) ? (v === 0 ? '0' : v.toExponential(2)) : '–';
}

/** Captures heightbench reads but a run folder does not hold under their own names. */
const OUTSIDE = /\.(npy|dds|exr|tif|tiff|png|r16|r32|raw)$/i;

/**
 * `check` given files, or a folder of outside captures without final.r16: a refusal naming `compare` or `import`.
 * Only what exists is judged (a missing path is left to the check's own message); links are followed.
 */
export function refuseNonRunFolders(paths: readonly string[]): void {
  for (const p of paths) {
    const k = kind(p);
    if (k === 'file') throw new UsageError(`check: ${p} is a file; check compares run folders — for two heightfield files use \`heightbench compare A B\``);
    if (k !== 'folder' || kind(join(p, FINAL_CODES_FILE)) !== null) continue;
    let entries: string[];
    try {
      entries = readdirSync(p);
    } catch {
      continue;
    }
    const captures = entries.filter((e) => OUTSIDE.test(e)).sort();
    if (captures.length) {
      const shown = captures.slice(0, 3).join(', ') + (captures.length > 3 ? `, … (${captures.length})` : '');
      throw new UsageError(
        `check: ${p} holds no final.r16 but captures (${shown}); check reads run folders — make one first with \`heightbench import --manifest FILE\` (or \`heightbench import FILE --stage NAME --out RUN_DIR\`)`,
      );
    }
  }
}

/** What `check GEN_DIR REF_DIR` is asked (its flags, parsed). */
export interface FolderCheckOptions {
  gates: Gates;
  toleranceMm?: number;
  /** Report folder (written whole). */
  report?: string;
  title?: string;
  sharedPlotly?: string;
  /** Exit 3 when a gate fails. */
  strict?: boolean;
  referenceKind?: string;
  attribution?: boolean;
  attributionEpsMm?: number;
  note?: string[];
  diagnose?: boolean;
  /** Every differing pixel's first divergent stage as an index field (.tif or .npy); implies attribution. */
  differences?: string;
  /** The differing pixels ranked by |Δ| as CSV; implies attribution. */
  differencesCsv?: string;
  differencesCap?: number;
  /** Reads a heightfield file (default: src/io/heightfield-file.ts; scripts/checks.mjs keeps shared files). */
  readFile?: (path: string) => LoadedHeightfield;
}

/** Where the check's text goes. */
export interface CheckOutput {
  out(text: string): void;
  err(text: string): void;
}

/** Checks `gen` against `ref` (see the header); returns the exit status. Refusals are thrown (input errors). */
export async function checkFolders(gen: string, ref: string, o: FolderCheckOptions, io: CheckOutput): Promise<number> {
  refuseNonRunFolders([gen, ref]);
  // A reference folder between the two renames of a swap is read from its kept old copy (read-only).
  const c = checkRun(folderForReading(gen), folderForReading(ref), o.gates, o.report, o.title, o.sharedPlotly, {
    referenceKind: o.referenceKind,
    attribution: o.attribution || o.attributionEpsMm !== undefined || !!o.differences || !!o.differencesCsv,
    keepPixelStages: !!o.differences || !!o.differencesCsv,
    attributionEpsilonMm: o.attributionEpsMm,
    notes: o.note,
    toleranceMm: o.toleranceMm,
    diagnose: o.diagnose,
    ...(o.readFile ? { readFile: o.readFile } : {}),
  });
  io.out(checkText(o.title ?? gen, c));
  if (c.pixels) {
    const { stages, gen: g, ref: r } = c.pixels;
    if (o.differences) {
      await writeDifferenceField(o.differences, stages, g);
      io.out(`  differences: ${stages.index.length} differing pixels' first divergent stages → ${o.differences}\n`);
    }
    if (o.differencesCsv) {
      const w = writeDifferenceCsv(o.differencesCsv, stages, g, r, o.differencesCap);
      io.out(`  differences: ${w.written} pixels ranked by |Δ| → ${o.differencesCsv}${w.leftOut ? ` (${w.leftOut} left out by the cap)` : ''}\n`);
    }
  }
  for (const w of c.warnings) io.err(`heightbench: warning: ${w}\n`);
  if (o.strict && !c.passed) {
    io.err(gateFailureLines(c.gates));
    return EXIT_GATE;
  }
  return 0;
}

/**
 * checkFolders with its refusals reported as the CLI reports them (`heightbench: <reason>` on err, exit 2): for a
 * caller that is not the CLI (scripts/checks.mjs). Anything else thrown is a bug and is thrown on.
 */
export async function checkFoldersStatus(gen: string, ref: string, o: FolderCheckOptions, io: CheckOutput): Promise<number> {
  try {
    return await checkFolders(gen, ref, o, io);
  } catch (e) {
    if (!isInputError(e)) throw e;
    io.err(
      `heightbench: ${terminalText(
        inputErrorMessage(e)
          .replace(/\s*\n\s*/g, ' ')
          .trim(),
      )}\n`,
    );
    return EXIT_INPUT;
  }
}
