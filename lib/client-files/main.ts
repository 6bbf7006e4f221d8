/**
 * `node --import tsx lib/client-files/main.ts [--wheel optional|required]`: builds (or finds in
 * the cache) the files the service hands out under /client/ (build.ts) and prints their
 * directory. `npm start` runs it as a child process, so that the build runs beside the storage
 * engines' start instead of blocking it (local/client-files.ts).
 */
import { clientFiles } from './build.js';

const wheel = process.argv[process.argv.indexOf('--wheel') + 1] === 'required' ? 'required' : 'optional';
process.stdout.write(`${clientFiles({ wheel, warn: (message) => process.stderr.write(`ledger: ${message}\n`) })}\n`);
