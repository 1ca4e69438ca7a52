/**
 * Host 1: Dawn for Node (npm `webgpu`) on SwiftShader, Debian `chromium`'s CPU Vulkan driver.
 *
 * Inputs: the environment (VK_ICD_FILENAMES, LD_LIBRARY_PATH, HEIGHTBENCH_VK_DIR).
 * Outputs: one GpuContext per process (openDawn), the environment a child process needs (dawnChildEnv).
 * How the driver is found [R]:
 *  - The Vulkan loader reads VK_ICD_FILENAMES when Dawn creates its instance, so setting it in process.env before the
 *    first requestAdapter() works; it is set to chromium's vk_swiftshader_icd.json unless the caller set it.
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

/** Where Debian's chromium keeps SwiftShader and its Vulkan loader (overridable for other layouts). */
export const CHROMIUM_VK_DIR = process.env.HEIGHTBENCH_VK_DIR ?? '/usr/lib/chromium';
export const SWIFTSHADER_ICD = join(CHROMIUM_VK_DIR, 'vk_swiftshader_icd.json');
export const DAWN_INSTALL_HINT =
  "install Debian's chromium package (`sudo apt-get install chromium`, or `make setup`, which runs scripts/ensure-chromium.sh): " +
  `it ships SwiftShader's Vulkan driver (${SWIFTSHADER_ICD}) and a Vulkan loader in ${CHROMIUM_VK_DIR}`;

/** glibc's RTLD_NODELETE (not in os.constants.dlopen): dlclose() after the failed addon registration keeps the library. */
const RTLD_NODELETE = 0x1000;

/** Environment for a child process that will use Dawn on SwiftShader (the variables set before it starts). */
export function dawnChildEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const ld = base.LD_LIBRARY_PATH ? `${CHROMIUM_VK_DIR}:${base.LD_LIBRARY_PATH}` : CHROMIUM_VK_DIR;
  return { ...base, VK_ICD_FILENAMES: base.VK_ICD_FILENAMES ?? SWIFTSHADER_ICD, LD_LIBRARY_PATH: ld };
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

/** Kept for the process's lifetime (see header). */
let dawnGpu: GPU | null = null;
let dawnContext: Promise<GpuContext> | null = null;

/** The process's Dawn context (created on first call, then shared). Throws GpuUnavailableError naming what to install. */
export function openDawn(): Promise<GpuContext> {
  dawnContext ??= (async () => {
    if (!process.env.VK_ICD_FILENAMES) {
      if (!existsSync(SWIFTSHADER_ICD)) throw new GpuUnavailableError(`no SwiftShader Vulkan driver: ${SWIFTSHADER_ICD} is missing; ${DAWN_INSTALL_HINT}`);
      process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
    }
    preloadVulkanLoader();
    let mod: DawnModule;
    try {
      mod = (await import('webgpu')) as unknown as DawnModule;
    } catch (e) {
      throw new GpuUnavailableError(
        `the npm package webgpu (Dawn for Node) did not load: ${e instanceof Error ? e.message : String(e)}; run \`npm ci\` (make setup)`,
      );
    }
    dawnGpu = mod.create([]);
    const adapter = await dawnGpu.requestAdapter();
    return createContext(adapter, 'dawn-node', DAWN_INSTALL_HINT);
  })();
  // A failed attempt is not cached: the caller may fix the environment and retry.
  dawnContext.catch(() => {
    dawnContext = null;
  });
  return dawnContext;
}

/** Whether this process currently holds Dawn's GPU object (for tests of the lifetime rule). */
export function dawnHeld(): boolean {
  return dawnGpu !== null;
}
