/**
 * Stage outputs named by content. Heightfields go through io/heightfield-file (R32/R16/PNG16 + sidecar); structured
 * stages (layout, regions, sources, corners) are JSON documents whose header carries the same conventions a sidecar
 * would: format, stage, request, producer, domain and units.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import type { Plan } from '../plan/plan.js';

export function stageDocument(plan: Plan, stage: string, data: Record<string, unknown>): Record<string, unknown> {
  return {
    format: 'heightbench.stage',
    version: 1,
    stage,
    request: plan.request.id,
    producer: { name: PRODUCER_NAME, version: PRODUCER_VERSION },
    domain: plan.request.domain,
    units: { length: 'm', height: 'm', angle: 'rad' },
    ...data,
  };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export function planStageData(plan: Plan, stage: 'layout' | 'regions' | 'sources' | 'corners'): Record<string, unknown> {
  const { regions: m, layout, sources, corners } = plan;
  switch (stage) {
    case 'layout':
      return {
        recipe: { entry: plan.recipe.entry, subconfiguration: plan.recipe.subIndex, name: plan.recipe.name, probabilities: plan.recipe.probabilities },
        counts: layout.counts,
        narrowing: layout.narrowing,
        instances: layout.instances.map((q) => ({
          id: q.id,
          resource: q.resourceId,
          stage: q.stage,
          x: round(q.x),
          y: round(q.y),
          heading: round(q.heading),
          tags: q.tags,
          parent: q.parent,
          relaxed: q.relaxed,
          supports: q.supports.map((s) => ({ ...s, x: round(s.x), y: round(s.y), angle: round(s.angle) })),
        })),
      };
    case 'regions':
      return {
        counts: {
          cells: m.cell_corners.length,
          corners: m.corner_xy.length / 2,
          parents: m.parent_group.length,
          ...m.counts,
          groupChangesAfterLayout: plan.groupChanges,
        },
        cells: m.cell_corners.map((ids, c) => ({
          id: c,
          site: [round(m.site_xy[2 * c]), round(m.site_xy[2 * c + 1])],
          centre: [round(m.cell_centre[2 * c]), round(m.cell_centre[2 * c + 1])],
          corners: ids,
          parent: m.cell_parent[c],
          group: m.parent_group[m.cell_parent[c]],
        })),
        parents: Array.from(m.parent_group, (g, q) => ({ id: q, seedCell: m.parent_seedCell[q], group: g, relief: m.parent_relief[q] === 1 })),
        corners: Array.from({ length: m.corner_xy.length / 2 }, (_, k) => [round(m.corner_xy[2 * k]), round(m.corner_xy[2 * k + 1])]),
      };
    case 'sources':
      return { sources: sources.map((s) => ({ ...s, x: round(s.x), y: round(s.y), edgeDistance: round(s.edgeDistance), height: round(s.height) })) };
    case 'corners':
      return {
        counts: corners.counts,
        corners: Array.from(corners.corner_height, (h, k) => ({
          id: k,
          x: round(m.corner_xy[2 * k]),
          y: round(m.corner_xy[2 * k + 1]),
          height: round(h),
          branch: corners.corner_branch[k],
        })),
      };
  }
}

export function writeStageJson(dir: string, plan: Plan, stage: 'layout' | 'regions' | 'sources' | 'corners'): string {
  const path = join(dir, `${stage}.json`);
  writeFileAtomic(path, `${JSON.stringify(stageDocument(plan, stage, planStageData(plan, stage)), null, 1)}\n`);
  return path;
}
