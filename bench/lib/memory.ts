import fs from 'node:fs';

/**
 * Memory of a child process from /proc/<pid>/status (Linux). VmHWM is the kernel's own high-water
 * mark of resident memory, so one late reading already gives the peak; the sampler reads it
 * periodically anyway so the figure survives a process that exits before we ask.
 */

export interface MemoryReading {
  /** Peak resident set size so far (VmHWM), bytes. */
  peakRssBytes: number;
  /** Current resident set size (VmRSS), bytes. */
  rssBytes: number;
}

/** Undefined when the process is gone or /proc is not there. */
export function readMemory(pid: number): MemoryReading | undefined {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 'NaN') * 1024;
  return { peakRssBytes: kib('VmHWM'), rssBytes: kib('VmRSS') };
}

/**
 * Resets the kernel's high-water mark of the process's resident memory (VmHWM) to its current
 * RSS, so a later readMemory() gives the peak of what happened in between only. Linux 4.0+
 * (`/proc/<pid>/clear_refs`, value 5); answers false where that cannot be written.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface PeakRssSampler {
  /** Highest VmHWM seen so far (0 before the first successful reading). */
  peakBytes(): number;
  /** Takes a last reading and stops sampling; answers the peak. */
  stop(): number;
}

export function samplePeakRss(pid: number, everyMs = 250): PeakRssSampler {
  let peak = 0;
  const read = () => {
    const m = readMemory(pid);
    if (m && Number.isFinite(m.peakRssBytes)) peak = Math.max(peak, m.peakRssBytes);
  };
  read();
  const timer = setInterval(read, everyMs);
  timer.unref();
  return {
    peakBytes: () => peak,
    stop() {
      read();
      clearInterval(timer);
      return peak;
    },
  };
}

export interface RssSample {
  /** Milliseconds since sampling started. */
  atMs: number;
  rssBytes: number;
}

/**
 * Current RSS (VmRSS) of a process every `everyMs` until stopped: the shape of its memory over
 * a run, where VmHWM only gives the top. The longer a run, the more chances a sawtooth has to
 * reach a higher tooth, so "does memory grow with the work?" is better answered by comparing
 * the tops of the run's early and late parts than by comparing peaks of runs of different length.
 */
export function sampleRss(pid: number, everyMs = 100): { stop(): RssSample[] } {
  const start = performance.now();
  const samples: RssSample[] = [];
  const read = () => {
    const m = readMemory(pid);
    if (m && Number.isFinite(m.rssBytes)) samples.push({ atMs: performance.now() - start, rssBytes: m.rssBytes });
  };
  read();
  const timer = setInterval(read, everyMs);
  timer.unref();
  return {
    stop() {
      read();
      clearInterval(timer);
      return samples;
    },
  };
}

/** The highest RSS in each of `parts` equal slices of the sampled time (0 for an empty slice). */
export function rssTops(samples: readonly RssSample[], parts = 10): number[] {
  const end = samples.at(-1)?.atMs ?? 0;
  const tops = new Array<number>(parts).fill(0);
  for (const s of samples) {
    const i = end > 0 ? Math.min(parts - 1, Math.floor((s.atMs / end) * parts)) : 0;
    tops[i] = Math.max(tops[i] ?? 0, s.rssBytes);
  }
  return tops;
}
