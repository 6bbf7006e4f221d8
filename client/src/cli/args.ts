/** Command-line options through node:util parseArgs, with errors a person can act on. */
import { parseArgs } from 'node:util';
import { usageError } from './errors.js';

type Spec = Record<string, { type: 'string' | 'boolean'; short?: string }>;
type Values<S extends Spec> = { [K in keyof S]?: S[K]['type'] extends 'boolean' ? boolean : string };

/** Options that would put a secret into argv (visible in `ps`, shell history): never accepted. */
const SECRET_OPTIONS = ['--token', '--api-token', '--password', '--key', '--private-key'];

export function parseOptions<S extends Spec>(args: string[], spec: S, positionals = 0): { values: Values<S>; positionals: string[] } {
  const secret = args.find((arg) => SECRET_OPTIONS.includes(arg.split('=')[0]!));
  if (secret) {
    throw usageError(`${secret.split('=')[0]} is not accepted: secrets never go on the command line (other users can see them in the process list). Use --token-file FILE (mode 600), stdin, or the prompt.`);
  }
  let parsed;
  try {
    parsed = parseArgs({ args, options: spec, allowPositionals: positionals > 0, strict: true });
  } catch (error) {
    throw usageError((error as Error).message.replace(/\. To specify a positional argument.*$/, ''));
  }
  if (parsed.positionals.length > positionals) throw usageError(`unexpected argument "${parsed.positionals[positionals]}"`);
  return { values: parsed.values as Values<S>, positionals: parsed.positionals };
}

export function required(value: string | undefined, option: string): string {
  if (value === undefined || value === '') throw usageError(`${option} is required`);
  return value;
}

export function oneOf<T extends string>(value: string | undefined, option: string, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(choices as readonly string[]).includes(value)) throw usageError(`${option} must be one of ${choices.join(', ')} (got "${value}")`);
  return value as T;
}
