/**
 * `heightbench/terrain`: the engine heightfield — description and derived numbers, tiles and mips, edit layers, brushes,
 * versioned stores, import and resize, holes and weights, collision tiles for Jolt, CDLOD patch selection.
 */
export { describeTerrain, TILE_PRESETS, JOLT_HEIGHTFIELD, DEFAULT_BITS_PER_SAMPLE } from '../terrain/description.js';
export type { TerrainDescription, DerivedNumbers, TileKind } from '../terrain/description.js';
export { tileWindow, readTile, maxReduce, tileMip0, tileMips } from '../terrain/tiles.js';
export type { TileWindow } from '../terrain/tiles.js';
export { LayerStack, EditLayer, CHUNK, LAYER_KINDS } from '../terrain/layers.js';
export type { LayerKind, Rect } from '../terrain/layers.js';
export { writeStore, readStore, deltaLayer, STORE_VERSION, writeTerrainStore, readTerrainStore, STORE_VERSIONS_READ } from '../terrain/store.js';
export { exportTiles } from '../terrain/export.js';
export { createTerrain } from '../terrain/terrain.js';
export type { Terrain, CreateOptions } from '../terrain/terrain.js';
export { TerrainWeights } from '../terrain/weights.js';
export { TerrainHoles, QUAD_TRIANGLES, triangleAlive } from '../terrain/holes.js';
export { acceptsBrush, brushRefusal, addKindLayer, stampHill, setLayerVisible, setLayerAlpha, moveLayer, collapseLayer } from '../terrain/kinds.js';
export { importLayer, importHeights } from '../terrain/import-layer.js';
export type { ImportResult } from '../terrain/import-layer.js';
export { resizeTerrain, baseCodeAcrossRanges, deltaStepsAcrossRanges } from '../terrain/resize.js';
export type { ResizeOptions, ResizeReport } from '../terrain/resize.js';
export { collisionTile, collisionSettings, COLLISION_NO_HEIGHT } from '../terrain/collision.js';
export type { CollisionTile, CollisionOptions, HeightFieldPlacement } from '../terrain/collision.js';
export { PatchSelector, PatchList, HeightfieldPatchSource, minimalRanges } from '../terrain/cdlod.js';
export type { PatchSource, SelectorSettings } from '../terrain/cdlod.js';
