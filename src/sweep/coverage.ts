/**
 * Branch coverage over many requests: which of the planner's branches (src/plan/branches.ts) each request exercises,
 * which no request exercises, the smallest set of requests found by the greedy set cover that exercises every branch
 * the requests reach, and which branches imported captures already cover.
 *
 * Inputs: the sweep's items (src/sweep/requests.ts), a loader of worlds (the edge), and the captured requests.
 * Outputs: CoverageResult.
 * Rules [R]: planning only (the plan is resolution-independent, so the size plays no part); a branch is exercised by a
 * request when its count there is > 0. The set cover is greedy (repeatedly the request adding the most uncovered
 * branches, the earlier one on a tie): its size is within a factor ln(branches) + 1 of the smallest, not always the
 * smallest — said so wherever it is shown. Branches no world request can take (a recipe without parameters, weight 0)
 * are listed as unreachable, apart from the never-exercised ones.
 */
import { buildPlan, resolveRunConventions } from '../plan/plan.js';
import { branchRegistry, planBranchCounts, type BranchInfo } from '../plan/branches.js';
import { parseRequest, type PipelineRequest } from '../plan/request.js';
import type { WorldConfig } from '../world/world.js';
import type { SweepItem } from './requests.js';

export interface CoverageRow {
  key: string;
  name: string;
  counts: Record<string, number>;
}

export interface CoverageResult {
  registry: BranchInfo[];
  rows: CoverageRow[];
  /** Reachable branches no request exercises. */
  never: string[];
  /** Branches no request of the world can take. */
  unreachable: string[];
  /** The greedy cover: requests in the order chosen, each with the branches it adds. */
  cover: { key: string; name: string; adds: string[] }[];
  captured: { label: string; request: string; counts: Record<string, number> }[];
  /** Exercised branches the captures cover, and those they do not (capture the cover's requests for these). */
  capturedCovers: string[];
  capturedMissing: string[];
  /** The greedy cover of what the captures miss (empty without captures). */
  coverAfterCaptured: { key: string; name: string; adds: string[] }[];
}

/** Branch counts of one request (planning only). */
export function requestBranchCounts(req: PipelineRequest, world: WorldConfig): Record<string, number> {
  return planBranchCounts(buildPlan(req, world, resolveRunConventions(req, world)));
}

/** Greedy set cover of `universe` by the rows (see header). */
export function greedyCover(rows: readonly CoverageRow[], universe: ReadonlySet<string>): { key: string; name: string; adds: string[] }[] {
  const left = new Set(universe);
  const out: { key: string; name: string; adds: string[] }[] = [];
  while (left.size > 0) {
    let best = -1;
    let bestAdds: string[] = [];
    rows.forEach((r, k) => {
      const adds = Object.keys(r.counts).filter((b) => left.has(b));
      if (adds.length > bestAdds.length) {
        best = k;
        bestAdds = adds;
      }
    });
    if (best < 0) break;
    for (const b of bestAdds) left.delete(b);
    out.push({ key: rows[best].key, name: rows[best].name, adds: bestAdds.sort() });
  }
  return out;
}

export function coverageOf(
  items: readonly SweepItem[],
  world: (name: string) => WorldConfig,
  captured: readonly { label: string; request: PipelineRequest }[] = [],
): CoverageResult {
  const worlds = new Map<string, WorldConfig>();
  const worldOf = (n: string) => {
    let w = worlds.get(n);
    if (!w) worlds.set(n, (w = world(n)));
    return w;
  };
  const rows = items.map((it): CoverageRow => {
    const req = parseRequest(it.request, `request ${it.name}`);
    return { key: it.key, name: it.name, counts: requestBranchCounts(req, worldOf(req.world)) };
  });
  const capRows = captured.map((c) => ({ label: c.label, request: c.request.id, counts: requestBranchCounts(c.request, worldOf(c.request.world)) }));
  const reg = new Map<string, BranchInfo>();
  for (const w of worlds.values()) for (const b of branchRegistry(w)) if (!reg.has(b.id)) reg.set(b.id, b);
  const registry = [...reg.values()];
  const exercised = new Set(rows.flatMap((r) => Object.keys(r.counts)));
  const capturedSet = new Set(capRows.flatMap((r) => Object.keys(r.counts)));
  return {
    registry,
    rows,
    never: registry.filter((b) => b.reachable && !exercised.has(b.id)).map((b) => b.id),
    unreachable: registry.filter((b) => !b.reachable).map((b) => b.id),
    cover: greedyCover(rows, exercised),
    captured: capRows,
    capturedCovers: [...exercised].filter((b) => capturedSet.has(b)).sort(),
    capturedMissing: [...exercised].filter((b) => !capturedSet.has(b)).sort(),
    coverAfterCaptured: capRows.length ? greedyCover(rows, new Set([...exercised].filter((b) => !capturedSet.has(b)))) : [],
  };
}

/** The coverage as text: the branch × request matrix (counts of requests beyond 40 columns), then the lists. */
export function coverageText(c: CoverageResult): string {
  const lines: string[] = [];
  const ids = c.registry.map((b) => b.id);
  const w = Math.max(...ids.map((s) => s.length)) + 5;
  const n = c.rows.length;
  if (n <= 40) {
    lines.push(`branch × request (· not exercised, + exercised); requests: ${c.rows.map((r, k) => `${k + 1}=${r.name}`).join(', ')}`);
    for (const b of c.registry)
      lines.push(`${`[${b.label}] ${b.id}`.padEnd(w)} ${c.rows.map((r) => (r.counts[b.id] ? '+' : '·')).join('')}${b.reachable ? '' : '  (unreachable)'}`);
  } else {
    lines.push(`branch: requests exercising it (of ${n})`);
    for (const b of c.registry)
      lines.push(`${`[${b.label}] ${b.id}`.padEnd(w)} ${c.rows.filter((r) => r.counts[b.id]).length}${b.reachable ? '' : '  (unreachable)'}`);
  }
  lines.push('', `never exercised (${c.never.length}): ${c.never.join(', ') || 'none'}`);
  if (c.unreachable.length) lines.push(`unreachable in this world (${c.unreachable.length}): ${c.unreachable.join(', ')}`);
  lines.push(
    '',
    `capture these from the original (${c.cover.length} request(s); a greedy set cover — small, not proven smallest — of the ${ids.length - c.never.length - c.unreachable.length} branches these requests exercise):`,
  );
  for (const r of c.cover) lines.push(`  ${r.key}  (+${r.adds.length}: ${r.adds.join(', ')})`);
  if (c.captured.length) {
    lines.push('', `captured (${c.captured.length}): ${c.captured.map((x) => `${x.label} (${x.request})`).join(', ')}`);
    lines.push(
      `  cover ${c.capturedCovers.length} of the exercised branches; not yet covered (${c.capturedMissing.length}): ${c.capturedMissing.join(', ') || 'none'}`,
    );
    if (c.coverAfterCaptured.length) {
      lines.push(`  to cover the rest, capture (greedy): `);
      for (const r of c.coverAfterCaptured) lines.push(`    ${r.key}  (+${r.adds.length}: ${r.adds.join(', ')})`);
    }
  }
  return `${lines.join('\n')}\n`;
}
