/**
 * The seed pipeline (the article's) as a declaration, built from the constants its executors, masks and reports use:
 * the stage names and order (conventions STAGES), the encoding range (conventions encoding), the blend ring
 * (conventions outer), the article's scopes and per-stage anchors below, and the cause classes attribution has always
 * given its stages.
 * [R] No footprints are declared for the seed: its stamps and location textures are placed from heights read
 *     elsewhere on the field, so no radius bounds how far a changed pixel spreads; declaring none keeps every seed
 *     difference counted where it first appears, as before.
 */
import { DEFAULT_CONVENTIONS, ENCODED_STAGE, STAGES, type StageName } from '../conventions/index.js';
import { parsePipelineDeclaration, type DeclaredStage, type PipelineDeclaration } from './declaration.js';
import { ARTICLE_SCOPES } from './scopes.js';

export { ARTICLE_SCOPES };

/** [D] The article's per-stage inner-400 m RMS (its rebuild against the original system's reference for the same request), mm. */
export const ARTICLE_STAGE_ANCHORS_MM: Readonly<Record<string, number>> = Object.freeze({ base: 0.203, 'after-support': 0.122 });

/** [R] The report's 3D view of a seed run: a disk of 625 m about the centre (the 620–680 m blend ring's middle ground). */
export const SEED_VIEW3D_RADIUS = 625;

/** [R] The cause classes of the seed's stages (src/compare/attribution.ts CAUSE_CLASSES): the stage that first differs. */
const SEED_CAUSES: Readonly<Record<StageName, Pick<DeclaredStage, 'cause' | 'causeAboveOneCode'>>> = {
  'raster-layer0': { cause: 'rasterizer snapping' },
  raster: { cause: 'rasterizer snapping' },
  base: { cause: 'sampling precision' },
  'after-support': { cause: 'arithmetic order' },
  'after-stamps': { cause: 'sampling precision', causeAboveOneCode: 'quad coverage' },
  'after-locations': { cause: 'sampling precision', causeAboveOneCode: 'quad coverage' },
  'pre-encode': { cause: 'blend order' },
  final: { cause: 'quantization straddle' },
};

const { encoding, outer } = DEFAULT_CONVENTIONS;

/** The seed pipeline's declaration (checked like any other). */
export const SEED_PIPELINE: PipelineDeclaration = parsePipelineDeclaration(
  {
    version: 1,
    name: 'heightbench-seed',
    description: "The article's pipeline: raster, multilevel smoothing, support shapes, stamps, location textures, the outer blend, UNORM16 encoding.",
    stages: STAGES.map((name) => ({
      name,
      holds: name === ENCODED_STAGE ? { kind: 'codes', encoding: 'unorm16', min: encoding.min, max: encoding.max } : { kind: 'float', unit: 'm' },
      ...(name === ENCODED_STAGE ? { encodedFrom: STAGES[STAGES.length - 2] } : {}),
      ...SEED_CAUSES[name],
    })),
    masks: [
      { name: 'innerDisk', kind: 'disk', radius: ARTICLE_SCOPES.innerRadius },
      { name: 'centralWindow', kind: 'window', size: ARTICLE_SCOPES.windowSize },
      { name: 'blendRing', kind: 'annulus', inner: outer.inner, outer: outer.outer },
      { name: 'outsideRing', kind: 'outside', radius: outer.outer },
    ],
    anchors: Object.entries(ARTICLE_STAGE_ANCHORS_MM).map(([stage, rmsMm]) => ({
      stage,
      mask: 'innerDisk',
      rmsMm,
      basis: "the article's rebuild against the original system's reference (a different experiment, shown for scale)",
    })),
    view3d: { radius: SEED_VIEW3D_RADIUS },
  },
  'the seed pipeline',
);
