/**
 * KMS's encryption-context condition keys, made evaluable by @cloud-copilot/iam-simulate.
 *
 * AWS's service reference names the key `kms:EncryptionContext:${EncryptionContextKey}`: the
 * variable part follows a colon. The simulator (0.1.x) recognizes a variable part only after
 * a slash (`aws:PrincipalTag/…`), so it drops `kms:EncryptionContext:purpose` from the
 * request as unknown and every condition on it fails as missing: a grant conditioned on the
 * context (lib/grants.ts: the receipt key, the audit cursors) is then reported denied though
 * AWS allows it. Until the simulator knows these keys, the rehearsal renames the one
 * encryption-context key a check involves to the reference's own name, in the request and in
 * the policies alike, which the simulator does accept. A check involving two different
 * encryption-context keys is refused rather than conflated.
 */
import type { Json } from './assembly.js';
import type { PolicyDocument } from './deployment.js';

const PREFIX = 'kms:encryptioncontext:';
/** The name the simulator accepts (AWS's service reference for KMS). */
const REFERENCE_NAME = 'kms:EncryptionContext:${EncryptionContextKey}';

/** The key part of an encryption-context condition key, lowercased: IAM compares condition key names without case. */
const contextKeyOf = (name: string): string | undefined =>
  name.toLowerCase().startsWith(PREFIX) && name.length > PREFIX.length && !name.includes('${') ? name.slice(PREFIX.length).toLowerCase() : undefined;

/** The encryption-context keys (their part after the prefix) the conditions of `documents` name. */
function conditionedKeys(documents: readonly PolicyDocument[]): Set<string> {
  const keys = new Set<string>();
  for (const document of documents) {
    for (const statement of [document.Statement].flat()) {
      for (const operator of Object.values((statement.Condition ?? {}) as Record<string, Record<string, Json>>)) {
        for (const name of Object.keys(operator)) {
          const key = contextKeyOf(name);
          if (key !== undefined) keys.add(key);
        }
      }
    }
  }
  return keys;
}

function renamedConditions(document: PolicyDocument, key: string): PolicyDocument {
  const rename = (statement: Record<string, Json>): Record<string, Json> => {
    if (!statement.Condition) return statement;
    const conditions = Object.fromEntries(
      Object.entries(statement.Condition as Record<string, Record<string, Json>>).map(([operator, entries]) => [
        operator,
        Object.fromEntries(Object.entries(entries).map(([name, value]) => [contextKeyOf(name) === key ? REFERENCE_NAME : name, value])),
      ]),
    );
    return { ...statement, Condition: conditions };
  };
  return { ...document, Statement: Array.isArray(document.Statement) ? document.Statement.map(rename) : rename(document.Statement) };
}

/**
 * The request context and policies of one check, with `kms:EncryptionContext:<key>` renamed
 * where the simulator needs it (see the module comment); unchanged when no policy conditions
 * on the encryption context.
 *
 * @example
 * evaluableContext({ 'kms:EncryptionContext:purpose': 'cursor' }, [identity], keyPolicy);
 * // context { 'kms:EncryptionContext:${EncryptionContextKey}': 'cursor' }, policies renamed alike
 */
export function evaluableContext(
  context: Readonly<Record<string, string | string[]>>,
  identityPolicies: readonly PolicyDocument[],
  resourcePolicy: PolicyDocument | undefined,
): { context: Record<string, string | string[]>; identityPolicies: PolicyDocument[]; resourcePolicy: PolicyDocument | undefined } {
  const keys = conditionedKeys([...identityPolicies, ...(resourcePolicy ? [resourcePolicy] : [])]);
  if (keys.size === 0) return { context: { ...context }, identityPolicies: [...identityPolicies], resourcePolicy };
  if (keys.size > 1) throw new Error(`the policies condition on encryption-context keys ${[...keys].join(', ')}; the rehearsal's IAM check can evaluate one per check`);
  const [key] = [...keys] as [string];
  const renamed: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(context)) {
    const contextKey = contextKeyOf(name);
    // Other context keys of the request are not conditioned on: the simulator would drop them anyway.
    if (contextKey === undefined) renamed[name] = value;
    else if (contextKey === key) renamed[REFERENCE_NAME] = value;
  }
  return { context: renamed, identityPolicies: identityPolicies.map((p) => renamedConditions(p, key)), resourcePolicy: resourcePolicy && renamedConditions(resourcePolicy, key) };
}
