// The CPU figures of `npm test`'s table (scripts/cpu-time.ts): /proc's lines read field by field,
// including a command name with spaces and parentheses, and, on Linux, real processes' CPU: a
// child's whole tree once it has ended, a live process group, and the machine's counters.
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { clockTicks, endedChildrenCpuSeconds, machineCpu, parseMachineStat, parseProcessStat, processGroupCpuSeconds } from '../../scripts/cpu-time.js';

/** A child that spins for `ms` of CPU, in a child of its own (a tree of two), then ends. */
const SPIN_IN_GRANDCHILD = (ms: number) =>
  `require('node:child_process').spawnSync(process.execPath, ['-e', 'const end = Date.now() + ${ms}; while (Date.now() < end);'], { stdio: 'ignore' })`;

describe('/proc lines', () => {
  it('reads a process line by counting fields after the name, whatever the name holds', () => {
    // Fields 3 on: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
    const line = '4242 (node (worker) a b) S 1 4200 4200 0 -1 4194560 100 0 0 0 250 30 7 3 20 0 1 0 100 1000 10\n';
    expect(parseProcessStat(line)).toEqual({ pid: 4242, pgrp: 4200, utime: 250, stime: 30, cutime: 7, cstime: 3 });
    expect(() => parseProcessStat('garbage')).toThrow(/not a \/proc/);
  });

  it('reads the machine line: busy is all but idle and iowait, cores are the cpuN lines', () => {
    const text = ['cpu  100 5 50 800 20 3 2 10 0 0', 'cpu0 50 2 25 400 10 1 1 5 0 0', 'cpu1 50 3 25 400 10 2 1 5 0 0', 'intr 1'].join('\n');
    expect(parseMachineStat(text)).toEqual({ cores: 2, busy: 100 + 5 + 50 + 3 + 2 + 10, total: 170 + 800 + 20 });
    expect(() => parseMachineStat('intr 1')).toThrow(/no cpu line/);
  });
});

describe.runIf(process.platform === 'linux')('real processes', () => {
  it('counts an ended child with its own children, and nothing before it ended', () => {
    const before = endedChildrenCpuSeconds()!;
    const child = spawnSync(process.execPath, ['-e', SPIN_IN_GRANDCHILD(600)]);
    expect(child.status).toBe(0);
    const spent = endedChildrenCpuSeconds()! - before;
    // The grandchild's 0.6 s of spinning, give or take a tick, plus two Node starts.
    expect(spent).toBeGreaterThanOrEqual(0.5);
    expect(spent).toBeLessThan(10);
  });

  it('counts a live process group, and only its own processes', async () => {
    const child = spawn(process.execPath, ['-e', `${SPIN_IN_GRANDCHILD(500)}; console.log('spun'); setTimeout(() => {}, 60_000)`], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise((resolve) => child.stdout!.once('data', resolve));
      const group = processGroupCpuSeconds(child.pid!)!;
      expect(group).toBeGreaterThanOrEqual(0.4);
      expect(group).toBeLessThan(10);
      // A group nobody is in spent nothing.
      expect(processGroupCpuSeconds(2 ** 22 + 1)).toBe(0);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  });

  it('reads the machine: some cores, busy within total, ticks per second', () => {
    const machine = machineCpu()!;
    expect(machine.cores).toBeGreaterThanOrEqual(1);
    expect(machine.busy).toBeGreaterThan(0);
    expect(machine.busy).toBeLessThanOrEqual(machine.total);
    expect(clockTicks()).toBeGreaterThanOrEqual(100);
  });
});
