/**
 * CPU time as Linux counts it in /proc (proc(5): /proc/stat, /proc/<pid>/stat), for the table
 * `npm test` prints (scripts/test.ts): on a machine whose cores are all busy, a run takes as
 * long as the CPU its parts need, whatever they wait for, so the table shows what each part
 * spent next to how long it took. Where there is no /proc (macOS, Windows) every reader answers
 * undefined and the table leaves the CPU out.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat this module reads, CPU times in clock ticks. */
interface ProcessStat {
  pid: number;
  pgrp: number;
  /** The process's own user and system time. */
  utime: number;
  stime: number;
  /** User and system time of its children that have ended and been waited for (with theirs). */
  cutime: number;
  cstime: number;
}

/**
 * One /proc/<pid>/stat line. The command name (field 2) is in parentheses and may itself hold
 * spaces and parentheses, so the fields are counted from its last `)`.
 */
export function parseProcessStat(line: string): ProcessStat {
  const close = line.lastIndexOf(')');
  if (close < 0) throw new Error(`not a /proc/<pid>/stat line: ${line.slice(0, 80)}`);
  const pid = Number(line.slice(0, line.indexOf(' ')));
  // After the name: state (field 3), ppid (4), pgrp (5), ..., utime (14), stime (15), cutime (16), cstime (17).
  const rest = line.slice(close + 2).split(' ');
  const field = (n: number) => Number(rest[n - 3]);
  return { pid, pgrp: field(5), utime: field(14), stime: field(15), cutime: field(16), cstime: field(17) };
}

/** Busy and total time of all cores since boot, in clock ticks, from /proc/stat's `cpu` line. */
export interface MachineCpu {
  cores: number;
  busy: number;
  total: number;
}

export function parseMachineStat(text: string): MachineCpu {
  const lines = text.split('\n');
  const all = lines.find((line) => line.startsWith('cpu '));
  if (!all) throw new Error('no cpu line in /proc/stat');
  // user nice system idle iowait irq softirq steal (guest time is already inside user and nice).
  const [user, nice, system, idle, iowait, irq, softirq, steal] = all.trim().split(/\s+/).slice(1, 9).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + (steal ?? 0);
  return { cores: lines.filter((line) => /^cpu\d+ /.test(line)).length, busy, total: busy + idle! + (iowait ?? 0) };
}

let ticks: number | undefined;

/** Clock ticks per second (`getconf CLK_TCK`; 100 on every Linux this runs on, should getconf be missing). */
export function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

function readStat(pid: number | 'self'): ProcessStat | undefined {
  try {
    return parseProcessStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined; // no /proc, or the process ended meanwhile
  }
}

/**
 * Seconds of CPU of this process's children that have ended and been waited for, with all of
 * theirs: read before and after a child ends, the difference is what that child's whole tree spent.
 */
export function endedChildrenCpuSeconds(): number | undefined {
  const stat = readStat('self');
  return stat && (stat.cutime + stat.cstime) / clockTicks();
}

/** Seconds of CPU the live processes of a process group spent so far (a server and its workers). */
export function processGroupCpuSeconds(pgrp: number): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  let sum = 0;
  for (const pid of pids) {
    const stat = readStat(Number(pid));
    if (stat?.pgrp === pgrp) sum += stat.utime + stat.stime + stat.cutime + stat.cstime;
  }
  return sum / clockTicks();
}

/** The machine's CPU counters now, or undefined without /proc. */
export function machineCpu(): MachineCpu | undefined {
  try {
    return parseMachineStat(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
}
