// Starting and stopping a Jupyter server for the front-end tests (test/lab.test.ts, test/jupyterlab.test.ts).
// No clock: the server is waited for until it prints its URL or exits; the calling hook's timeout bounds a hang.
import { spawn, type ChildProcess } from 'node:child_process';

export interface JupyterServer {
  process: ChildProcess;
  /** The server's base URL (scheme, host and port). */
  base: string;
  /** Everything the server has printed so far (stdout and stderr). */
  log(): string;
}

/** Spawns `exe args` and resolves once its output holds `url` (the first group is the base), or rejects when it exits. */
export function startJupyterServer(exe: string, args: readonly string[], env: NodeJS.ProcessEnv, url: RegExp, tool: string): Promise<JupyterServer> {
  const child = spawn(exe, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  return new Promise<JupyterServer>((done, fail) => {
    let found = false;
    const onData = (b: Buffer) => {
      log += b.toString();
      const m = found ? null : url.exec(log);
      if (m) {
        found = true;
        done({ process: child, base: m[1], log: () => log });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => fail(new Error(`${tool} exited (${code}):\n${log}`)));
    child.on('error', (e) => fail(new Error(`${tool} did not start: ${e.message}`)));
  });
}

/** Stops a server: SIGTERM, then SIGKILL if it has not exited once the next five seconds' worth of events ran. */
export async function stopServer(server: ChildProcess | undefined): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  server.kill('SIGTERM');
  await new Promise<void>((done) => {
    const t = setTimeout(() => {
      server.kill('SIGKILL');
      done();
    }, 5000);
    server.on('exit', () => {
      clearTimeout(t);
      done();
    });
  });
}
