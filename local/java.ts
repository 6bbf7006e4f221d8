/**
 * Finds the Java runtime DynamoDB Local needs (docs/ARCHITECTURE.md, Local stack: "needs Java 17+"), so
 * a missing JDK fails at once with a message saying what to install, rather than as a
 * spawn error or a timeout.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

export const JAVA_REQUIRED_MESSAGE =
  'Java 17+ is required for DynamoDB Local; install a JDK (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME';

export class JavaMissingError extends Error {
  constructor(detail?: string) {
    super(detail ? `${JAVA_REQUIRED_MESSAGE} (${detail})` : JAVA_REQUIRED_MESSAGE);
    this.name = 'JavaMissingError';
  }
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The java executable: $JAVA_HOME/bin/java when JAVA_HOME is set, else the first `java` on PATH. */
export async function findJava(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const exe = process.platform === 'win32' ? 'java.exe' : 'java';
  if (env.JAVA_HOME) {
    const candidate = join(env.JAVA_HOME, 'bin', exe);
    if (await isExecutable(candidate)) return candidate;
    throw new JavaMissingError(`JAVA_HOME=${env.JAVA_HOME} has no bin/${exe}`);
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, exe);
    if (await isExecutable(candidate)) return candidate;
  }
  throw new JavaMissingError('no java on PATH');
}
