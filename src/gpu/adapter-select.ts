/// <reference types="@webgpu/types" />
/**
 * Which WebGPU adapter a run uses: `--adapter auto|swiftshader|TEXT`. Host-agnostic (Dawn for Node,
 * the chromium page, the static page): no Node API.
 *
 * Inputs: an adapter spec and the candidates a host found, in the host's order (Dawn: the adapters it lists;
 *   a browser: the adapters it returns for high-performance, low-power and fallback requests).
 * Outputs: the chosen candidate, or a GpuUnavailableError (exit 2) that names every candidate found and how to select
 *   another (the host adds its own hint, e.g. VK_ICD_FILENAMES).
 * Rules [R]:
 *  - 'swiftshader': the first candidate whose name, architecture, device or description contains "swiftshader"
 *    (case-insensitive) — the project's reproducible reference adapter (params.yaml gpu.adapter);
 *  - 'auto': the first hardware candidate (neither a fallback adapter nor a known CPU rasterizer: SwiftShader,
 *    llvmpipe/lavapipe, softpipe, WARP, Microsoft Basic Render), else the first SwiftShader one; another software
 *    adapter (lavapipe…) is never taken by 'auto' — its rules are not the ones the mimic was measured on;
 *  - TEXT: the first candidate any of whose fields contains TEXT (case-insensitive).
 */
import { GpuInputError, GpuUnavailableError } from './context.js';

export type AdapterSpec = string;
export const ADAPTER_KEYWORDS = ['auto', 'swiftshader'] as const;

/** What a host knows about one adapter before choosing it (fields it cannot tell are empty). */
export interface AdapterCandidate {
  /** The host's name for it (Dawn's adapter list: e.g. 'SwiftShader Device (Subzero)'). */
  name: string;
  backend?: string;
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  /** WebGPU's isFallbackAdapter, when the host reports it. */
  fallback?: boolean;
}

/** Trims and checks an `--adapter` value: a keyword or a non-empty text of printable characters. */
export function parseAdapterSpec(v: string): AdapterSpec {
  const t = v.trim();
  if (!t || t.length > 200 || [...t].some((ch) => ch.charCodeAt(0) < 0x20))
    throw new GpuInputError(`--adapter: expected auto, swiftshader or a part of an adapter's name (1–200 printable characters), got ${JSON.stringify(v)}`);
  return ADAPTER_KEYWORDS.includes(t.toLowerCase() as (typeof ADAPTER_KEYWORDS)[number]) ? t.toLowerCase() : t;
}

const fields = (c: AdapterCandidate): string[] =>
  [c.name, c.vendor, c.architecture, c.device, c.description].filter((s): s is string => !!s).map((s) => s.toLowerCase());

const SOFTWARE = /swiftshader|llvmpipe|lavapipe|softpipe|\bwarp\b|basic render/;

export function isSwiftShader(c: AdapterCandidate): boolean {
  return fields(c).some((s) => s.includes('swiftshader'));
}

/** A CPU rasterizer or a fallback adapter. */
export function isSoftwareAdapter(c: AdapterCandidate): boolean {
  return c.fallback === true || fields(c).some((s) => SOFTWARE.test(s));
}

/** Whether `c` satisfies `spec` (for 'auto': any adapter that auto could take). */
export function adapterMatches(spec: AdapterSpec, c: AdapterCandidate): boolean {
  if (spec === 'swiftshader') return isSwiftShader(c);
  if (spec === 'auto') return !isSoftwareAdapter(c) || isSwiftShader(c);
  const t = spec.toLowerCase();
  return fields(c).some((s) => s.includes(t));
}

/** One line per candidate, for error messages. */
export function describeCandidates(cs: readonly AdapterCandidate[]): string {
  if (!cs.length) return 'none';
  return cs
    .map((c) => {
      const extra = [c.vendor, c.architecture, c.device, c.description].filter(Boolean).join('/');
      return `"${c.name}"${c.backend ? ` (${c.backend})` : ''}${extra && extra !== c.name ? ` [${extra}]` : ''}${isSoftwareAdapter(c) ? ' software' : ''}`;
    })
    .join(', ');
}

/** Index of the chosen candidate; throws GpuUnavailableError naming what was found and `hint`. */
export function selectAdapter(spec: AdapterSpec, cs: readonly AdapterCandidate[], hint: string): number {
  let k = -1;
  if (spec === 'auto') {
    k = cs.findIndex((c) => !isSoftwareAdapter(c));
    if (k < 0) k = cs.findIndex(isSwiftShader);
  } else k = cs.findIndex((c) => adapterMatches(spec, c));
  if (k >= 0) return k;
  const want =
    spec === 'auto' ? 'a hardware adapter or SwiftShader' : spec === 'swiftshader' ? 'SwiftShader' : `an adapter whose name contains ${JSON.stringify(spec)}`;
  throw new GpuUnavailableError(
    `no WebGPU adapter matches --adapter ${spec} (wanted ${want}); found: ${describeCandidates(cs)}. Select one with --adapter TEXT (a part of a name above) or --adapter swiftshader; ${hint}`,
  );
}

/** The candidate a browser adapter gives (its info; fallback flag where reported). */
export function candidateOf(a: GPUAdapter): AdapterCandidate {
  const info = a.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  return {
    name: String(info.description || info.device || info.architecture || info.vendor || '(unnamed)'),
    vendor: String(info.vendor ?? ''),
    architecture: String(info.architecture ?? ''),
    device: String(info.device ?? ''),
    description: String(info.description ?? ''),
    fallback: info.isFallbackAdapter === true ? true : undefined,
  };
}

/**
 * In a browser (which cannot list adapters): asks for the high-performance, low-power and fallback adapters, in that
 * order, and chooses among the distinct ones with selectAdapter. Null only when the browser offers none at all.
 */
export async function requestMatchingAdapter(gpu: GPU, spec: AdapterSpec, hint: string): Promise<GPUAdapter | null> {
  const got: GPUAdapter[] = [];
  const seen = new Set<string>();
  for (const o of [{ powerPreference: 'high-performance' }, { powerPreference: 'low-power' }, { forceFallbackAdapter: true }] as GPURequestAdapterOptions[]) {
    let a: GPUAdapter | null = null;
    try {
      a = await gpu.requestAdapter(o);
    } catch {
      a = null;
    }
    if (!a) continue;
    const c = candidateOf(a);
    const key = JSON.stringify([c.vendor, c.architecture, c.device, c.description]);
    if (seen.has(key)) continue;
    seen.add(key);
    got.push(a);
  }
  if (!got.length) return null;
  return got[selectAdapter(spec, got.map(candidateOf), hint)];
}
