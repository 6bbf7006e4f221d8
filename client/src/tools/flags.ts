/** The 15 coding-tool flags of SPEC.md §1 / §2.4, and the hook-less integration types. */
export const TOOL_FLAGS = [
  'augment',
  'claudecode',
  'cline',
  'codex',
  'copilot',
  'cursor',
  'droid',
  'gemini',
  'grok',
  'kimi',
  'kirocli',
  'kiroide',
  'letta',
  'opencode',
  'qwen',
] as const;
export type ToolFlag = (typeof TOOL_FLAGS)[number];

/** `agent init --tool` also takes these: an agent that submits through the SDK or CLI itself. */
export const HOOKLESS_FLAGS = ['sdk', 'other'] as const;

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
