/** Value sets of agents and keys (docs/API.md §2.4, §2.5, §3), shared by schemas, items and use cases. */

/** docs/API.md §2.4: the coding tools of §1 plus enterprise, gui, sdk and other. */
export const INTEGRATION_TYPES = [
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
  'enterprise',
  'gui',
  'sdk',
  'other',
] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];

export const AGENT_STATUSES = ['active', 'frozen', 'revoked'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export const KEY_STATUSES = ['active', 'retired', 'revoked'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];
