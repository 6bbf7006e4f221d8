/**
 * Kimi's `[[hooks]]` entry in config.toml. TOML libraries re-serialize a whole document
 * (dropping comments and layout), so the entry is appended as a block of text between two
 * marker comments, and the result is checked with a maintained TOML parser (smol-toml):
 * the user's bytes stay as they were, and uninstall cuts the block out again.
 *
 * Kimi Code accepts exactly event, matcher, command and timeout in a hook table (an unknown
 * key fails the whole file), so the block holds nothing else.
 */
import { parse as parseToml, TomlError } from 'smol-toml';
import { ConfigError } from './config-error.js';
import type { PlannedFile } from './planned-file.js';
import { readIfExists } from '../local/files.js';

const begin = (agentId: string) => `# >>> agent-ledger ${agentId} (added by \`agent-ledger agent init\`; removed by \`agent-ledger agent uninstall --agent ${agentId}\`)`;
const end = (agentId: string) => `# <<< agent-ledger ${agentId}`;

/** A TOML basic string (TOML 1.0 §String). */
function tomlString(value: string): string {
  return JSON.stringify(value).replace(/[\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function parseTomlFile(path: string, text: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const where = error instanceof TomlError ? ` at line ${error.line}, column ${error.column}` : '';
    throw new ConfigError(`${path} is not valid TOML${where}; fix it first: nothing was changed`);
  }
}

/** `text` with `lines` appended between this agent's markers (a blank line before them), checked to parse. */
export function appendTomlBlock(path: string, text: string, agentId: string, lines: string[]): string {
  parseTomlFile(path, text);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const separator = text === '' ? '' : text.endsWith(eol) ? eol : `${eol}${eol}`;
  const after = `${text}${separator}${[begin(agentId), ...lines, end(agentId), ''].join(eol)}`;
  parseTomlFile(path, after);
  return after;
}

export function appendTomlHook(path: string, agentId: string, command: string, timeoutSeconds: number): PlannedFile {
  const before = readIfExists(path);
  const text = before ?? '';
  parseTomlFile(path, text);
  if (text.includes(begin(agentId))) return { path, kind: 'toml', before, after: text };
  const after = appendTomlBlock(path, text, agentId, ['[[hooks]]', 'event = "PreToolUse"', `command = ${tomlString(command)}`, `timeout = ${timeoutSeconds}`]);
  const parsed = parseTomlFile(path, after);
  const hooks = parsed.hooks;
  if (!Array.isArray(hooks) || !hooks.some((hook) => (hook as { command?: unknown }).command === command)) {
    throw new ConfigError(`${path}: its hooks are not a list of [[hooks]] tables, so the hook cannot be added; nothing was changed`);
  }
  return { path, kind: 'toml', before, after };
}

/** Cuts this agent's block (and the blank line before it) out of the text; undefined when absent. */
export function removeTomlHook(text: string, agentId: string): string | undefined {
  const start = text.indexOf(begin(agentId));
  if (start < 0) return undefined;
  const endMark = text.indexOf(end(agentId), start);
  if (endMark < 0) return undefined;
  let stop = endMark + end(agentId).length;
  if (text.startsWith('\r\n', stop)) stop += 2;
  else if (text.startsWith('\n', stop)) stop += 1;
  let from = start;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (text.slice(0, from).endsWith(`${eol}${eol}`)) from -= eol.length;
  return text.slice(0, from) + text.slice(stop);
}
