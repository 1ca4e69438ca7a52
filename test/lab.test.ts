/**
 * The lab as `make lab` gives it to a user of a fresh clone: the notebooks' sources copied with a modification time
 * older than the lab's start (a clone made before `make setup`), their .ipynb written by `scripts/notebooks.py sync`,
 * then one JupyterLab server with the project's settings (jupyter/config) rooted at the copy, and every notebook opened
 * through the interface (a double click in the file browser) in headless chromium. Asserts: the landing page is the
 * notebooks folder of a root that holds the rest of the repository; each notebook is listed once; each opens with no
 * dialog (jupytext's "… is more recent than …" or a kernel choice) on the tslab kernel, which is also the default for a
 * new notebook; the server's log holds no "Fail to get yarn configuration" nor any minified JavaScript.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH } from '../src/gpu/browser-host.js';
import { startJupyterServer, stopServer } from './jupyter-server.js';

const root = resolve(import.meta.dirname, '..');
const venv = join(root, '.venv', 'bin');
const work = join(root, '.cache', 'lab-test');
const token = `hb${process.pid}${Date.now().toString(36)}`;
const stems = readdirSync(join(root, 'notebooks'))
  .filter((f) => f.endsWith('.nb.ts'))
  .map((f) => f.slice(0, -'.nb.ts'.length))
  .sort();

interface ListedItem {
  textContent: string | null;
}
interface PageDocument {
  querySelectorAll(s: string): ArrayLike<ListedItem> & Iterable<ListedItem>;
}
const listed = (page: Page) =>
  page.evaluate(() =>
    [...(globalThis as unknown as { document: PageDocument }).document.querySelectorAll('.jp-DirListing-content .jp-DirListing-itemText')].map(
      (e) => e.textContent ?? '',
    ),
  );

interface Session {
  id: string;
  path: string;
  kernel?: { name?: string };
}

describe('make lab, as a user opens it', () => {
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let base = '';
  let serverLog = (): string => '';
  const api = async <T>(path: string, method = 'GET'): Promise<T> => {
    const r = await fetch(`${base}${path}${path.includes('?') ? '&' : '?'}token=${token}`, { method });
    return (method === 'DELETE' ? undefined : await r.json()) as T;
  };

  beforeAll(async () => {
    if (!existsSync(join(venv, 'jupyter-lab'))) throw new Error('.venv/bin/jupyter-lab is missing: make setup installs it (requirements.txt)');
    rmSync(work, { recursive: true, force: true });
    mkdirSync(join(work, 'notebooks'), { recursive: true });
    mkdirSync(join(work, 'captures'), { recursive: true });
    // A clone made an hour before the lab starts: its sources are older than any .ipynb written now.
    const cloned = new Date(Date.now() - 3_600_000);
    for (const f of [...stems.map((s) => `${s}.nb.ts`), 'jupytext.toml']) {
      copyFileSync(join(root, 'notebooks', f), join(work, 'notebooks', f));
      utimesSync(join(work, 'notebooks', f), cloned, cloned);
    }
    const sync = spawnSync(join(venv, 'python'), [join(root, 'scripts', 'notebooks.py'), 'sync', join(work, 'notebooks')], { encoding: 'utf8' });
    if (sync.status !== 0) throw new Error(`notebooks.py sync failed: ${sync.stderr}`);
    // The Makefile's Jupyter folders, with the project's settings read from jupyter/config and nothing written there.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      JUPYTER_PATH: join(root, 'jupyter'),
      JUPYTER_CONFIG_PATH: join(root, 'jupyter', 'config'),
      JUPYTER_CONFIG_DIR: join(work, '.jupyter', 'config'),
      JUPYTER_DATA_DIR: join(work, '.jupyter', 'data'),
      JUPYTER_RUNTIME_DIR: join(work, '.jupyter', 'runtime'),
      JUPYTER_PLATFORM_DIRS: '1',
      JUPYTERLAB_SETTINGS_DIR: join(work, '.jupyter', 'settings'),
      JUPYTERLAB_WORKSPACES_DIR: join(work, '.jupyter', 'workspaces'),
      PATH: `${venv}:${process.env.PATH ?? ''}`,
    };
    const started = await startJupyterServer(
      join(venv, 'jupyter-lab'),
      [
        '--no-browser',
        '--ServerApp.ip=127.0.0.1',
        '--ServerApp.port=0',
        `--IdentityProvider.token=${token}`,
        `--ServerApp.root_dir=${work}`,
        ...(process.getuid?.() === 0 ? ['--allow-root'] : []),
      ],
      env,
      /(http:\/\/127\.0\.0\.1:\d+)\//,
      'jupyter-lab',
    );
    server = started.process;
    base = started.base;
    serverLog = started.log;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'], headless: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stopServer(server);
  });

  it('lands on notebooks/, lists each notebook once, and opens every one with no dialog on the tslab kernel', { timeout: 300_000 }, async () => {
    expect((await api<{ default: string }>('/api/kernelspecs')).default).toBe('tslab');
    const top = await api<{ content: { name: string }[] }>('/api/contents/');
    expect(top.content.map((c) => c.name).sort()).toEqual(['captures', 'notebooks']);

    const page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${base}/?token=${token}`);
    await page.waitForSelector('.jp-DirListing-content .jp-DirListing-itemText', { timeout: 60_000 });
    expect(page.url()).toContain('/lab/tree/notebooks');
    const names = await listed(page);
    expect(names.sort()).toEqual([...stems.map((s) => `${s}.ipynb`), 'jupytext.toml'].sort());

    for (const stem of stems) {
      await page
        .locator('.jp-DirListing-content .jp-DirListing-itemText')
        .getByText(`${stem}.ipynb`, { exact: true })
        .dblclick({ timeout: 10_000 })
        .catch(async (e: unknown) => {
          await page.screenshot({ path: join(work, 'listing.png') });
          throw e;
        });
      // Whichever comes first: the notebook's cells, or a dialog (jupytext's question arrives as a load error).
      await page.waitForSelector(`.jp-Dialog, .jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell`, { timeout: 60_000 });
      const dialogs = await page.locator('.jp-Dialog').allTextContents();
      expect(dialogs, `${stem}.ipynb opens with no dialog`).toEqual([]);
      // The panel asks for its kernel once the notebook is drawn: its session, when the server has it.
      let mine: Session[] = [];
      // A bounded number of polls, not a clock deadline: a busy machine only makes them slower.
      for (let poll = 0; mine.length === 0 && poll < 480; poll++, await page.waitForTimeout(250))
        mine = (await api<Session[]>('/api/sessions')).filter((s) => s.path === `notebooks/${stem}.ipynb`);
      expect(
        mine.map((s) => s.kernel?.name),
        `${stem}.ipynb runs on tslab`,
      ).toEqual(['tslab']);
      // One kernel at a time: the notebook's tab closed and its kernel shut down before the next one opens.
      await page.keyboard.press('Alt+w');
      for (const s of mine) await api(`/api/sessions/${s.id}`, 'DELETE');
    }
    expect(await page.locator('.jp-Dialog').count()).toBe(0);
    await page.close();
  });

  it("prints no yarn configuration error and no minified JavaScript in the server's log", () => {
    // The cause: node loads the venv's yarn.js as an ES module under this package's "type": "module" unless the
    // venv has a package.json of its own, which make setup writes.
    expect(existsSync(join(root, '.venv', 'package.json')), '.venv/package.json (make setup writes it)').toBe(true);
    expect(serverLog()).not.toContain('Fail to get yarn configuration');
    const longest = Math.max(
      ...serverLog()
        .split('\n')
        .map((l) => l.length),
    );
    expect(longest, 'the longest line of the log').toBeLessThan(2000);
  });
});
