/**
 * The files this service hands out of its own client, read from /client/index.json (docs/CLI.md
 * "Installing the CLI from the service"; client/src/package/served-index.ts): the CLI's npm
 * tarball and the Python wheel, each with its SHA-256, at this origin.
 */
import { useEffect, useState } from 'preact/hooks';
import { CLIENT_INDEX_PATH, type ClientFile, type ClientIndex } from '../../../client/src/package/served-index.js';

export type ServedClient = { state: 'loading' } | { state: 'missing' } | { state: 'served'; npm?: ServedFile; wheel?: ServedFile };

/** One file with its address at this origin. */
export type ServedFile = ClientFile & { url: string };

export function useServedClient(): ServedClient {
  const [served, setServed] = useState<ServedClient>({ state: 'loading' });
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const response = await fetch(CLIENT_INDEX_PATH, { cache: 'no-cache' });
        // npm start answers 503 while it still builds the files (local/client-files.ts): ask again.
        if (response.status === 503) {
          timer = setTimeout(() => void load(), (Number(response.headers.get('retry-after')) || 5) * 1000);
          return;
        }
        if (!response.ok) throw new Error(String(response.status));
        const index = (await response.json()) as ClientIndex;
        const file = (kind: ClientFile['kind']) => {
          const found = index.files.find((entry) => entry.kind === kind);
          return found && { ...found, url: new URL(`/client/${found.name}`, location.origin).href };
        };
        if (!stopped) setServed({ state: 'served', npm: file('npm'), wheel: file('wheel') });
      } catch {
        if (!stopped) setServed({ state: 'missing' });
      }
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  return served;
}

export const npmInstall = (file: ServedFile) => `npm install -g ${file.url}`;
export const pipInstall = (file: ServedFile) => `pip install ${file.url}`;
