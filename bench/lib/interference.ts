import fs from 'node:fs';

/**
 * How much CPU other processes used while we measured, and which. On a shared two-core machine
 * someone else's test run takes a core from the server or the load generator and the figure
 * drops; this says so next to the figure instead of leaving it unexplained. Linux only (/proc):
 * figures are in cores (1.0 = one core fully busy), undefined elsewhere. Processes that started
 * and ended inside the window count in the total but under "(short-lived)".
 */

/** USER_HZ: the unit of /proc/stat and /proc/<pid>/stat times on every Linux we run on. */
const TICKS_PER_SECOND = 100;

function busyTicks(): number | undefined {
  try {
    const v = (fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user)
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = v;
    return user + nice + system + irq + softirq + steal;
  } catch {
    return undefined;
  }
}

/** utime + stime (all threads) and command name of every process now. */
function processTable(): Map<number, { name: string; ticks: number }> {
  const table = new Map<number, { name: string; ticks: number }>();
  let entries: string[] = [];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return table;
  }
  for (const e of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      // The command name sits in parentheses and may hold spaces: fields resume after the last ')'.
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      table.set(Number(e), {
        name: stat.slice(stat.indexOf('(') + 1, close),
        ticks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // the process ended while we looked
    }
  }
  return table;
}

/** CPU seconds (user + system, all threads) the processes have used so far; missing ones count 0. */
export function cpuSecondsOf(pids: readonly number[]): number {
  const table = processTable();
  return pids.reduce((sum, pid) => sum + (table.get(pid)?.ticks ?? 0), 0) / TICKS_PER_SECOND;
}

export interface OtherCpu {
  /** Cores' worth of CPU used by processes other than the watched ones. */
  cores: number;
  /** The biggest of them by command name, e.g. [{ name: 'postgres', cores: 0.9 }]. */
  top: { name: string; cores: number }[];
}

export interface CpuWatch {
  stop(): OtherCpu | undefined;
}

const round2 = (n: number) => Math.max(0, Math.round(n * 100) / 100);

export function watchOtherCpu(pids: number[]): CpuWatch {
  const start = { at: Date.now(), busy: busyTicks(), table: processTable() };
  return {
    stop() {
      const busy = busyTicks();
      if (busy === undefined || start.busy === undefined) return undefined;
      const seconds = (Date.now() - start.at) / 1000;
      const end = processTable();
      const byName = new Map<string, number>();
      let ours = 0;
      let named = 0;
      for (const [pid, now] of end) {
        const before = start.table.get(pid);
        // Kernel workers rename themselves as they pick up work: match by pid, not by name.
        const used = now.ticks - (before ? before.ticks : 0);
        if (pids.includes(pid)) ours += used;
        else if (used > 0) {
          const name = now.name.startsWith('kworker/') ? 'kernel workers' : now.name;
          byName.set(name, (byName.get(name) ?? 0) + used);
          named += used;
        }
      }
      const others = busy - start.busy - ours;
      if (others - named > 0) byName.set('(short-lived)', others - named);
      const top = [...byName.entries()]
        .map(([name, ticks]) => ({ name, cores: round2(ticks / TICKS_PER_SECOND / seconds) }))
        .filter((t) => t.cores >= 0.05)
        .sort((a, b) => b.cores - a.cores)
        .slice(0, 4);
      return { cores: round2(others / TICKS_PER_SECOND / seconds), top };
    },
  };
}

/** "0.42 (postgres 0.35, node 0.05)" */
export function describeOtherCpu(o: OtherCpu | undefined): string {
  if (!o) return '?';
  return o.top.length ? `${o.cores} (${o.top.map((t) => `${t.name} ${t.cores}`).join(', ')})` : String(o.cores);
}
