#!/usr/bin/env node
// Writes a run's per-stage hashes (SHA-256 of every stage output file of the generated f32 run and of its references)
// as small JSON committed to git beside metrics.json, so `heightbench regress` can tell which stage moved between two
// commits without the large outputs. Sidecars and timings.json are left out: a sidecar names the producer version and
// timings are never deterministic; the payload hash is what says whether a stage's values moved. pipeline.json (the
// run's pipeline declaration) is no stage output: regress reads it from the run folder's declaration, not from here.
// Usage: stage-hashes.mjs GEN_DIR REF_DIR OUT.json (scripts/checks.mjs runs it in its own process, lending the digests
// of the files its checks read and verified).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertFreshDist } from '../bin/source-check.mjs';

const STAGE_FILE = /^(?!timings\.json$|pipeline\.json$)[^.][^/]*\.(r16|r32|png|json)$/;

/**
 * { file: sha256 } for the stage outputs in `dir` (sidecars `<file>.<ext>.json` excluded), sorted by name.
 * `known(path)`: the SHA-256 of that file's bytes when already verified (checks.mjs), else undefined (hashed here).
 */
export function stageHashes(dir, known = () => undefined) {
  if (!existsSync(dir)) return null;
  const out = {};
  for (const f of readdirSync(dir).sort()) {
    if (!STAGE_FILE.test(f) || /\.(r16|r32|png)\.json$/.test(f)) continue;
    const path = join(dir, f);
    out[f] = known(path) ?? createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return out;
}

/** Writes OUT.json for GEN_DIR and REF_DIR; returns the exit status (2: no GEN_DIR). */
export async function writeStageHashes(gen, ref, outPath, known) {
  const doc = { generated: stageHashes(gen, known), references: stageHashes(ref, known) };
  if (!doc.generated) {
    console.error(`stage-hashes: no folder ${gen}`);
    return 2;
  }
  // A temporary file renamed over the destination (dist/io/atomic.js): a planted link is replaced, never written through.
  const { writeFileAtomic } = await import('../dist/io/atomic.js');
  writeFileAtomic(outPath, `${JSON.stringify(doc, null, 2)}\n`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // dist/ must be built from the sources the DVC stages depend on (bin/source-check.mjs).
  assertFreshDist('stage-hashes');
  const [gen, ref, outPath] = process.argv.slice(2);
  if (!gen || !ref || !outPath) {
    console.error('usage: stage-hashes.mjs GEN_DIR REF_DIR OUT.json');
    process.exit(2);
  }
  process.exit(await writeStageHashes(gen, ref, outPath));
}
