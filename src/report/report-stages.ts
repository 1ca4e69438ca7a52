/** The report's pictures beyond the final maps: stage difference maps and gallery crops, fed stage by stage. */
import {
  GALLERY_SIZE,
  codeCrop,
  cropAt,
  cropCardPng,
  differingIndices,
  galleryPicks,
  pixelWorld,
  stageMapPng,
  type CropLayer,
  type GalleryPick,
} from './report-maps.js';
import type { StageField } from '../compare/attribution.js';
import type { ComparisonResult } from '../compare/compare.js';

/** Everything the report draws beyond the final maps: stage maps, first divergence, gallery crops (check feeds stages). */
export class ReportStages {
  readonly picks: GalleryPick[];
  readonly stageMaps: { stage: string; file: string }[] = [];
  private readonly layers: CropLayer[][];
  readonly pngs = new Map<string, Uint8Array>();
  /** Row-major indices of the differing pixels (shared by every map of the report). */
  readonly diff: Int32Array;
  constructor(
    readonly r: ComparisonResult,
    readonly genCodes: Uint16Array,
    readonly refCodes: Uint16Array,
    /** Pixels (row-major indices) where a difference originates: they lead the gallery. */
    origins?: ReadonlySet<number>,
    /** Each differing pixel's first divergent stage: every stage's largest-|Δq| pixel is in the gallery. */
    firstStage?: (k: number) => number | undefined,
  ) {
    const g = r.grid;
    this.diff = differingIndices(genCodes, refCodes);
    this.picks = galleryPicks(genCodes, refCodes, g.columns, g.rows, GALLERY_SIZE, this.diff, origins, firstStage);
    this.layers = this.picks.map(() => []);
  }
  /** A stage pair (float metres, one grid on both sides): its difference map and its crops for the gallery. */
  addStage(stage: string, gen: StageField, ref: StageField): void {
    const file = `stages/${stage}.png`;
    this.pngs.set(file, stageMapPng(gen.height_px, ref.height_px, gen.grid, this.r.metresPerCode * 1000));
    this.stageMaps.push({ stage, file });
    this.picks.forEach((p, k) => {
      const [x, y] = pixelWorld(this.r.grid, p.column, p.row);
      this.layers[k].push({ name: stage, kind: 'mm', gen: cropAt(gen.height_px, gen.grid, x, y), ref: cropAt(ref.height_px, ref.grid, x, y) });
    });
  }
  /** The gallery's cards (final layer last). */
  cards(): { pick: GalleryPick; file: string; layers: string[] }[] {
    return this.picks.map((p, k) => {
      const [x, y] = pixelWorld(this.r.grid, p.column, p.row);
      const fin: CropLayer = {
        name: 'final',
        kind: 'codes',
        gen: codeCrop(this.genCodes, this.r.grid, this.r.range, x, y),
        ref: codeCrop(this.refCodes, this.r.grid, this.r.range, x, y),
      };
      const layers = [...this.layers[k], fin];
      const file = `gallery/${k + 1}.png`;
      this.pngs.set(file, cropCardPng(layers, this.r.metresPerCode * 1000));
      return { pick: p, file, layers: layers.map((l) => l.name) };
    });
  }
}
