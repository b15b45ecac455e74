import cliProgress from 'cli-progress';

/** Progress of a long command: a bar on a terminal, plain lines otherwise (logs, CI, pipes). Both on stderr. */
export interface Progress {
  advance(n: number): void;
  stop(): void;
}

export interface ProgressOptions {
  label: string;
  total: number;
  /** `assets`, or `bytes` (shown in MiB). */
  unit: 'assets' | 'bytes';
  /** At most one plain line per this many ms (the bar redraws itself). */
  lineEveryMs?: number;
}

const MIB = 1024 * 1024;

function amount(n: number, unit: ProgressOptions['unit']): string {
  return unit === 'bytes' ? `${(n / MIB).toFixed(1)} MiB` : String(n);
}

export function startProgress(o: ProgressOptions): Progress {
  const started = Date.now();
  let done = 0;
  const rate = () => done / Math.max(0.001, (Date.now() - started) / 1000);
  const speed = () => (o.unit === 'bytes' ? `${(rate() / MIB).toFixed(1)} MiB/s` : `${Math.round(rate())} assets/s`);

  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${o.label} [{bar}] {percentage}% | {shown} | {speed} | ETA {eta_formatted}`,
        hideCursor: true,
        etaBuffer: 20,
        fps: 10,
      },
      cliProgress.Presets.shades_classic,
    );
    const payload = () => ({ shown: `${amount(done, o.unit)}/${amount(o.total, o.unit)}`, speed: speed() });
    bar.start(o.total, 0, payload());
    return {
      advance(n) {
        done += n;
        bar.update(done, payload());
      },
      stop() {
        bar.stop();
      },
    };
  }

  let lastLine = 0;
  const line = () =>
    process.stderr.write(`${o.label}: ${amount(done, o.unit)}/${amount(o.total, o.unit)} (${speed()})\n`);
  return {
    advance(n) {
      done += n;
      if (Date.now() - lastLine >= (o.lineEveryMs ?? 0) || done >= o.total) {
        lastLine = Date.now();
        line();
      }
    },
    stop() {},
  };
}
