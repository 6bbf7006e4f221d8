/**
 * How each real tool is pointed at the fake model, offline, and asked for one task (docs/HOOKS.md
 * "The real tools"): the files its configuration needs in an isolated HOME, its environment,
 * and its command line. Confirm these against the tool's source when a pinned version changes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DriveContext {
  home: string;
  project: string;
  modelUrl: string;
  prompt: string;
  /** The tool's executable. */
  bin: string;
}

export interface Driver {
  /** The `agent init --tool` flag and any extra init options. */
  initArgs: string[];
  /** Writes the tool's own configuration (its model provider) into the isolated HOME; runs after agent init. */
  configure(ctx: DriveContext): void;
  env(ctx: DriveContext): Record<string, string>;
  args(ctx: DriveContext): string[];
  /** What the tool's own output (stdout, stderr) shows the person, checked by the suite. */
  shows?: {
    /** A deny's reason ("denied by agent-ledger: …"). */
    denyReason?: boolean;
    /** The warning of a call allowed without a record (on-error allow). */
    allowWarning?: boolean;
  };
}

const write = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};

/** Merges `change` into a JSON settings file that agent init wrote (the hook) or that does not exist yet. */
const mergeJson = (path: string, change: Record<string, unknown>) => {
  const current = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(change)) {
    const before = merged[key];
    merged[key] = before && typeof before === 'object' && value && typeof value === 'object' && !Array.isArray(value) ? { ...(before as object), ...(value as object) } : value;
  }
  write(path, `${JSON.stringify(merged, null, 2)}\n`);
};

/** Environment every tool gets: no telemetry, no update checks, no colour. */
const QUIET = { NO_COLOR: '1', CI: '1', DISABLE_AUTOUPDATER: '1', DO_NOT_TRACK: '1' };

/** The fake model's API key where a tool needs one. */
const FAKE_KEY = 'sk-test-key';

const OPENCODE_ENV = {
  ...QUIET,
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
  OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
};

const CLINE_ENV = { ...QUIET, CLINE_SESSION_BACKEND_MODE: 'local', CLINE_NO_AUTO_UPDATE: '1' };

export const DRIVERS: Record<string, Driver> = {
  // Claude Code: ANTHROPIC_BASE_URL with any key; Anthropic Messages, streamed.
  claudecode: {
    initArgs: [],
    configure: () => {},
    env: (ctx) => ({
      ...QUIET,
      ANTHROPIC_BASE_URL: ctx.modelUrl,
      ANTHROPIC_API_KEY: 'sk-ant-fake',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }),
    args: (ctx) => ['-p', ctx.prompt, '--allowedTools', 'Bash', '--model', 'claude-sonnet-4-5'],
  },
  // Codex: a custom model provider in $CODEX_HOME/config.toml; the Responses API, streamed. The
  // hook is trusted by `agent init --trust` (what this suite checks), not by a bypass flag.
  codex: {
    initArgs: ['--trust'],
    configure: (ctx) => {
      const config = join(ctx.home, '.codex', 'config.toml');
      const provider = [
        'model = "fake-model"',
        'model_provider = "fake"',
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        '',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = "${ctx.modelUrl}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_API_KEY"',
        '',
      ].join('\n');
      // agent init wrote the trust entry into config.toml: the provider goes before it.
      const existing = existsSync(config) ? readFileSync(config, 'utf8') : '';
      write(config, `${provider}\n${existing}`);
    },
    env: (ctx) => ({ ...QUIET, CODEX_HOME: join(ctx.home, '.codex'), FAKE_API_KEY: 'fake' }),
    args: (ctx) => ['exec', '--skip-git-repo-check', ctx.prompt],
  },
  // Gemini CLI: GOOGLE_GEMINI_BASE_URL with API-key auth and the project a trusted folder;
  // generateContent, streamed.
  gemini: {
    initArgs: [],
    configure: (ctx) => {
      mergeJson(join(ctx.home, '.gemini', 'settings.json'), { security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } });
      write(join(ctx.home, '.gemini', 'trustedFolders.json'), `${JSON.stringify({ [ctx.project]: 'TRUST_FOLDER' })}\n`);
    },
    env: (ctx) => ({ ...QUIET, GOOGLE_GEMINI_BASE_URL: ctx.modelUrl, GEMINI_API_KEY: 'fake' }),
    args: (ctx) => ['-p', ctx.prompt, '--yolo', '-m', 'gemini-2.5-flash'],
  },
  // Qwen Code: OPENAI_BASE_URL with OpenAI auth; Chat Completions.
  qwen: {
    initArgs: [],
    configure: (ctx) => mergeJson(join(ctx.home, '.qwen', 'settings.json'), { security: { auth: { selectedType: 'openai' } }, privacy: { usageStatisticsEnabled: false } }),
    env: (ctx) => ({ ...QUIET, OPENAI_BASE_URL: `${ctx.modelUrl}/v1`, OPENAI_API_KEY: 'fake', OPENAI_MODEL: 'fake-model' }),
    args: (ctx) => ['-p', ctx.prompt, '--yolo', '--auth-type', 'openai'],
  },
  // opencode: an OpenAI-compatible provider in opencode.json; Chat Completions. Offline: no
  // models.dev catalogue, no LSP downloads, no share, no default plugins, no update check (the
  // variables opencode 1.18's flag module reads), no git snapshots of the project. Its working
  // directory is PWD (runTool sets it). A config folder with a plugin gets @opencode-ai/plugin
  // installed from the npm registry before the plugin loads, minutes on a cold npm cache:
  // `opencode debug config` does that once here, so no phase's run budget pays for it.
  opencode: {
    initArgs: [],
    configure: (ctx) => {
      mergeJson(join(ctx.home, '.config', 'opencode', 'opencode.json'), {
        $schema: 'https://opencode.ai/config.json',
        autoupdate: false,
        share: 'disabled',
        snapshot: false,
        model: 'fake/fake-model',
        permission: { bash: 'allow', edit: 'allow' },
        provider: { fake: { npm: '@ai-sdk/openai-compatible', name: 'fake', options: { baseURL: `${ctx.modelUrl}/v1`, apiKey: FAKE_KEY }, models: { 'fake-model': { name: 'fake', tool_call: true } } } },
      });
      execFileSync(ctx.bin, ['debug', 'config'], { cwd: ctx.project, env: { ...process.env, ...OPENCODE_ENV, HOME: ctx.home, XDG_CONFIG_HOME: join(ctx.home, '.config'), PWD: ctx.project }, stdio: 'pipe', timeout: 600_000 });
    },
    env: () => OPENCODE_ENV,
    args: (ctx) => ['run', ctx.prompt],
    // opencode drops a plugin child's stderr: the plugin passes the warning on itself.
    shows: { allowWarning: true },
  },
  // Copilot CLI: COPILOT_OFFLINE must be "true" (its help: no GitHub authentication, telemetry,
  // web tools or auto-update; "1" is not offline) with a BYOK provider in COPILOT_PROVIDER_*;
  // Chat Completions. It masks the API key wherever it appears in its logs, so the key is not a
  // word of the model's name.
  copilot: {
    initArgs: [],
    configure: () => {},
    env: (ctx) => ({
      ...QUIET,
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_PROVIDER_BASE_URL: `${ctx.modelUrl}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: FAKE_KEY,
      COPILOT_MODEL: 'fake-model',
    }),
    args: (ctx) => ['-p', ctx.prompt, '--allow-all-tools'],
    // It prints "Denied by preToolUse hook: <reason>" under the call.
    shows: { denyReason: true },
  },
  // Cline CLI: `cline auth -p openai -b URL` (it writes ~/.cline/data/settings/providers.json),
  // then `cline "…"` (act mode, auto-approve); Chat Completions. Its sessions run in-process
  // (CLINE_SESSION_BACKEND_MODE=local), not in the hub daemon it otherwise starts and leaves
  // running; global-settings.json opts out of telemetry and auto-update.
  cline: {
    initArgs: [],
    configure: (ctx) => {
      mergeJson(join(ctx.home, '.cline', 'data', 'settings', 'global-settings.json'), { telemetryOptOut: true, autoUpdateEnabled: false });
      execFileSync(ctx.bin, ['auth', '-p', 'openai', '-b', `${ctx.modelUrl}/v1`, '-k', FAKE_KEY, '-m', 'fake-model'], { cwd: ctx.project, env: { ...process.env, ...CLINE_ENV, HOME: ctx.home }, stdio: 'pipe', timeout: 180_000 });
    },
    env: () => CLINE_ENV,
    args: (ctx) => [ctx.prompt],
    // The deny replaces the call's commands with one that prints the reason: the CLI shows it as the call's result.
    shows: { denyReason: true },
  },
};
