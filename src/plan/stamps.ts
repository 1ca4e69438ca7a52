/**
 * Natural stamps (article: "Natural Stamps Turn Configured Resources into Local Landforms", "What Selection,
 * Instances, and Resources Store", "How Draw Order Affects the Final Surface").
 *
 * Inputs: regions (parents = Region, cells = SubRegion), the world's ZoneItems → StampGroups → StampInfos → keys,
 * the stream, the field after support, the stamp assets.
 * Outputs: instances (selection order = draw order), draws per key, the field after stamps.
 * Rules [D]: the hierarchy is walked level by level ("Parent ranges constrain generation space, groups organize
 * candidates, item weights participate at their own selection level, and overlap conditions constrain spatial
 * relationships between instances"); placement × asset-local × joint transforms ("joints and local transforms
 * determine the actual terrain element's pose"); existing-terrain queries feed draw parameters ("Existing terrain
 * height also contributes to draw inputs"); Sample → HeightProgram → Blend per destination pixel (the article's
 * interface); draw order preserved ("Preserve the established instance and draw order"); stamps raise and lower
 * ("Both signs occur"). [R] The overlap condition is a minimum spacing per StampGroup.
 * [R] Walk: for each parent region in order, one ZoneItem is drawn by weight among those whose height groups include
 *     the parent's; for each of its cells, a count is drawn from the ZoneItem's range; for each instance a StampGroup
 *     (by weight), a StampInfo (by weight, zero weights ineligible), a position inside the cell (rejection sampling,
 *     at most `maxAttempts` tries, each try's draws consumed) that keeps `minSpacing` from earlier instances of the
 *     same group, a rotation and a scale. A position that finds no room after every try is dropped (counted).
 *     Transform, applied to a local point: joint (scale, rotate, translate in the asset frame), then placement
 *     (scale, rotate by the instance rotation, translate to the instance position).
 *     HeightProgram and Blend per StampInfo: 'add' h + k·s; 'max' max(h, hmin + bias + k·s); 'min' min(h, hmax + k·s);
 *     'lerp' h + α·(s/sMax)·(hc + k·s − h) — hmin, hmax, hc are the lower envelope, upper envelope and centre height of
 *     the current field over the instance footprint (the existing-terrain query); k the program strength.
 */
import type { PrngStream } from './prng.js';
import { weightedPick } from './recipe.js';
import type { RegionMap } from './cells.js';
import { chain, rotation, scaling, translation, type Affine } from '../core/transforms.js';
import type { StampInfoDef, WorldConfig } from '../world/world.js';

export interface StampInstance {
  id: number;
  parent: number;
  cell: number;
  zone: string;
  group: string;
  info: string;
  key: string;
  x: number;
  y: number;
  rotation: number;
  scale: number;
}

export interface StampSelection {
  instances: StampInstance[];
  dropped: number;
  drawsPerKey: Record<string, number>;
}

function pointInCell(m: RegionMap, c: number, x: number, y: number): boolean {
  const ids = m.cell_corners[c];
  let inside = false;
  for (let a = 0, b = ids.length - 1; a < ids.length; b = a++) {
    const xa = m.corner_xy[2 * ids[a]];
    const ya = m.corner_xy[2 * ids[a] + 1];
    const xb = m.corner_xy[2 * ids[b]];
    const yb = m.corner_xy[2 * ids[b] + 1];
    if (ya > y !== yb > y && x < ((xb - xa) * (y - ya)) / (yb - ya) + xa) inside = !inside;
  }
  return inside;
}

export function selectStamps(m: RegionMap, world: WorldConfig, stream: PrngStream): StampSelection {
  stream.stage('stamps');
  const S = world.stamps;
  const infos = new Map(S.infos.map((i) => [i.id, i]));
  const groups = new Map(S.groups.map((g) => [g.id, g]));
  const instances: StampInstance[] = [];
  const byGroup = new Map<string, StampInstance[]>();
  let dropped = 0;
  const cellsOf: number[][] = Array.from({ length: m.parent_group.length }, () => []);
  m.cell_parent.forEach((q, c) => cellsOf[q].push(c));
  for (let q = 0; q < m.parent_group.length; q++) {
    const zones = S.zoneItems.filter((z) => z.groups.includes(m.parent_group[q]));
    const zk = weightedPick(
      stream,
      zones.map((z) => ({ weight: z.weight, eligible: true })),
    );
    if (zk < 0) continue;
    const zone = zones[zk];
    const zoneGroups = zone.stampGroups.map((id) => groups.get(id)!);
    for (const c of cellsOf[q]) {
      const [a, b] = zone.countRange;
      const count = a + stream.below(b - a + 1);
      const ids = m.cell_corners[c];
      let x0 = Infinity;
      let x1 = -Infinity;
      let y0 = Infinity;
      let y1 = -Infinity;
      for (const id of ids) {
        x0 = Math.min(x0, m.corner_xy[2 * id]);
        x1 = Math.max(x1, m.corner_xy[2 * id]);
        y0 = Math.min(y0, m.corner_xy[2 * id + 1]);
        y1 = Math.max(y1, m.corner_xy[2 * id + 1]);
      }
      for (let n = 0; n < count; n++) {
        const gk = weightedPick(
          stream,
          zoneGroups.map((g) => ({ weight: g.weight, eligible: true })),
        );
        const group = zoneGroups[gk];
        const groupInfos = group.infos.map((id) => infos.get(id)!);
        const ik = weightedPick(
          stream,
          groupInfos.map((i) => ({ weight: i.weight, eligible: true })),
        );
        if (ik < 0) continue;
        const info = groupInfos[ik];
        let pos: [number, number] | null = null;
        for (let t = 0; t < S.maxAttempts && !pos; t++) {
          const x = x0 + (x1 - x0) * stream.uniform();
          const y = y0 + (y1 - y0) * stream.uniform();
          if (!pointInCell(m, c, x, y)) continue;
          const near = (byGroup.get(group.id) ?? []).some((o) => Math.hypot(o.x - x, o.y - y) < group.minSpacing);
          if (!near) pos = [x, y];
        }
        if (!pos) {
          dropped++;
          continue;
        }
        const rot = 2 * Math.PI * stream.uniform();
        const scale = info.scaleRange[0] + (info.scaleRange[1] - info.scaleRange[0]) * stream.uniform();
        const inst: StampInstance = {
          id: instances.length,
          parent: q,
          cell: c,
          zone: zone.id,
          group: group.id,
          info: info.id,
          key: info.key,
          x: pos[0],
          y: pos[1],
          rotation: rot,
          scale,
        };
        instances.push(inst);
        if (!byGroup.has(group.id)) byGroup.set(group.id, []);
        byGroup.get(group.id)!.push(inst);
      }
    }
  }
  const drawsPerKey: Record<string, number> = {};
  for (const i of instances) drawsPerKey[i.key] = (drawsPerKey[i.key] ?? 0) + 1;
  return { instances, dropped, drawsPerKey };
}

/** Local point → world: joint (scale, rotate, translate), then placement (scale, rotate, translate). */
export function stampMatrix(inst: StampInstance, info: StampInfoDef): Affine {
  const j = info.joint;
  return chain(
    scaling(j.scale),
    rotation((j.rotationDeg * Math.PI) / 180),
    translation(j.offset[0], j.offset[1]),
    scaling(inst.scale),
    rotation(inst.rotation),
    translation(inst.x, inst.y),
  );
}
