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
