/**
 * `npm run vectors`: regenerates protocol/test/vectors/ from the protocol's own code (see
 * protocol/test/vectorgen/index.ts). Deterministic; a value that disagrees with an RFC
 * example, or a negative case that this implementation accepts, stops it before any file
 * is written. `--check` writes nothing and exits 1 when a committed file differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { generateVectors, vectorFileText } from '../protocol/test/vectorgen/index.js';

const dir = new URL('../protocol/test/vectors/', import.meta.url);
const check = process.argv.includes('--check');
const files = Object.entries(generateVectors()).map(([name, content]) => ({ name, text: vectorFileText(content) }));
let stale = 0;
for (const { name, text } of files) {
  const url = new URL(name, dir);
  let current: string | undefined;
  try {
    current = readFileSync(url, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  stale++;
  if (check) console.error(`${name}: differs from what the protocol code generates`);
  else {
    writeFileSync(url, text);
    console.log(`wrote protocol/test/vectors/${name}`);
  }
}
if (check && stale > 0) process.exit(1);
console.log(`${files.length} vector files, ${check ? `${stale} stale` : `${stale} rewritten`}`);
