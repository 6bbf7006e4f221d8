/**
 * Agent assignments (docs/API.md §2.6, §4.4) and the read_all rule they switch on (§5): once
 * any assignment exists, integration_engineer and readonly_investigator see only their
 * assigned agents.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { orgOwner, signedInUser, type SignedIn } from '../support/identity-flows.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
const call = stack.call;
let owner: SignedIn & { orgId: string };
let engineer: SignedIn;
let investigator: SignedIn;
let agentA: string;
let agentB: string;

async function join(invitee: SignedIn, role: string): Promise<void> {
  const invited = await call('POST', '/v1/members/invitations', { token: owner.session, body: { email: invitee.email, role } });
  const accepted = await call('POST', `/v1/invitations/${invited.json.invitation.invitation_id}/accept`, { token: invitee.session });
  expect(accepted.status).toBe(200);
}

beforeAll(async () => {
  owner = await orgOwner(stack.baseUrl, 'Assigners');
  engineer = await signedInUser(stack.baseUrl, 'Engineer');
  investigator = await signedInUser(stack.baseUrl, 'Investigator');
  await join(engineer, 'integration_engineer');
  await join(investigator, 'readonly_investigator');
  const api = stack.api(owner.session);
  agentA = uniqueAgentId('a');
  agentB = uniqueAgentId('b');
  await registerAgent(api, agentA, [newKey()], 'claudecode');
  await registerAgent(api, agentB, [newKey()], 'cursor');
});

const agentIds = async (token: string) => (await call('GET', '/v1/agents', { token })).json.agents.map((agent: { agent_id: string }) => agent.agent_id).sort();

describe('assignments', () => {
  it('assign → list → per-member listing → read_all rule → unassign, with agent.assign / agent.unassign events', async () => {
    // No assignment yet: everyone sees every agent.
    expect(await agentIds(engineer.session)).toEqual([agentA, agentB].sort());

    const assigned = await call('POST', `/v1/agents/${agentA}/assignments`, { token: owner.session, body: { user_id: engineer.userId } });
    expect(assigned.status).toBe(201);
    expect(assigned.json).toEqual({
      id: expect.any(String),
      agent_id: agentA,
      user_id: engineer.userId,
      org_id: owner.orgId,
      assigned_by: owner.userId,
      created_at: expect.any(Number),
    });
    expect((await call('POST', `/v1/agents/${agentA}/assignments`, { token: owner.session, body: { user_id: engineer.userId } })).status).toBe(409);

    const listed = await call('GET', `/v1/agents/${agentA}/assignments`, { token: owner.session });
    expect(listed.json.assignments).toEqual([expect.objectContaining({ id: assigned.json.id, email: engineer.email, display_name: 'Engineer' })]);

    const mine = await call('GET', `/v1/members/${engineer.userId}/agents`, { token: engineer.session });
    expect(mine.status).toBe(200);
    expect(mine.json.agents).toEqual([
      expect.objectContaining({ id: assigned.json.id, agent_id: agentA, agent_display_name: agentA, integration_type: 'claudecode', agent_status: 'active' }),
    ]);
    // Admins may look at anyone's; others only at their own.
    expect((await call('GET', `/v1/members/${engineer.userId}/agents`, { token: owner.session })).status).toBe(200);
    expect((await call('GET', `/v1/members/${engineer.userId}/agents`, { token: investigator.session })).status).toBe(403);
    expect((await call('GET', `/v1/members/${investigator.userId}/agents`, { token: investigator.session })).json.agents).toEqual([]);

    // read_all: the engineer now sees only agent A, the investigator (nothing assigned) none; the owner all.
    expect(await agentIds(engineer.session)).toEqual([agentA]);
    expect(await agentIds(investigator.session)).toEqual([]);
    expect(await agentIds(owner.session)).toEqual([agentA, agentB].sort());
    expect((await call('GET', `/v1/agents/${agentB}`, { token: engineer.session })).status).toBe(404);

    const unassigned = await call('DELETE', `/v1/agents/${agentA}/assignments/${engineer.userId}`, { token: owner.session });
    expect(unassigned.status).toBe(200);
    expect(unassigned.json).toEqual({ deleted: true });
    expect((await call('DELETE', `/v1/agents/${agentA}/assignments/${engineer.userId}`, { token: owner.session })).status).toBe(404);
    // No assignment left: the rule is off again.
    expect(await agentIds(investigator.session)).toEqual([agentA, agentB].sort());

    const actions = (await call('GET', '/v1/admin/events?limit=2', { token: owner.session })).json.events;
    expect(actions.map((event: { action: string }) => event.action)).toEqual(['agent.unassign', 'agent.assign']);
    expect(actions[1]).toMatchObject({ target_type: 'agent', target_id: agentA });
    expect(JSON.parse(actions[1].details)).toEqual({ user_id: engineer.userId });
  });

  it('needs the user to be a member and the agent to exist', async () => {
    const outsider = await signedInUser(stack.baseUrl, 'Outsider');
    const notMember = await call('POST', `/v1/agents/${agentA}/assignments`, { token: owner.session, body: { user_id: outsider.userId } });
    expect(notMember.status).toBe(400);
    expect(notMember.json.error.code).toBe('VALIDATION_ERROR');
    expect((await call('POST', '/v1/agents/no-such-agent/assignments', { token: owner.session, body: { user_id: engineer.userId } })).status).toBe(404);
    expect((await call('GET', '/v1/agents/no-such-agent/assignments', { token: owner.session })).status).toBe(404);
    expect((await call('GET', `/v1/members/${outsider.userId}/agents`, { token: owner.session })).status).toBe(404);
  });

  it("removing a member removes their assignments, so the read_all rule does not linger", async () => {
    const temp = await signedInUser(stack.baseUrl, 'Temp');
    await join(temp, 'readonly_investigator');
    expect((await call('POST', `/v1/agents/${agentB}/assignments`, { token: owner.session, body: { user_id: temp.userId } })).status).toBe(201);
    expect(await agentIds(investigator.session)).toEqual([]);
    expect((await call('DELETE', `/v1/members/${temp.userId}`, { token: owner.session })).status).toBe(200);
    expect((await call('GET', `/v1/agents/${agentB}/assignments`, { token: owner.session })).json.assignments).toEqual([]);
    expect(await agentIds(investigator.session)).toEqual([agentA, agentB].sort());
    const [event] = (await call('GET', '/v1/admin/events?limit=1', { token: owner.session })).json.events;
    expect(JSON.parse(event.details).unassigned_agents).toEqual([agentB]);
  });
});
