/**
 * Every command but the hook. The published CLI ships them as one module of their own,
 * dist/commands.cjs (client/build.mjs), imported only when one of them runs: a coding tool
 * starts the hook on every tool use, and it should not pay for parsing the installers, the
 * export verifier or the PDF reader it never runs.
 */
export { login } from './login.js';
export { agentInit } from './agent-init.js';
export { agentUninstall } from './agent-uninstall.js';
export { agentKeys } from './agent-keys.js';
export { status } from './status.js';
export { submit } from './submit.js';
export { verify } from './verify.js';
export { exportCommand } from './export.js';
export { doctor } from './doctor.js';
