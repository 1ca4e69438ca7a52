/**
 * Host 1: Dawn for Node (npm `webgpu`) on SwiftShader, Debian `chromium`'s CPU Vulkan driver.
 *
 * Inputs: an adapter spec (adapter-select.ts: auto, swiftshader or a part of a name), the environment
 *   (VK_ICD_FILENAMES, VK_ADD_DRIVER_FILES, LD_LIBRARY_PATH, HEIGHTBENCH_VK_DIR).
 * Outputs: one GpuContext per process and spec (openDawn), the environment a child process needs (dawnChildEnv).
 * How the driver is found [R]:
 *  - The Vulkan loader reads VK_ICD_FILENAMES / VK_ADD_DRIVER_FILES when Dawn creates its instance, so setting them in
 *    process.env before create() works. A VK_ICD_FILENAMES the caller set is always kept (it names the only drivers
 *    the loader may load). Otherwise 'swiftshader' sets it to chromium's vk_swiftshader_icd.json (only SwiftShader is
 *    loaded: a machine's other drivers cannot change the reference), while 'auto' and TEXT add SwiftShader to the
 *    system's drivers with VK_ADD_DRIVER_FILES, so a hardware adapter is seen when there is one.
 *  - The adapters are listed by asking Dawn for an adapter name that cannot exist (Dawn then reports
 *    "Available adapters: * backend: …, name: …"), chosen with selectAdapter, and opened by name
 *    (create(['adapter=NAME'])); the opened adapter is checked against the spec again.
 *  - Dawn dlopen()s "libvulkan.so.1". Debian's chromium ships that loader in /usr/lib/chromium, which is not on the
 *    linker path, and LD_LIBRARY_PATH is read only when a process starts. Two ways are supported: start the process
 *    with dawnChildEnv() (LD_LIBRARY_PATH includes the folder), or — what openDawn does when the loader is not
 *    reachable — load /usr/lib/chromium/libvulkan.so.1 by its full path first, with RTLD_NODELETE so it stays
 *    loaded; the dynamic linker then resolves Dawn's "libvulkan.so.1" to that already-loaded library by its soname.
 *  - The object create() returns is kept in a module-level variable for the life of the process: when it was
 *    garbage-collected Dawn aborted after a few submissions (shared/notes/webgpu-in-chromium.md).
 */
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { createContext, GpuUnavailableError, type GpuContext } from './context.js';
import { adapterMatches, candidateOf, selectAdapter, type AdapterCandidate, type AdapterSpec } from './adapter-select.js';

/** Where Debian's chromium keeps SwiftShader and its Vulkan loader (overridable for other layouts). */
export const CHROMIUM_VK_DIR = process.env.HEIGHTBENCH_VK_DIR ?? '/usr/lib/chromium';
export const SWIFTSHADER_ICD = join(CHROMIUM_VK_DIR, 'vk_swiftshader_icd.json');
export const DAWN_INSTALL_HINT =
  "install Debian's chromium package (`sudo apt-get install chromium`, or `make setup`, which runs scripts/ensure-chromium.sh): " +
  `it ships SwiftShader's Vulkan driver (${SWIFTSHADER_ICD}) and a Vulkan loader in ${CHROMIUM_VK_DIR}`;

/** glibc's RTLD_NODELETE (not in os.constants.dlopen): dlclose() after the failed addon registration keeps the library. */
const RTLD_NODELETE = 0x1000;

/** How to point the loader at a driver, for error messages. */
export const DRIVER_HINT = `point the Vulkan loader at a driver with VK_ICD_FILENAMES=/path/to/driver_icd.json (SwiftShader: ${SWIFTSHADER_ICD}); ${DAWN_INSTALL_HINT}`;

/** The Vulkan driver variables a Dawn instance for `spec` needs on top of `base` (see header). */
export function driverEnv(spec: AdapterSpec, base: NodeJS.ProcessEnv): Record<string, string> {
  if (base.VK_ICD_FILENAMES) return {};
  if (spec === 'swiftshader') return { VK_ICD_FILENAMES: SWIFTSHADER_ICD };
  if (!existsSync(SWIFTSHADER_ICD)) return {};
  const add = base.VK_ADD_DRIVER_FILES ? `${SWIFTSHADER_ICD}:${base.VK_ADD_DRIVER_FILES}` : SWIFTSHADER_ICD;
  return { VK_ADD_DRIVER_FILES: add };
}

/** Environment for a child process that will use Dawn with `spec` (default SwiftShader; variables set before it starts). */
export function dawnChildEnv(base: NodeJS.ProcessEnv = process.env, spec: AdapterSpec = 'swiftshader'): NodeJS.ProcessEnv {
  const ld = base.LD_LIBRARY_PATH ? `${CHROMIUM_VK_DIR}:${base.LD_LIBRARY_PATH}` : CHROMIUM_VK_DIR;
  return { ...base, ...driverEnv(spec, base), LD_LIBRARY_PATH: ld };
}

/** Parses Dawn's "Available adapters:" list (one " * backend: 'B', name: 'N'" line each). */
export function parseDawnAdapterList(text: string): AdapterCandidate[] {
  const out: AdapterCandidate[] = [];
  for (const m of text.matchAll(/^\s*\*\s*backend:\s*'([^']*)',\s*name:\s*'(.*)'\s*$/gm)) out.push({ backend: m[1], name: m[2] });
  return out;
}

function vulkanLoaderReachable(): boolean {
  const dirs = (process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean);
  dirs.push('/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/lib/x86_64-linux-gnu', '/usr/lib64', '/usr/lib');
  return dirs.some((d) => existsSync(join(d, 'libvulkan.so.1')));
}

let preloaded = false;
function preloadVulkanLoader(): void {
  if (preloaded || vulkanLoaderReachable()) return;
  const lib = join(CHROMIUM_VK_DIR, 'libvulkan.so.1');
  if (!existsSync(lib)) throw new GpuUnavailableError(`no Vulkan loader: ${lib} is missing; ${DAWN_INSTALL_HINT}`);
  try {
    process.dlopen({ exports: {} }, lib, constants.dlopen.RTLD_NOW | constants.dlopen.RTLD_GLOBAL | RTLD_NODELETE);
  } catch (e) {
    // Expected: it is not a Node addon ("did not self-register"); the library itself stays loaded (RTLD_NODELETE).
    const msg = e instanceof Error ? e.message : String(e);
    if (!/self-register|Module did not/i.test(msg)) throw new GpuUnavailableError(`could not load ${lib}: ${msg}; ${DAWN_INSTALL_HINT}`);
  }
  preloaded = true;
}

interface DawnModule {
  create(options: string[]): GPU;
  globals: object;
}

/** Kept for the process's lifetime (see header): every GPU object create() returned. */
const dawnGpus: GPU[] = [];
const dawnContexts = new Map<AdapterSpec, Promise<GpuContext>>();
/** An adapter name no driver reports: Dawn answers it with the list of the adapters it found. */
const NO_SUCH_ADAPTER = 'heightbench-list-adapters-\u0001';

async function loadDawn(): Promise<DawnModule> {
  preloadVulkanLoader();
  try {
    return (await import('webgpu')) as unknown as DawnModule;
  } catch (e) {
    throw new GpuUnavailableError(
      `the npm package webgpu (Dawn for Node) did not load: ${e instanceof Error ? e.message : String(e)}; run \`npm ci\` (make setup)`,
    );
  }
}

/** The adapters Dawn finds with the current environment, in Dawn's order. */
export async function listDawnAdapters(): Promise<AdapterCandidate[]> {
  const mod = await loadDawn();
  const g = mod.create([`adapter=${NO_SUCH_ADAPTER}`]);
  dawnGpus.push(g);
  try {
    await g.requestAdapter();
    return [];
  } catch (e) {
    return parseDawnAdapterList(e instanceof Error ? e.message : String(e));
  }
}

/**
 * The process's Dawn context for `spec` (default 'swiftshader', the reference adapter; created on first call, then
 * shared). Throws GpuUnavailableError naming what was found and how to select another adapter.
 */
export function openDawn(spec: AdapterSpec = 'swiftshader'): Promise<GpuContext> {
  let ctx = dawnContexts.get(spec);
  if (ctx) return ctx;
  ctx = (async () => {
    if (spec === 'swiftshader' && !process.env.VK_ICD_FILENAMES && !existsSync(SWIFTSHADER_ICD))
      throw new GpuUnavailableError(`no SwiftShader Vulkan driver: ${SWIFTSHADER_ICD} is missing; ${DAWN_INSTALL_HINT}`);
    Object.assign(process.env, driverEnv(spec, process.env));
    const where = process.env.VK_ICD_FILENAMES
      ? `Vulkan drivers from VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES}`
      : `the system's Vulkan drivers${process.env.VK_ADD_DRIVER_FILES ? ` and VK_ADD_DRIVER_FILES=${process.env.VK_ADD_DRIVER_FILES}` : ''}`;
    const hint = `(looked at ${where}); ${DRIVER_HINT}`;
    const found = await listDawnAdapters();
    const k = selectAdapter(spec, found, hint);
    const mod = await loadDawn();
    const g = mod.create([`adapter=${found[k].name}`]);
    dawnGpus.push(g);
    const adapter = await g.requestAdapter({ powerPreference: 'high-performance' });
    if (adapter && !adapterMatches(spec, { ...candidateOf(adapter), name: found[k].name }))
      throw new GpuUnavailableError(
        `Dawn opened ${JSON.stringify(found[k].name)} for --adapter ${spec}, but it reports ${JSON.stringify(candidateOf(adapter))}; ${hint}`,
      );
    return createContext(adapter, 'dawn-node', DAWN_INSTALL_HINT);
  })();
  dawnContexts.set(spec, ctx);
  // A failed attempt is not cached: the caller may fix the environment and retry.
  ctx.catch(() => {
    dawnContexts.delete(spec);
  });
  return ctx;
}

/** Whether this process currently holds Dawn's GPU object (for tests of the lifetime rule). */
export function dawnHeld(): boolean {
  return dawnGpus.length > 0;
}
