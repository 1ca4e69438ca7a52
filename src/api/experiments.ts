/**
 * `heightbench/experiments`: the ablation atlas (every convention switched off, one at a time, against the correct
 * run) and the bell accumulation (seed 002's bell fields, shading). accumulateBells and shadeLightness are in the
 * package root.
 */
export { accumulateFast, accumulateNaive, bellGenerators, bellGrid, maxRelativeDeviation, BELL_DEFAULTS } from '../bell/bell-sum.js';
export type { BellParams, BellPath } from '../bell/bell-sum.js';
export { applySeaLevel, shadedPng, SHADING_DEFAULTS } from '../bell/shading.js';
export { ABLATIONS, ATLAS_EDGE_BAND, ATLAS_STAGES, SIGNATURE_NOTES, buildAtlas } from '../experiments/atlas.js';
export type { AblationSpec, Atlas, AtlasEntry } from '../experiments/atlas.js';
