import type { components } from '../generated/api.js';

/** docs/API.md §2.4 integration_type, as the API's generated types have it (one source: the route table). */
type IntegrationType = components['schemas']['Agent']['integration_type'];

/** The 15 coding-tool flags of docs/API.md §1: the integration types that come with a hook. */
export const TOOL_FLAGS = ['augment', 'claudecode', 'cline', 'codex', 'copilot', 'cursor', 'droid', 'gemini', 'grok', 'kimi', 'kirocli', 'kiroide', 'letta', 'opencode', 'qwen'] as const satisfies readonly IntegrationType[];
export type ToolFlag = (typeof TOOL_FLAGS)[number];

/** `agent init --tool` also takes these: an agent that submits through the SDK or CLI itself. */
export const HOOKLESS_FLAGS = ['sdk', 'other'] as const satisfies readonly IntegrationType[];

/** Fails to compile when the API gains an integration type this list does not place. */
export const EVERY_INTEGRATION_TYPE_PLACED: Exclude<IntegrationType, ToolFlag | (typeof HOOKLESS_FLAGS)[number] | 'enterprise' | 'gui'> extends never ? true : never = true;

export const isToolFlag = (value: string): value is ToolFlag => (TOOL_FLAGS as readonly string[]).includes(value);

export const TOOL_NAMES: Record<ToolFlag, string> = {
  augment: 'Augment (Auggie)',
  claudecode: 'Claude Code',
  cline: 'Cline',
  codex: 'OpenAI Codex CLI',
  copilot: 'GitHub Copilot CLI',
  cursor: 'Cursor',
  droid: 'Factory Droid',
  gemini: 'Gemini CLI',
  grok: 'Grok Build',
  kimi: 'Kimi Code CLI',
  kirocli: 'Kiro CLI',
  kiroide: 'Kiro IDE',
  letta: 'Letta Code',
  opencode: 'opencode',
  qwen: 'Qwen Code',
};
