/** POST /v1/agents/register (SPEC.md §4.3). */
import { registerAgent } from '../../domain/agents/register-agent.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.registerAgent, async ({ caller, body }) => ({
  body: await registerAgent(caller, body),
}));
