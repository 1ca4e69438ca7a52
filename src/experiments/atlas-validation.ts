/**
 * The ablation atlas read as a test of diagnose: per ablation, the diagnosis at the first divergent stage against the
 * signature the ablation is expected to show (the confusion table that report/atlas-report.ts renders).
 */
import type { Atlas, AtlasEntry } from './atlas.js';

/** The diagnosis the confusion table reads: at the first divergent stage, else at pre-encode. */
export function readingOf(e: AtlasEntry): AtlasEntry['diagnosis'] {
  return e.diagnosisAtFirstStage ?? e.diagnosis;
}

/** Top diagnosis as a word: the top finding's kind when diagnose calls Δ explained, else the verdict in parentheses. */
export function topDiagnosis(e: AtlasEntry): string {
  const d = readingOf(e);
  return d.verdict === 'explained' && d.top ? d.top.kind : `(${d.verdict})`;
}

export interface AtlasValidation {
  /** Ablations with an expected signature, and how many diagnose named first. */
  withSignature: number;
  namedFirst: number;
  /** One row per ablation: expected signature, the stage read, the top diagnosis, its value and share. */
  confusion: {
    name: string;
    expect: readonly string[] | null;
    stage: string | null;
    /** topDiagnosis: the top finding's kind, or the verdict in parentheses when diagnose calls Δ not explained. */
    top: string;
    /** The best finding (kind, value, unit, share), also when the verdict is not 'explained'; null when none. */
    best: { kind: string; value: number; unit: string; share: number } | null;
    explainedShare: number;
    namedFirst: boolean | null;
  }[];
  /** Ablations without an expected signature, with the reason. */
  noSignature: { name: string; why: string }[];
}

export function atlasValidation(a: Atlas): AtlasValidation {
  const withSig = a.entries.filter((e) => e.expect !== null);
  const order = [...withSig, ...a.entries.filter((e) => e.expect === null)];
  return {
    withSignature: withSig.length,
    namedFirst: withSig.filter((e) => e.namedFirst).length,
    confusion: order.map((e) => {
      const d = readingOf(e);
      return {
        name: e.name,
        expect: e.expect,
        stage: e.firstDivergentStage === null ? null : d.stage,
        top: topDiagnosis(e),
        best: d.top ? { kind: d.top.kind, value: d.top.value, unit: d.top.unit, share: d.top.share } : null,
        explainedShare: d.explainedShare,
        namedFirst: e.namedFirst,
      };
    }),
    noSignature: a.entries.filter((e) => e.expect === null).map((e) => ({ name: e.name, why: e.signatureNote ?? 'no reason recorded' })),
  };
}
