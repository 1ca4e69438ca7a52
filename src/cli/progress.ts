/**
 * Progress of long work (a run at 4096², the reproduce, later the GPU reference and the atlas): one line per finished
 * step with its time and the running total, written to stderr, so stdout stays the command's result.
 * [R] Shown only on a terminal: quiet when stderr is not a TTY (CI logs, pipes, tests) or with --quiet.
 * HEIGHTBENCH_PROGRESS=1 shows it anyway (=0 never), for a log that wants the times.
 * With `total` (the number of steps the work has), each line also says how far it is and an estimate of the time
 * left: `[k/total, p %, about T left]`, T = the mean time of the steps so far × the steps still to come. [R] A step
 * count, not a weight: an estimate, stated as one; it never shows 100 % before done().
 */

export interface ProgressSink {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface Progress {
  /** Whether lines are written at all. */
  readonly enabled: boolean;
  /** A step finished after `ms` milliseconds (measured by the caller). */
  step(name: string, ms: number): void;
  /** Times a synchronous step and reports it. */
  time<T>(name: string, f: () => T): T;
  /** A free-form note (e.g. which stage starts next). */
  note(text: string): void;
  /** A step that needed no work (counted towards `total`, no line). */
  skipped(name: string): void;
  /** The last line: total time and an optional summary. */
  done(summary?: string): void;
}

export interface ProgressOptions {
  /** What the work is, printed before each line (e.g. "run tundra-r19 4096² f32"). */
  label: string;
  quiet?: boolean;
  sink?: ProgressSink;
  env?: NodeJS.ProcessEnv;
  /** Clock in milliseconds (tests pass a fake one). */
  now?: () => number;
  /** How many steps the work has, when known: lines then show the percentage done and the time left. */
  total?: number;
}

/** Whether progress is shown: HEIGHTBENCH_PROGRESS=1/0 decides when set, else --quiet hides it, else a TTY shows it. */
export function progressEnabled(quiet: boolean | undefined, sink: ProgressSink, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.HEIGHTBENCH_PROGRESS;
  if (force === '1') return true;
  if (force === '0') return false;
  return !quiet && sink.isTTY === true;
}

/** Seconds with three significant figures at most (0.0123 s, 1.23 s, 123 s). */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  if (s >= 100) return `${Math.round(s)} s`;
  if (s >= 10) return `${s.toFixed(1)} s`;
  if (s >= 1) return `${s.toFixed(2)} s`;
  return `${s.toFixed(3)} s`;
}

export function progressReporter(o: ProgressOptions): Progress {
  const sink = o.sink ?? process.stderr;
  const now = o.now ?? (() => performance.now());
  const enabled = progressEnabled(o.quiet, sink, o.env);
  const t0 = now();
  let steps = 0;
  let skippedSteps = 0;
  let workMs = 0;
  const eta = (): string => {
    const total = o.total;
    if (!total || total <= 0) return '';
    const k = steps + skippedSteps;
    const pct = Math.min(99, Math.floor((100 * k) / total));
    const left = Math.max(0, total - k);
    const est = steps > 0 && left > 0 ? `, about ${formatSeconds((workMs / steps) * left)} left` : '';
    return `   [${Math.min(k, total)}/${total}, ${pct} %${est}]`;
  };
  const line = (text: string) => {
    if (enabled) sink.write(`${o.label}: ${text}\n`);
  };
  return {
    enabled,
    step(name, ms) {
      steps++;
      workMs += ms;
      line(`${name.padEnd(16)} ${formatSeconds(ms).padStart(9)}   (total ${formatSeconds(now() - t0)})${eta()}`);
    },
    skipped() {
      skippedSteps++;
    },
    time(name, f) {
      const s = now();
      const r = f();
      this.step(name, now() - s);
      return r;
    },
    note(text) {
      line(text);
    },
    done(summary) {
      line(`done in ${formatSeconds(now() - t0)} (${steps} step${steps === 1 ? '' : 's'})${summary ? `; ${summary}` : ''}`);
    },
  };
}
