/**
 * `diagnose`: names the likely cause of a difference between two heightfields on the same grid.
 *
 * Inputs: a generated and a reference heightfield that `compare` accepts (same grid; two 16-bit sides share their
 * range), optionally the generated side's pre-encode floats (then Δ comes from them), options below.
 * Output: a Diagnosis — least-squares coefficients of Δ = generated − reference (metres) on signature fields computed
 * from the reference alone, each with its share of the difference, direct checks for a row flip, a column flip,
 * a 180° rotation and a transposition, the edge band's share, and one plain sentence per finding.
 *
 * Signatures [R] (all from the reference heights R in metres, clamp addressing at the border; x = column index i,
 * y = row index j, both in texels of this grid):
 *  - bias      1                                        coefficient b: generated ≈ reference + b (metres)
 *  - shiftX    ∂R/∂x, central difference (one-sided at the border)
 *              coefficient s: generated pixel (i, j) ≈ reference at (i + s, j); s in texels
 *  - shiftY    ∂R/∂y, the same along rows (+ = toward higher row index)
 *  - gain      R − mean(R)                              coefficient g: generated ≈ mean + (1 + g)(R − mean)
 *  - blur@s    B_s(R) − R, s ∈ {1, 2, 4, 8} texels; B_s = one separable [¼ ½ ¼] pass with taps at −s, 0, +s in x
 *              then y. Coefficient c: generated ≈ reference + c·(B_s R − R), i.e. c passes of that blur (c < 0:
 *              sharper). The difference B_s R − R is a discrete Laplacian at scale s (≈ s²/4 ∇²R on smooth ground).
 *  - edgeBand  1 within k texels of the border (default k = 4), else 0, minus the band's pixel fraction (centred, so
 *              orthogonal to the bias). Coefficient e: Δ is e metres higher in the band than elsewhere — a difference
 *              confined to the border, as addressing modes (clamp, wrap, zero) produce.
 * Direct checks [R]: Δ' = T(generated) − reference for T = row flip, column flip, 180° rotation, transposition (square
 * grids only); the share a check explains is 1 − Σ Δ'² / Σ Δ².
 *
 * Fit [R]: weighted least squares on the normal equations, accumulated in float64 — plain sums within one grid row,
 * Neumaier-compensated across rows (src/compare/metric-accumulators.ts) — then scaled to unit diagonal and solved by Cholesky.
 * A pivot below 1e-10 (of its own unit diagonal) marks a signature as (nearly) a combination of earlier ones; it is left
 * out and reported, and the condition number (eigenvalues of the scaled matrix, Jacobi) is reported for the rest.
 * Shares: each signature's Shapley value of the uncentred R² = 1 − Σ r² / Σ Δ² over every subset of the kept signatures
 * (the Lindeman–Merenda–Gold decomposition): order-free, fair to correlated signatures, and summing to R². A share
 * is a fraction of the difference energy Σ Δ² (so a bias counts, unlike a centred R²).
 * Memory and time bound [R]: the fit visits every pixel within max(k, 1) texels of the border, and elsewhere a regular
 * lattice with stride s = ceil(sqrt(W·H / maxFitPixels)) (default 2^20 fit pixels: stride 1 up to 1024², 4 at 4096²);
 * each interior lattice pixel stands for the interior pixel count / the interior lattice count. Besides the two
 * height fields in metres (4 bytes per pixel each) it allocates only O(signatures²).
 * Non-finite pixels (Δ or any signature tap) are left out and counted.
 */
import { InputRangeError, MismatchError } from '../errors.js';
import { sampleSpacing, type GridDescription } from '../core/grid.js';
import { heightsOf, type Heightfield } from '../core/heightfield.js';
import { checkComparable } from './compare.js';

export interface DiagnoseOptions {
  /** Pre-encode float field of the generated side: Δ is taken from it instead of the generated codes. */
  generatedFloat?: Float32Array | null;
  /** Width of the edge band, texels (default 4; 0 leaves the signature out). */
  edgeBand?: number;
  /** Upper bound on interior fit pixels (default 2^20); the lattice stride follows from it. */
  maxFitPixels?: number;
  /** R² below which the diagnosis says nothing explains Δ (default 0.5). */
  explainedThreshold?: number;
}

export const DEFAULT_EDGE_BAND = 4;
export const DEFAULT_MAX_FIT_PIXELS = 1 << 20;
export const DEFAULT_EXPLAINED_THRESHOLD = 0.5;
/** [R] Signatures whose share is below this get no sentence (they stay in `terms`). */
export const MIN_FINDING_SHARE = 0.05;
/** [R] Scales of the blur signatures, texels: the smoothing chain's levels N/2 … N/16 seen from the N² grid. */
export const BLUR_STEPS = Object.freeze([1, 2, 4, 8]);
/** [R] A Cholesky pivot below this (on the unit-diagonal matrix) marks a signature as dependent on earlier ones. */
export const PIVOT_TOLERANCE = 1e-10;

export type TermName = 'bias' | 'shiftX' | 'shiftY' | 'gain' | 'blur1' | 'blur2' | 'blur4' | 'blur8' | 'edgeBand';
export type CheckName = 'rowFlip' | 'columnFlip' | 'rotate180' | 'transpose';

export interface DiagnosisTerm {
  name: TermName;
  /** What the signature field is. */
  signature: string;
  /** Least-squares coefficient (null when the term was left out). */
  coefficient: number | null;
  /** Unit of the coefficient: 'm', 'texel', 'ratio' (gain − 1) or 'passes'. */
  unit: 'm' | 'texel' | 'ratio' | 'passes';
  /** Shapley share of the difference energy Σ Δ² (0 when left out). */
  share: number;
  /** Why the term is not in the fit (no signal, or dependent on earlier signatures), else null. */
  leftOut: string | null;
}

export interface DirectCheck {
  name: CheckName;
  /** 1 − Σ Δ'² / Σ Δ², Δ' = T(generated) − reference (may be negative: undoing T makes it worse). */
  explainedShare: number;
  /** RMS of Δ', metres. */
  residualRmsM: number;
}

export interface Finding {
  /** A term name or a check name. */
  kind: TermName | CheckName;
  /** The recovered value in `unit` (for checks: the share explained). */
  value: number;
  unit: string;
  /** Share of the difference energy this finding explains. */
  share: number;
  sentence: string;
}

export interface Diagnosis {
  format: 'heightbench.diagnosis';
  version: 1;
  grid: { columns: number; rows: number; texelMetres: { x: number; y: number }; rowDirection: GridDescription['rowDirection'] };
  /** Where Δ's generated heights came from. */
  generatedSource: 'codes' | 'float' | 'generated-float';
  sampling: { stride: number; fitPixels: number; interiorWeight: number; excludedNonFinite: number };
  /** Weighted RMS and mean of Δ over the fit pixels, metres. */
  differenceRmsM: number;
  differenceMeanM: number;
  /** Mean of the reference over the fit pixels (the gain's pivot), metres. */
  referenceMeanM: number;
  terms: DiagnosisTerm[];
  /** Uncentred R² of the full fit (= Σ shares). */
  explainedShare: number;
  residualRmsM: number;
  /** Condition number of the unit-diagonal normal matrix of the kept terms. */
  conditionNumber: number;
  edgeBand: { width: number; pixelShare: number; differenceEnergyShare: number; residualEnergyShare: number };
  directChecks: DirectCheck[];
  /** Sorted by share, largest first; findings[0] is the top diagnosis. */
  findings: Finding[];
  threshold: number;
  /** 'identical' (Δ = 0), 'explained' (top finding ≥ threshold, or R² ≥ threshold) or 'unexplained'. */
  verdict: 'identical' | 'explained' | 'unexplained';
  summary: string;
}

const TERM_NAMES: readonly TermName[] = ['bias', 'shiftX', 'shiftY', 'gain', 'blur1', 'blur2', 'blur4', 'blur8', 'edgeBand'];
const P = TERM_NAMES.length;
const NG = (P * (P + 1)) / 2;
const CHECKS: readonly CheckName[] = ['rowFlip', 'columnFlip', 'rotate180', 'transpose'];
/** Layout of one accumulator vector: Gram upper triangle, X'y, y'y, Σ y, four check sums, count. */
const O_C = NG;
const O_YY = NG + P;
const O_Y = O_YY + 1;
const O_CHK = O_Y + 1;
const O_N = O_CHK + CHECKS.length;
const ACC = O_N + 1;

/** Neumaier-compensated running sums of a vector (one compensation term per entry). */
class VectorSum {
  readonly sum = new Float64Array(ACC);
  private readonly c = new Float64Array(ACC);
  add(v: Float64Array): void {
    const s = this.sum;
    const c = this.c;
    for (let q = 0; q < ACC; q++) {
      const x = v[q];
      const t = s[q] + x;
      if (Math.abs(s[q]) >= Math.abs(x)) c[q] += s[q] - t + x;
      else c[q] += x - t + s[q];
      s[q] = t;
    }
  }
  value(): Float64Array {
    const out = new Float64Array(ACC);
    for (let q = 0; q < ACC; q++) out[q] = this.sum[q] + this.c[q];
    return out;
  }
}

function checkOptions(o: DiagnoseOptions): { band: number; maxFit: number; threshold: number } {
  const band = o.edgeBand ?? DEFAULT_EDGE_BAND;
  if (!Number.isInteger(band) || band < 0) throw new InputRangeError(`edge band: expected an integer ≥ 0 texels, got ${band}`);
  const maxFit = o.maxFitPixels ?? DEFAULT_MAX_FIT_PIXELS;
  if (!Number.isInteger(maxFit) || maxFit < 1) throw new InputRangeError(`maxFitPixels: expected an integer ≥ 1, got ${maxFit}`);
  const threshold = o.explainedThreshold ?? DEFAULT_EXPLAINED_THRESHOLD;
  if (!(threshold > 0 && threshold <= 1)) throw new InputRangeError(`explained threshold: expected a number in (0, 1], got ${threshold}`);
  return { band, maxFit, threshold };
}

export function diagnose(generated: Heightfield, reference: Heightfield, opts: DiagnoseOptions = {}): Diagnosis {
  checkComparable(generated, reference);
  const { band, maxFit, threshold } = checkOptions(opts);
  const grid = reference.grid;
  const W = grid.columns;
  const H = grid.rows;
  if (W < 3 || H < 3) throw new MismatchError(`diagnose needs at least 3×3 samples for its derivative signatures, got ${W}×${H}`);
  const gf = opts.generatedFloat ?? null;
  if (gf && gf.length !== W * H) throw new InputRangeError(`generated float field: ${gf.length} samples, expected ${W}×${H} = ${W * H}`);
  const G = gf ?? heightsOf(generated);
  const R = heightsOf(reference);

  // Fit pixels: the whole border band (at least one texel, so the lattice never needs clamped taps it skips), and an
  // interior lattice of stride s whose phase o centres it in its cells.
  const kb = Math.max(band, 1);
  const stride = W * H <= maxFit ? 1 : Math.ceil(Math.sqrt((W * H) / maxFit));
  const phase = stride >> 1;
  const iLo = Math.min(kb, W);
  const iHi = Math.max(W - kb, iLo);
  const jLo = Math.min(kb, H);
  const jHi = Math.max(H - kb, jLo);
  const firstOnLattice = (lo: number) => lo + ((((phase - lo) % stride) + stride) % stride);
  const latticeCount = (lo: number, hi: number) => {
    const f = firstOnLattice(lo);
    return f >= hi ? 0 : Math.floor((hi - 1 - f) / stride) + 1;
  };
  const interiorPixels = (iHi - iLo) * (jHi - jLo);
  const interiorLattice = latticeCount(iLo, iHi) * latticeCount(jLo, jHi);
  const interiorWeight = interiorLattice > 0 ? interiorPixels / interiorLattice : 0;
  // The edge-band signature is centred (indicator − the band's pixel fraction) so that it is orthogonal to the bias:
  // a uniform offset is then never credited to the border.
  const bandFraction = (W * H - interiorPixels) / (W * H);

  // The gain's pivot: mean of R over the fit pixels, with the same weights (so gain and bias are orthogonal).
  const referenceMean = weightedMean(R, W, H, { iLo, iHi, jLo, jHi, stride, interiorWeight, firstOnLattice });

  const x = new Float64Array(P);
  const row = new Float64Array(ACC);
  const bandSum = new VectorSum();
  const interiorSum = new VectorSum();
  const square = W === H;
  let excluded = 0;

  const clampI = (i: number) => (i < 0 ? 0 : i >= W ? W - 1 : i);
  const clampJ = (j: number) => (j < 0 ? 0 : j >= H ? H - 1 : j);
  /** B_s R − R at (i, j): one separable [¼ ½ ¼] pass at step s, clamp addressing. */
  const blur = (i: number, j: number, s: number, r: number): number => {
    const a = clampI(i - s);
    const c = clampI(i + s);
    const r0 = clampJ(j - s) * W;
    const r1 = j * W;
    const r2 = clampJ(j + s) * W;
    const h0 = 0.25 * R[r0 + a] + 0.5 * R[r0 + i] + 0.25 * R[r0 + c];
    const h1 = 0.25 * R[r1 + a] + 0.5 * R[r1 + i] + 0.25 * R[r1 + c];
    const h2 = 0.25 * R[r2 + a] + 0.5 * R[r2 + i] + 0.25 * R[r2 + c];
    return 0.25 * h0 + 0.5 * h1 + 0.25 * h2 - r;
  };
  const visit = (i: number, j: number, inBand: boolean): void => {
    const k = j * W + i;
    const r = R[k];
    const y = G[k] - r;
    x[0] = 1;
    x[1] = i === 0 ? R[k + 1] - r : i === W - 1 ? r - R[k - 1] : 0.5 * (R[k + 1] - R[k - 1]);
    x[2] = j === 0 ? R[k + W] - r : j === H - 1 ? r - R[k - W] : 0.5 * (R[k + W] - R[k - W]);
    x[3] = r - referenceMean;
    x[4] = blur(i, j, 1, r);
    x[5] = blur(i, j, 2, r);
    x[6] = blur(i, j, 4, r);
    x[7] = blur(i, j, 8, r);
    x[8] = band > 0 ? (inBand ? 1 : 0) - bandFraction : 0;
    const yr = G[(H - 1 - j) * W + i] - r;
    const yc = G[k - i + (W - 1 - i)] - r;
    const yo = G[(H - 1 - j) * W + (W - 1 - i)] - r;
    const yt = square ? G[i * W + j] - r : 0;
    // NaN or ±Inf anywhere: x − x is not 0.
    const probe = y + x[1] + x[2] + x[4] + x[5] + x[6] + x[7] + yr + yc + yo + yt;
    if (probe - probe !== 0) {
      excluded++;
      return;
    }
    let q = 0;
    for (let a = 0; a < P; a++) {
      const xa = x[a];
      for (let b = a; b < P; b++) row[q++] += xa * x[b];
      row[O_C + a] += xa * y;
    }
    row[O_YY] += y * y;
    row[O_Y] += y;
    row[O_CHK] += yr * yr;
    row[O_CHK + 1] += yc * yc;
    row[O_CHK + 2] += yo * yo;
    row[O_CHK + 3] += yt * yt;
    row[O_N] += 1;
  };
  const flush = (into: VectorSum) => {
    into.add(row);
    row.fill(0);
  };

  for (let j = 0; j < H; j++) {
    if (j < jLo || j >= jHi) {
      for (let i = 0; i < W; i++) visit(i, j, true);
      flush(bandSum);
      continue;
    }
    for (let i = 0; i < iLo; i++) visit(i, j, true);
    for (let i = iHi; i < W; i++) visit(i, j, true);
    flush(bandSum);
    if ((j - phase) % stride === 0) {
      for (let i = firstOnLattice(iLo); i < iHi; i += stride) visit(i, j, false);
      flush(interiorSum);
    }
  }

  const bandV = bandSum.value();
  const intV = interiorSum.value();
  const tot = new Float64Array(ACC);
  for (let q = 0; q < ACC; q++) tot[q] = bandV[q] + interiorWeight * intV[q];
  const fitPixels = bandV[O_N] + intV[O_N];
  const n = tot[O_N];
  const yy = tot[O_YY];
  const spacing = sampleSpacing(grid);
  const base = {
    format: 'heightbench.diagnosis' as const,
    version: 1 as const,
    grid: { columns: W, rows: H, texelMetres: { x: spacing.dx, y: spacing.dy }, rowDirection: grid.rowDirection },
    generatedSource: gf ? ('generated-float' as const) : generated.kind === 'float' ? ('float' as const) : ('codes' as const),
    sampling: { stride, fitPixels, interiorWeight, excludedNonFinite: excluded },
    differenceRmsM: n > 0 ? Math.sqrt(yy / n) : Number.NaN,
    differenceMeanM: n > 0 ? tot[O_Y] / n : Number.NaN,
    referenceMeanM: referenceMean,
    threshold,
  };
  // Band pixel share of the whole grid (geometry, not fit weights).
  const bandPixels = W * H - interiorPixels;
  const pixelShare = band > 0 ? bandPixels / (W * H) : 0;

  if (!(yy > 0)) {
    return {
      ...base,
      terms: TERM_NAMES.map((name) => ({ name, signature: SIGNATURES[name], coefficient: null, unit: UNITS[name], share: 0, leftOut: 'Δ is zero' })),
      explainedShare: 0,
      residualRmsM: 0,
      conditionNumber: Number.NaN,
      edgeBand: { width: band, pixelShare, differenceEnergyShare: 0, residualEnergyShare: 0 },
      directChecks: [],
      findings: [],
      verdict: 'identical',
      summary: n > 0 ? 'generated and reference are identical on every compared pixel (Δ = 0): nothing to explain.' : 'no finite pixel pair to compare.',
    };
  }

  // Normal matrix and right-hand side.
  const gram = (v: Float64Array) => {
    const m = new Float64Array(P * P);
    let q = 0;
    for (let a = 0; a < P; a++) for (let b = a; b < P; b++) m[a * P + b] = m[b * P + a] = v[q++];
    return m;
  };
  const A = gram(tot);
  const c = tot.subarray(O_C, O_C + P);
  const leftOut: (string | null)[] = TERM_NAMES.map((name, a) => (A[a * P + a] > 0 ? null : NO_SIGNAL[name]));
  if (band === 0) leftOut[8] = 'edge band width 0';
  // Scale to unit diagonal; drop dependent terms by pivoted (in order) Cholesky.
  const scale = new Float64Array(P);
  for (let a = 0; a < P; a++) scale[a] = leftOut[a] === null ? 1 / Math.sqrt(A[a * P + a]) : 0;
  const S = new Float64Array(P * P);
  for (let a = 0; a < P; a++) for (let b = 0; b < P; b++) S[a * P + b] = A[a * P + b] * scale[a] * scale[b];
  const kept: number[] = [];
  for (let a = 0; a < P; a++) {
    if (leftOut[a] !== null) continue;
    const trial = [...kept, a];
    const pivot = lastPivot(S, P, trial);
    if (pivot < PIVOT_TOLERANCE) leftOut[a] = `a combination of earlier signatures (Cholesky pivot ${pivot.toExponential(2)} < ${PIVOT_TOLERANCE})`;
    else kept.push(a);
  }
  const cs = Array.from(c, (v, a) => v * scale[a]);
  const solveSubset = (idx: number[]): { coef: number[]; r2: number } => {
    if (idx.length === 0) return { coef: [], r2: 0 };
    const m = idx.length;
    const M = new Float64Array(m * m);
    const rhs = new Float64Array(m);
    for (let a = 0; a < m; a++) {
      rhs[a] = cs[idx[a]];
      for (let b = 0; b < m; b++) M[a * m + b] = S[idx[a] * P + idx[b]];
    }
    const z = choleskySolve(M, rhs, m);
    let fit = 0;
    for (let a = 0; a < m; a++) fit += z[a] * rhs[a];
    return { coef: Array.from(z), r2: fit / yy };
  };
  const full = solveSubset(kept);
  const coefficient: (number | null)[] = TERM_NAMES.map(() => null);
  kept.forEach((a, t) => (coefficient[a] = full.coef[t] * scale[a]));

  // Shapley shares of R² over the kept terms (every subset; at most 2^9 small Cholesky solves).
  const m = kept.length;
  const r2Of = new Float64Array(1 << m);
  for (let mask = 1; mask < 1 << m; mask++) {
    const idx: number[] = [];
    for (let t = 0; t < m; t++) if (mask & (1 << t)) idx.push(kept[t]);
    r2Of[mask] = solveSubset(idx).r2;
  }
  const fact = [1];
  for (let t = 1; t <= m; t++) fact.push(fact[t - 1] * t);
  const share = new Float64Array(P);
  for (let t = 0; t < m; t++) {
    let phi = 0;
    for (let mask = 0; mask < 1 << m; mask++) {
      if (mask & (1 << t)) continue;
      const size = popcount(mask);
      phi += ((fact[size] * fact[m - size - 1]) / fact[m]) * (r2Of[mask | (1 << t)] - r2Of[mask]);
    }
    share[kept[t]] = phi;
  }
  const r2 = full.r2;
  const residualSS = Math.max(yy * (1 - r2), 0);

  // Edge band: Σ Δ² and Σ r² within the band (band sums only: r'r = y'y − 2 b'X'y + b'X'Xb).
  const bA = gram(bandV);
  const bC = bandV.subarray(O_C, O_C + P);
  let bandResidual = bandV[O_YY];
  for (let a = 0; a < P; a++) {
    const ca = coefficient[a];
    if (ca === null) continue;
    bandResidual -= 2 * ca * bC[a];
    for (let b = 0; b < P; b++) {
      const cb = coefficient[b];
      if (cb !== null) bandResidual += ca * cb * bA[a * P + b];
    }
  }
  bandResidual = Math.max(bandResidual, 0);
  const edge = {
    width: band,
    pixelShare,
    differenceEnergyShare: band > 0 ? bandV[O_YY] / yy : 0,
    residualEnergyShare: band > 0 && residualSS > 0 ? Math.min(bandResidual / residualSS, 1) : 0,
  };

  const directChecks: DirectCheck[] = CHECKS.filter((name) => name !== 'transpose' || square).map((name) => {
    const ss = tot[O_CHK + CHECKS.indexOf(name)];
    return { name, explainedShare: 1 - ss / yy, residualRmsM: Math.sqrt(ss / n) };
  });

  const terms: DiagnosisTerm[] = TERM_NAMES.map((name, a) => ({
    name,
    signature: SIGNATURES[name],
    coefficient: coefficient[a],
    unit: UNITS[name],
    share: share[a],
    leftOut: leftOut[a],
  }));
  const findings = buildFindings(terms, directChecks, edge, base.grid, referenceMean, r2, residualSS, yy);
  const top = findings[0];
  const explained = r2 >= threshold || (top !== undefined && top.share >= threshold);
  // [R] A shift found on both axes is named on both in the headline, not only on the larger one.
  const otherAxis =
    top && (top.kind === 'shiftX' || top.kind === 'shiftY') ? findings.filter((f) => f !== top && (f.kind === 'shiftX' || f.kind === 'shiftY')) : [];
  const summary = explained
    ? `${top.sentence}${otherAxis.map((f) => ` Also ${f.sentence}`).join('')}${findings.length > 1 || r2 > top.share + 0.05 ? ` (all signatures together explain ${pct(r2)})` : ''}`
    : `nothing in the signature set explains the difference: the best combination explains ${pct(r2)} of it (threshold ${pct(threshold)}), residual RMS ${fmtM(Math.sqrt(residualSS / n))}.`;
  return {
    ...base,
    terms,
    explainedShare: r2,
    residualRmsM: Math.sqrt(residualSS / n),
    conditionNumber: conditionNumber(S, P, kept),
    edgeBand: edge,
    directChecks,
    findings,
    verdict: explained ? 'explained' : 'unexplained',
    summary,
  };
}

const SIGNATURES: Record<TermName, string> = {
  bias: '1 (a constant offset)',
  shiftX: '∂H/∂x, central difference along columns, metres per texel',
  shiftY: '∂H/∂y, central difference along rows, metres per texel',
  gain: 'H − mean(H)',
  blur1: 'B₁H − H: one separable [¼ ½ ¼] pass at step 1 texel, minus H',
  blur2: 'B₂H − H: one separable [¼ ½ ¼] pass at step 2 texels, minus H',
  blur4: 'B₄H − H: one separable [¼ ½ ¼] pass at step 4 texels, minus H',
  blur8: 'B₈H − H: one separable [¼ ½ ¼] pass at step 8 texels, minus H',
  edgeBand: '1 within the edge band (k texels of the border), else 0; minus the band fraction',
};
const UNITS: Record<TermName, DiagnosisTerm['unit']> = {
  bias: 'm',
  shiftX: 'texel',
  shiftY: 'texel',
  gain: 'ratio',
  blur1: 'passes',
  blur2: 'passes',
  blur4: 'passes',
  blur8: 'passes',
  edgeBand: 'm',
};
const NO_SIGNAL: Record<TermName, string> = {
  bias: 'no fit pixels',
  shiftX: 'no signal: the reference is flat along x',
  shiftY: 'no signal: the reference is flat along y',
  gain: 'no signal: the reference is flat',
  blur1: 'no signal: the reference has no curvature at this scale',
  blur2: 'no signal: the reference has no curvature at this scale',
  blur4: 'no signal: the reference has no curvature at this scale',
  blur8: 'no signal: the reference has no curvature at this scale',
  edgeBand: 'no pixels in the edge band',
};

function weightedMean(
  R: Float32Array,
  W: number,
  H: number,
  L: { iLo: number; iHi: number; jLo: number; jHi: number; stride: number; interiorWeight: number; firstOnLattice: (lo: number) => number },
): number {
  // Plain float64 sums per row, Neumaier across rows; non-finite values skipped.
  let bs = 0;
  let bc = 0;
  let is = 0;
  let ic = 0;
  let bn = 0;
  let inn = 0;
  const addB = (v: number) => {
    const t = bs + v;
    bc += Math.abs(bs) >= Math.abs(v) ? bs - t + v : v - t + bs;
    bs = t;
  };
  const addI = (v: number) => {
    const t = is + v;
    ic += Math.abs(is) >= Math.abs(v) ? is - t + v : v - t + is;
    is = t;
  };
  const phase = L.stride >> 1;
  for (let j = 0; j < H; j++) {
    let s = 0;
    const k0 = j * W;
    const add = (i: number) => {
      const v = R[k0 + i];
      if (v - v === 0) {
        s += v;
        return 1;
      }
      return 0;
    };
    if (j < L.jLo || j >= L.jHi) {
      for (let i = 0; i < W; i++) bn += add(i);
      addB(s);
      continue;
    }
    for (let i = 0; i < L.iLo; i++) bn += add(i);
    for (let i = L.iHi; i < W; i++) bn += add(i);
    addB(s);
    if ((j - phase) % L.stride === 0) {
      s = 0;
      for (let i = L.firstOnLattice(L.iLo); i < L.iHi; i += L.stride) inn += add(i);
      addI(s);
    }
  }
  const w = L.interiorWeight;
  const den = bn + w * inn;
  return den > 0 ? (bs + bc + w * (is + ic)) / den : 0;
}

function popcount(v: number): number {
  let c = 0;
  while (v) {
    v &= v - 1;
    c++;
  }
  return c;
}

/** Cholesky of the principal submatrix idx of S (P×P); returns the last pivot (squared diagonal of L) relative to its diagonal. */
function lastPivot(S: Float64Array, p: number, idx: number[]): number {
  const m = idx.length;
  const L = new Float64Array(m * m);
  let last = 0;
  for (let a = 0; a < m; a++) {
    for (let b = 0; b <= a; b++) {
      let v = S[idx[a] * p + idx[b]];
      for (let t = 0; t < b; t++) v -= L[a * m + t] * L[b * m + t];
      if (a === b) {
        last = v / S[idx[a] * p + idx[a]];
        L[a * m + a] = Math.sqrt(Math.max(v, 0)) || 1e-300;
      } else {
        L[a * m + b] = v / L[b * m + b];
      }
    }
  }
  return last;
}

/** Solves M z = rhs (M symmetric positive definite, m×m) by Cholesky. */
function choleskySolve(M: Float64Array, rhs: Float64Array, m: number): Float64Array {
  const L = new Float64Array(m * m);
  for (let a = 0; a < m; a++) {
    for (let b = 0; b <= a; b++) {
      let v = M[a * m + b];
      for (let t = 0; t < b; t++) v -= L[a * m + t] * L[b * m + t];
      if (a === b) {
        if (!(v > 0))
          throw new Error(`diagnose: normal matrix not positive definite at pivot ${a} (${v}); the conditioning check should have removed this term`);
        L[a * m + a] = Math.sqrt(v);
      } else {
        L[a * m + b] = v / L[b * m + b];
      }
    }
  }
  const z = new Float64Array(m);
  for (let a = 0; a < m; a++) {
    let v = rhs[a];
    for (let t = 0; t < a; t++) v -= L[a * m + t] * z[t];
    z[a] = v / L[a * m + a];
  }
  for (let a = m - 1; a >= 0; a--) {
    let v = z[a];
    for (let t = a + 1; t < m; t++) v -= L[t * m + a] * z[t];
    z[a] = v / L[a * m + a];
  }
  return z;
}

/** λmax / λmin of the kept principal submatrix of S (cyclic Jacobi; the matrix is at most 9×9). */
function conditionNumber(S: Float64Array, p: number, idx: number[]): number {
  const m = idx.length;
  if (m === 0) return Number.NaN;
  const A = new Float64Array(m * m);
  for (let a = 0; a < m; a++) for (let b = 0; b < m; b++) A[a * m + b] = S[idx[a] * p + idx[b]];
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let a = 0; a < m; a++) for (let b = a + 1; b < m; b++) off += A[a * m + b] ** 2;
    if (off < 1e-30) break;
    for (let a = 0; a < m; a++) {
      for (let b = a + 1; b < m; b++) {
        const apq = A[a * m + b];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (A[b * m + b] - A[a * m + a]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const cth = 1 / Math.sqrt(t * t + 1);
        const sth = t * cth;
        for (let r = 0; r < m; r++) {
          const x = A[r * m + a];
          const y = A[r * m + b];
          A[r * m + a] = cth * x - sth * y;
          A[r * m + b] = sth * x + cth * y;
        }
        for (let r = 0; r < m; r++) {
          const x = A[a * m + r];
          const y = A[b * m + r];
          A[a * m + r] = cth * x - sth * y;
          A[b * m + r] = sth * x + cth * y;
        }
      }
    }
  }
  let lo = Infinity;
  let hi = 0;
  for (let a = 0; a < m; a++) {
    const v = A[a * m + a];
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return lo > 0 ? hi / lo : Infinity;
}

function pct(v: number): string {
  const p = v * 100;
  return `${Math.abs(p) >= 10 || p === 0 ? p.toFixed(0) : p.toFixed(1)} %`;
}

function fmtM(v: number): string {
  const a = Math.abs(v);
  if (a !== 0 && a < 0.1) return `${(v * 1000).toPrecision(3)} mm`;
  return `${v.toFixed(3)} m`;
}

/** 1 + g with enough digits to show g (×1.0100, or ×(1 − 1.02e-5) for tiny gains). */
function factor(g: number): string {
  if (Math.abs(g) >= 1e-3) return (1 + g).toFixed(4);
  return `(1 ${g >= 0 ? '+' : '−'} ${Math.abs(g).toExponential(2)})`;
}

/** A count of passes: two decimals, or three significant digits below 0.01. */
function small(v: number): string {
  return Math.abs(v) >= 0.01 || v === 0 ? v.toFixed(2) : v.toPrecision(3);
}

function signed(v: number, digits: number): string {
  return `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(digits)}`;
}

function buildFindings(
  terms: DiagnosisTerm[],
  checks: DirectCheck[],
  edge: Diagnosis['edgeBand'],
  grid: Diagnosis['grid'],
  mean: number,
  r2: number,
  residualSS: number,
  yy: number,
): Finding[] {
  const out: Finding[] = [];
  const explains = (s: number) => `this explains ${pct(s)} of the difference`;
  const yWorld = grid.rowDirection === 'row0-at-ymin' ? 1 : -1;
  // A gain about 0 m (generated ≈ (1 + g)·reference) fits as gain about the mean plus a bias of g·mean: when the bias
  // is that within 10 %, the two are one finding (the shares add).
  const gainTerm = terms.find((t) => t.name === 'gain');
  const biasTerm = terms.find((t) => t.name === 'bias');
  const g0 = gainTerm?.coefficient ?? null;
  const b0 = biasTerm?.coefficient ?? null;
  const gainAboutZero = g0 !== null && b0 !== null && b0 !== 0 && Math.abs(b0 - g0 * mean) <= 0.1 * Math.abs(b0);
  for (const t of terms) {
    if (gainAboutZero && t.name === 'bias') continue;
    const termShare = gainAboutZero && t.name === 'gain' ? t.share + (biasTerm?.share ?? 0) : t.share;
    if (t.coefficient === null || termShare < MIN_FINDING_SHARE) continue;
    const v = t.coefficient;
    let sentence: string;
    let value = v;
    let unit: string = t.unit;
    switch (t.name) {
      case 'bias':
        sentence = `generated is ${v >= 0 ? 'higher' : 'lower'} than the reference by ${fmtM(Math.abs(v))} on average (bias ${signed(v, 4)} m); ${explains(t.share)}.`;
        break;
      case 'shiftX':
        sentence = `generated is shifted by ${signed(v, 2)} texel in x: pixel (i, j) shows the reference at column i ${v >= 0 ? '+' : '−'} ${Math.abs(v).toFixed(2)} (${signed(v * grid.texelMetres.x, 3)} m in world x); ${explains(t.share)}.`;
        break;
      case 'shiftY':
        sentence = `generated is shifted by ${signed(v, 2)} texel in y: pixel (i, j) shows the reference at row j ${v >= 0 ? '+' : '−'} ${Math.abs(v).toFixed(2)} (${signed(v * grid.texelMetres.y * yWorld, 3)} m in world y, rows ${grid.rowDirection}); ${explains(t.share)}.`;
        break;
      case 'gain':
        value = 1 + v;
        unit = 'factor';
        sentence = gainAboutZero
          ? `generated is the reference scaled by ×${factor(v)} about 0 m (fitted as that gain about the mean ${mean.toFixed(2)} m plus the matching bias); ${explains(termShare)}.`
          : `generated has a gain of ×${factor(v)} about the reference mean ${mean.toFixed(2)} m (relief ${v >= 0 ? 'exaggerated' : 'flattened'}); ${explains(t.share)}.`;
        break;
      case 'edgeBand':
        sentence = `generated differs by ${signed(v, 4)} m more within ${edge.width} texels of the border than elsewhere (an addressing or border-rule difference); ${explains(t.share)}.`;
        break;
      default: {
        const s = Number(t.name.slice(4));
        sentence =
          v >= 0
            ? `generated is smoother than the reference at the ${s}-texel scale, like ${small(v)} extra pass${Math.abs(v - 1) < 0.005 ? '' : 'es'} of a [¼ ½ ¼] filter with taps ${s} texel${s > 1 ? 's' : ''} apart in x and y; ${explains(t.share)}.`
            : `generated is sharper than the reference at the ${s}-texel scale, like ${small(Math.abs(v))} pass${Math.abs(v + 1) < 0.005 ? '' : 'es'} of a [¼ ½ ¼] filter (taps ${s} texel${s > 1 ? 's' : ''} apart) removed; ${explains(t.share)}.`;
      }
    }
    out.push({ kind: t.name, value, unit, share: termShare, sentence });
  }
  const CHECK_TEXT: Record<CheckName, string> = {
    rowFlip: 'generated is the reference with its rows in reverse order (flipped row direction)',
    columnFlip: 'generated is the reference with its columns in reverse order (mirrored in x)',
    rotate180: 'generated is the reference turned by 180° (rows and columns reversed)',
    transpose: 'generated is the reference transposed (rows and columns swapped)',
  };
  for (const c of checks) {
    // A direct check is a finding only when undoing it removes more than the whole regression does.
    if (c.explainedShare < MIN_FINDING_SHARE || c.explainedShare <= r2) continue;
    out.push({
      kind: c.name,
      value: c.explainedShare,
      unit: 'share',
      share: c.explainedShare,
      sentence: `${CHECK_TEXT[c.name]}: undoing it removes ${pct(c.explainedShare)} of the difference.`,
    });
  }
  // Energy left after the fit and concentrated in the band: an addressing signature the constant cannot capture.
  if (edge.width > 0 && edge.pixelShare < 0.25 && edge.residualEnergyShare >= 0.5) {
    const s = (residualSS * edge.residualEnergyShare) / yy;
    if (s >= MIN_FINDING_SHARE && !out.some((f) => f.kind === 'edgeBand' && f.share > s)) {
      out.push({
        kind: 'edgeBand',
        value: edge.residualEnergyShare,
        unit: 'share of residual',
        share: s,
        sentence: `${pct(edge.residualEnergyShare)} of what the fit leaves lies within ${edge.width} texels of the border (${pct(edge.pixelShare)} of the pixels): an addressing or border-rule difference; ${explains(s)}.`,
      });
    }
  }
  out.sort((a, b) => b.share - a.share);
  return out;
}

/** Plain-text rendering of a diagnosis (what `heightbench diagnose` prints without --json). */
export function diagnosisText(d: Diagnosis): string {
  const lines: string[] = [];
  lines.push(`diagnosis: ${d.summary}`);
  if (d.verdict === 'identical') return `${lines.join('\n')}\n`;
  lines.push(
    `Δ = generated − reference over ${d.sampling.fitPixels} fit pixels (stride ${d.sampling.stride}${d.sampling.excludedNonFinite ? `, ${d.sampling.excludedNonFinite} non-finite left out` : ''}): RMS ${fmtM(d.differenceRmsM)}, mean ${fmtM(d.differenceMeanM)}; generated heights from ${d.generatedSource}.`,
  );
  if (d.findings.length) {
    lines.push('findings (largest share first):');
    d.findings.forEach((f, n) => lines.push(`  ${n + 1}. ${f.sentence}`));
  }
  lines.push(
    `fit: R² ${pct(d.explainedShare)} (shares are Shapley values of R²), residual RMS ${fmtM(d.residualRmsM)}, condition number ${d.conditionNumber.toPrecision(3)}`,
  );
  lines.push('  term       coefficient        share   signature');
  for (const t of d.terms) {
    const coef = t.coefficient === null ? `left out: ${t.leftOut}` : `${t.coefficient.toPrecision(5)} ${t.unit}`;
    lines.push(
      `  ${t.name.padEnd(10)} ${coef.padEnd(18)} ${t.coefficient === null ? '' : pct(t.share).padStart(7)}   ${t.coefficient === null ? '' : t.signature}`,
    );
  }
  lines.push(
    `direct checks (share of Σ Δ² removed by undoing each): ${d.directChecks.map((c) => `${c.name} ${c.explainedShare > 0 ? pct(c.explainedShare) : 'none (makes Δ larger)'}`).join(', ')}`,
  );
  lines.push(
    `edge band (${d.edgeBand.width} texels, ${pct(d.edgeBand.pixelShare)} of pixels): ${pct(d.edgeBand.differenceEnergyShare)} of Σ Δ², ${pct(d.edgeBand.residualEnergyShare)} of the residual`,
  );
  return `${lines.join('\n')}\n`;
}
