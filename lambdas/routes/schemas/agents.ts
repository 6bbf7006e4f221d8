/**
 * Request and response bodies of the agent endpoints (docs/API.md §2.4, §2.5, §4.3, plus the
 * key endpoints and the agent-level revoke).
 */
import * as z from 'zod';
import { isB64u } from '@agent-ledger/protocol';
import { AGENT_STATUSES, INTEGRATION_TYPES, KEY_STATUSES } from '../../shared/agent-types.js';
import { STANDING_CODES } from '../../shared/errors.js';
import { unixMs } from './common.js';

/**
 * agent_id and kid: both become part of DynamoDB keys (`ORG#<org>#AGENT#<agent_id>`,
 * `KEY#<kid>`), so `#` and anything else that could forge a key segment is excluded.
 */
const IDENTIFIER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

export const agentIdSchema = z
  .string()
  .regex(IDENTIFIER_PATTERN, 'must be 1-128 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit');
export const kidSchema = agentIdSchema;

const integrationTypeSchema = z.enum(INTEGRATION_TYPES);


/** Free text (display name, responsible entity, reasons): bounded so items stay small. */
const text = (max: number) => z.string().trim().min(1).max(max);
const reasonSchema = text(1024);

/**
 * A new key's proof of possession (docs/PROTOCOL.md "Proof of possession"): its signature over
 * JCS({purpose, org_id, agent_id, kid, registered_at}); the domain checks it (key-log.ts).
 */
const possessionProofSchema = z.strictObject({
  registered_at: unixMs,
  signature: z.string().refine((value) => isB64u(value, 64), 'must be a 64-byte Ed25519 signature in unpadded base64url (86 characters)'),
});

/**
 * One key as registered: a raw 32-byte Ed25519 public key in base64url (docs/PROTOCOL.md,
 * Notation), with its proof of possession when the client gives one. `proof` is optional
 * because /v1 registered keys without it (docs/API.md §9: an addition to a request is an
 * optional field); an organization may require it (`require_key_proof`, §2.7).
 */
export const newKeySchema = z.strictObject({
  kid: kidSchema,
  public_key: z
    .string()
    .refine((value) => isB64u(value, 32), 'must be a 32-byte Ed25519 public key in unpadded base64url (43 characters)'),
  algorithm: z.literal('ed25519'),
  proof: possessionProofSchema.optional(),
});

/** Most keys one registration may carry; docs/ARCHITECTURE.md keeps a whole agent deletable in one transaction. */
const MAX_KEYS_PER_REGISTRATION = 10;

export const registerAgentBody = z.strictObject({
  agent_id: agentIdSchema,
  display_name: text(256).optional(),
  responsible_entity: text(256).optional(),
  integration_type: integrationTypeSchema,
  keys: z
    .array(newKeySchema)
    .min(1, 'an agent needs at least one key')
    .max(MAX_KEYS_PER_REGISTRATION)
    .refine((keys) => new Set(keys.map((key) => key.kid)).size === keys.length, 'kids must be unique'),
});

/** docs/API.md §4.3 PATCH: integration_type is required; the display fields may change with it. */
export const updateAgentBody = z.strictObject({
  integration_type: integrationTypeSchema,
  display_name: text(256).optional(),
  responsible_entity: text(256).nullable().optional(),
});

export const reasonBody = z.strictObject({ reason: reasonSchema });

/** docs/API.md §4.3 revoke: with `kid` the key is revoked; without, the whole agent. */
export const revokeBody = z.strictObject({ kid: kidSchema.optional(), reason: reasonSchema });

/** Retiring a key may say why; the body is optional. */
export const retireBody = z.strictObject({ reason: reasonSchema.optional() }).optional();

export const agentParams = z.strictObject({ agent_id: agentIdSchema });
export const agentKeyParams = z.strictObject({ agent_id: agentIdSchema, kid: kidSchema });

/** docs/API.md §2.4. responsible_entity is null when not given. */
const agentSchema = z
  .object({
    agent_id: z.string(),
    org_id: z.string(),
    display_name: z.string(),
    responsible_entity: z.string().nullable(),
    integration_type: integrationTypeSchema,
    status: z.enum(AGENT_STATUSES),
    created_at: unixMs,
    updated_at: unixMs,
    last_seen_at: unixMs.nullable().optional().meta({
      description: "When the agent's last accepted record or kept refused attempt was received; null when never. Added after the original contract.",
    }),
  })
  .meta({ id: 'Agent' });

/** docs/API.md §2.5. retired_at is set when the key is retired or revoked. */
const agentKeySchema = z
  .object({
    kid: z.string(),
    agent_id: z.string(),
    public_key: z.string(),
    algorithm: z.literal('ed25519'),
    status: z.enum(KEY_STATUSES),
    created_at: unixMs,
    retired_at: unixMs.nullable(),
    possession_proven: z.boolean().nullable().meta({
      description:
        "Whether the key's registration carried a proof of possession (docs/PROTOCOL.md \"Proof of possession\"); null only for a key stored before this field existed, in a response other than GET /v1/agents/:agent_id (which reads its key event).",
    }),
  })
  .meta({ id: 'AgentKey' });

/** The agent's chain head, so a client that lost its local state can resume. */
const chainHeadSchema = z.object({ seq_no: z.number().int().nonnegative(), chain_hash: z.string() });

export const agentWithKeysResponse = z.object({ agent: agentSchema, keys: z.array(agentKeySchema) });
export const agentDetailResponse = agentWithKeysResponse.extend({ chain: chainHeadSchema });
export const agentListResponse = z.object({ agents: z.array(agentSchema) });
export const agentResponse = z.object({ agent: agentSchema });
export const statusChangeResponse = z.object({ agent: agentSchema, previous_status: z.enum(AGENT_STATUSES) });
export const keyResponse = z.object({ key: agentKeySchema });
/** Revoke answers {key} for a key (docs/API.md §4.3), and the agent with its revoked keys for an agent. */
export const revokeResponse = z.union([keyResponse, statusChangeResponse.extend({ keys: z.array(agentKeySchema) })]);
export const deletedResponse = z.object({ deleted: z.literal(true) });

/** GET /v1/agents/:agent_id/attempts (docs/API.md §4.3 "Refused attempts"). */
export const attemptsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().min(1).max(128).optional(),
});

/** docs/API.md §2.14: the record as submitted, its payload left out when it was over LEDGER_INLINE_PAYLOAD_BYTES. */
export const attemptSchema = z
  .object({
    operation_id: z.string(),
    agent_id: z.string(),
    kid: z.string(),
    refused_code: z.enum(STANDING_CODES),
    refused_message: z.string(),
    received_at: unixMs,
    record: z.record(z.string(), z.unknown()).describe('the signed record (docs/API.md §2.1); payload absent when it was not kept'),
    payload_hash: z.string(),
  })
  .meta({ id: 'RefusedAttempt' });

export const attemptsResponse = z.object({ attempts: z.array(attemptSchema), cursor: z.string().optional().describe('present only when older attempts follow') });
