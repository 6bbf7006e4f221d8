/**
 * One instance per vitest run of what several projects' global setups start (DynamoDB Local,
 * s3rver, the client build): vitest runs each project's globalSetup on its own, so two projects
 * listing the same setup file would start two JVMs and build the client twice, at once. The
 * first project to ask starts it; the last one to finish stops it.
 */
interface Entry {
  started: Promise<unknown>;
  users: number;
}

const entries = ((globalThis as { __agentLedgerSharedSetups?: Map<string, Entry> }).__agentLedgerSharedSetups ??= new Map());

export async function sharedAcrossProjects<T>(key: string, start: () => Promise<T>, stop: (value: T) => Promise<void>): Promise<{ value: T; release: () => Promise<void> }> {
  let entry = entries.get(key);
  if (!entry) {
    entry = { started: start(), users: 0 };
    entries.set(key, entry);
    // A failed start is not kept: the project that asked reports it, and a later one tries again.
    entry.started.catch(() => entries.delete(key));
  }
  entry.users += 1;
  const own = entry;
  const value = (await own.started) as T;
  let released = false;
  return {
    value,
    release: async () => {
      if (released) return;
      released = true;
      own.users -= 1;
      if (own.users === 0) {
        entries.delete(key);
        await stop(value);
      }
    },
  };
}
