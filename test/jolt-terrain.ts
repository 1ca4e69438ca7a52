/**
 * Jolt (npm jolt-physics 1.1.0, the WebAssembly build of JoltPhysics) as the client of the collision export — shared by
 * test/terrain-jolt.test.ts and bench/sections/jolt.ts.
 *
 * Inputs: collision tiles from `collisionTile` (heights with the sentinel at holes, block size, bits per sample,
 * placement). Outputs: one Jolt HeightFieldShape per tile, placed as a static body in a PhysicsSystem, and vertical
 * ray casts through Jolt's NarrowPhaseQuery (what a game's ground probe calls).
 * Rules:
 *  - shape space: Jolt's height field is mOffset + mScale · (x, height, y) for integer sample x (column) and y (row),
 *    so mOffset = (cornerX, 0, cornerZ) and mScale = (step, 1, step) put sample (i, j) of the terrain at world
 *    (i · step, height, j · step) — the placement the export states;
 *  - the sentinel is written as given; Jolt's cNoCollisionValue is FLT_MAX, the value the export uses (checked by the
 *    test against HeightFieldShapeConstantValues);
 *  - `joltQuantisationBound` is the derived bound on |Jolt's height − the float given| at a sample (see it).
 */
import initJolt from 'jolt-physics/wasm-compat';
// The package's entry .d.ts re-exports "./types" without an extension, which NodeNext resolution cannot follow (every
// Jolt type would be `any`); the declarations themselves are imported by path so the calls below are type-checked.
import type JoltTypes from '../node_modules/jolt-physics/dist/types.js';
import type { CollisionTile } from '../src/terrain/collision.js';

/** The initialised module: the namespace of Jolt's classes plus the WASM heap. */
export type Jolt = typeof JoltTypes;

let loading: Promise<Jolt> | null = null;
/** One Jolt instance per process (per test file: vitest runs each file in its own fork). */
export function loadJolt(): Promise<Jolt> {
  loading ??= (initJolt as unknown as () => Promise<Jolt>)();
  return loading;
}

/** Builds the HeightFieldShapeSettings of a tile (the caller destroys it or lets the world own it). */
export function heightFieldSettings(J: Jolt, t: CollisionTile): InstanceType<Jolt['HeightFieldShapeSettings']> {
  const S = t.placement.samples;
  const s = new J.HeightFieldShapeSettings();
  const offset = new J.Vec3(t.placement.cornerX, 0, t.placement.cornerZ);
  const scale = new J.Vec3(t.placement.step, 1, t.placement.step);
  s.mOffset = offset;
  s.mScale = scale;
  J.destroy(offset);
  J.destroy(scale);
  s.mSampleCount = S;
  s.mBlockSize = t.blockSize;
  s.mBitsPerSample = t.bitsPerSample;
  s.mHeightSamples.resize(S * S);
  // The samples live in the WASM heap; copy the tile's floats in one set.
  const at = J.getPointer(s.mHeightSamples.data()) >> 2;
  J.HEAPF32.set(t.heights.subarray(0, S * S), at);
  return s;
}

/** Creates the shape; returns it, or Jolt's error text (Jolt reports a refusal as an error, not as nothing). */
export function createShape(
  J: Jolt,
  settings: InstanceType<Jolt['HeightFieldShapeSettings']>,
): { shape: InstanceType<Jolt['HeightFieldShape']> | null; error: string | null } {
  const r = settings.Create();
  if (r.HasError() || !r.IsValid()) return { shape: null, error: r.HasError() ? r.GetError().c_str() : 'invalid, no error' };
  const shape = J.castObject(r.Get(), J.HeightFieldShape);
  return { shape, error: null };
}

export interface RayHit {
  /** Height of the hit point, metres. */
  y: number;
  /** Jolt's world-space surface normal at the hit. */
  normal: [number, number, number];
  /** Index of the tile (in the order given to JoltTerrain) whose body was hit. */
  tile: number;
}

/** A PhysicsSystem with one static HeightFieldShape body per collision tile, and a vertical ray probe. */
export class JoltTerrain {
  private readonly iface: InstanceType<Jolt['JoltInterface']>;
  private readonly bodyTile = new Map<number, number>();
  private readonly ray: InstanceType<Jolt['RRayCast']>;
  private readonly settings: InstanceType<Jolt['RayCastSettings']>;
  private readonly collector: InstanceType<Jolt['CastRayClosestHitCollisionCollector']>;
  private readonly bpFilter: InstanceType<Jolt['DefaultBroadPhaseLayerFilter']>;
  private readonly olFilter: InstanceType<Jolt['DefaultObjectLayerFilter']>;
  private readonly bodyFilter: InstanceType<Jolt['BodyFilter']>;
  private readonly shapeFilter: InstanceType<Jolt['ShapeFilter']>;
  private readonly origin: InstanceType<Jolt['RVec3']>;
  private readonly dir: InstanceType<Jolt['Vec3']>;
  readonly shapes: InstanceType<Jolt['HeightFieldShape']>[] = [];

  constructor(
    private readonly J: Jolt,
    tiles: readonly CollisionTile[],
    /** Ray start height and length: from `top` straight down by `depth` metres. */
    readonly top: number,
    readonly depth: number,
  ) {
    const LAYER = 0;
    const objectFilter = new J.ObjectLayerPairFilterTable(1);
    objectFilter.EnableCollision(LAYER, LAYER);
    const bpInterface = new J.BroadPhaseLayerInterfaceTable(1, 1);
    bpInterface.MapObjectToBroadPhaseLayer(LAYER, new J.BroadPhaseLayer(0));
    const js = new J.JoltSettings();
    js.mObjectLayerPairFilter = objectFilter;
    js.mBroadPhaseLayerInterface = bpInterface;
    js.mObjectVsBroadPhaseLayerFilter = new J.ObjectVsBroadPhaseLayerFilterTable(bpInterface, 1, objectFilter, 1);
    js.mMaxWorkerThreads = 0;
    this.iface = new J.JoltInterface(js);
    J.destroy(js);
    const system = this.iface.GetPhysicsSystem();
    const bodies = system.GetBodyInterface();
    const zero = new J.RVec3(0, 0, 0);
    const identity = new J.Quat(0, 0, 0, 1);
    tiles.forEach((t, k) => {
      const s = heightFieldSettings(J, t);
      const { shape, error } = createShape(J, s);
      if (!shape) throw new Error(`Jolt refused tile (${t.tx}, ${t.ty}): ${error}`);
      this.shapes.push(shape);
      const bcs = new J.BodyCreationSettings(shape, zero, identity, J.EMotionType_Static, LAYER);
      const id = bodies.CreateAndAddBody(bcs, J.EActivation_DontActivate);
      this.bodyTile.set(id.GetIndexAndSequenceNumber(), k);
      J.destroy(bcs);
      J.destroy(s);
    });
    J.destroy(zero);
    J.destroy(identity);
    system.OptimizeBroadPhase();
    this.origin = new J.RVec3(0, 0, 0);
    this.dir = new J.Vec3(0, -depth, 0);
    this.ray = new J.RRayCast(this.origin, this.dir);
    this.settings = new J.RayCastSettings();
    this.collector = new J.CastRayClosestHitCollisionCollector();
    this.bpFilter = new J.DefaultBroadPhaseLayerFilter(this.iface.GetObjectVsBroadPhaseLayerFilter(), LAYER);
    this.olFilter = new J.DefaultObjectLayerFilter(this.iface.GetObjectLayerPairFilter(), LAYER);
    this.bodyFilter = new J.BodyFilter();
    this.shapeFilter = new J.ShapeFilter();
  }

  /** Casts a ray straight down at world (x, z); the closest hit, or null where Jolt has no ground. */
  castDown(x: number, z: number, withNormal = false): RayHit | null {
    const J = this.J;
    this.origin.Set(x, this.top, z);
    this.ray.mOrigin = this.origin;
    this.collector.Reset();
    const npq = this.iface.GetPhysicsSystem().GetNarrowPhaseQuery();
    npq.CastRay(this.ray, this.settings, this.collector, this.bpFilter, this.olFilter, this.bodyFilter, this.shapeFilter);
    if (!this.collector.HadHit()) return null;
    const hit = this.collector.mHit;
    const y = this.top - hit.mFraction * this.depth;
    const tile = this.bodyTile.get(hit.mBodyID.GetIndexAndSequenceNumber()) ?? -1;
    let normal: [number, number, number] = [Number.NaN, Number.NaN, Number.NaN];
    if (withNormal) {
      const lock = this.iface.GetPhysicsSystem().GetBodyLockInterfaceNoLock();
      const body = lock.TryGetBody(hit.mBodyID);
      const p = new J.RVec3(x, y, z);
      const n = body.GetWorldSpaceSurfaceNormal(hit.mSubShapeID2, p);
      normal = [n.GetX(), n.GetY(), n.GetZ()];
      J.destroy(p);
    }
    return { y, normal, tile };
  }

  destroy(): void {
    const J = this.J;
    for (const o of [this.ray, this.settings, this.collector, this.bpFilter, this.olFilter, this.bodyFilter, this.shapeFilter, this.origin, this.dir])
      J.destroy(o);
    J.destroy(this.iface);
  }
}

/**
 * The bound on |Jolt's height at sample (i, j) of a tile − the float the export gave|, derived from Jolt's
 * quantisation (HeightFieldShape.cpp, HeightFieldShape(const HeightFieldShapeSettings &, …)):
 *  1. every sample is first quantised to 16 bits over the tile's range [min, max] of non-sentinel heights:
 *     q16 = floor(s · (h − min)), s = 65534 / (max − min) (one 16-bit unit u = 1/s metres);
 *  2. each block of B × B samples keeps [r0, r1] in 16-bit units, r0 = min q16 and r1 = max q16 + 1 over the block
 *     and its one-sample border towards +x/+z (the triangles that leave the block), so the block spans
 *     R = (r1 − r0) · u metres, at most (range of the block's heights) + 2u;
 *  3. a sample is stored as q = floor((h − h0) · m / R), h0 = min + r0 · u, m = 2^bits − 1 (m itself is reserved
 *     for "no collision"), and read back as the middle of its step, h0 + (q + ½) · R / m, less ½ · u / m (Jolt
 *     shifts its offset so that a flat field reads back exactly): the error is at most ½ · R/m + ½ · u/m;
 *  4. plus float32 arithmetic in Jolt and in the ray's fraction, `floatSlack` metres.
 * Hence |error| ≤ (blockRange + 3u) / (2m) + floatSlack, with blockRange over the block's (B + 1)² window.
 */
export function joltQuantisationBound(t: CollisionTile, i: number, j: number, floatSlack: number): number {
  const S = t.placement.samples;
  const B = t.blockSize;
  const h = t.heights;
  let min = Infinity;
  let max = -Infinity;
  for (const v of h) {
    if (v === t.sentinel) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const u = Math.max(max - min, 1e-6) / 65534;
  const bi = Math.floor(i / B) * B;
  const bj = Math.floor(j / B) * B;
  let bmin = Infinity;
  let bmax = -Infinity;
  for (let y = bj; y <= Math.min(bj + B, S - 1); y++) {
    for (let x = bi; x <= Math.min(bi + B, S - 1); x++) {
      const v = h[y * S + x];
      if (v === t.sentinel) continue;
      if (v < bmin) bmin = v;
      if (v > bmax) bmax = v;
    }
  }
  const m = 2 ** t.bitsPerSample - 1;
  return (bmax - bmin + 3 * u) / (2 * m) + floatSlack;
}
