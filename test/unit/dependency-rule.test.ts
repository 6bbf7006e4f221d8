// The lint rules of the dependency rule (docs/ARCHITECTURE.md, The dependency rule) must actually fire.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function lint(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: file });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

describe('protocol/ import boundaries', () => {
  it.each([
    "import { readFileSync } from 'node:fs';",
    "import { request } from 'node:https';",
    "import { z } from 'zod';",
    "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
    "import middy from '@middy/core';",
    "import { config } from '../../lambdas/config.js';",
  ])('rejects %s', async (line) => {
    const messages = await lint('protocol/src/example.ts', `${line}\nexport const x = [${line.match(/\{ (\w+) \}|import (\w+)/)?.slice(1).find(Boolean)}];\n`);
    expect(messages).toContain('no-restricted-imports');
  });

  it('allows node:crypto', async () => {
    const messages = await lint('protocol/src/example.ts', "import { createHash } from 'node:crypto';\nexport const h = createHash;\n");
    expect(messages).not.toContain('no-restricted-imports');
  });

  it('keeps HTTP out of the domain layer', async () => {
    const messages = await lint('lambdas/domain/example.ts', "import { defineHandler } from '../http/define-handler.js';\nexport const d = defineHandler;\n");
    expect(messages).toContain('no-restricted-imports');
  });
});

/** Lints one import of `name` from `from` in a file at `file`. */
async function importing(file: string, name: string, from: string): Promise<string[]> {
  return lint(file, `import { ${name} } from '${from}';\nexport const x = ${name};\n`);
}

describe('lambdas/ layers', () => {
  it.each([
    ['an adapter', 'KmsSigner', '../../adapters/aws/kms-signer.js'],
    ['a port implementation picker', 'signer', '../../runtime/signer.js'],
    ['an SDK client', 'DynamoDBClient', '@aws-sdk/client-dynamodb'],
    ['an SDK command', 'GetCommand', '@aws-sdk/lib-dynamodb'],
    ['the raw table client', 'dynamo', '../../store/clients.js'],
    ['middy', 'middy', '@middy/core'],
    ['the route table', 'routes', '../../routes/routes.js'],
  ])('domain/ may not import %s', async (_what, name, from) => {
    expect(await importing('lambdas/domain/ledger/example.ts', name, from)).toContain('no-restricted-imports');
  });

  it.each([
    ['store functions', 'readAgent', '../../store/agents.js'],
    ['port types', 'Ports', '../ports.js'],
    ['the protocol', 'canonicalize', '@agent-ledger/protocol'],
    ['shared vocabulary', 'LedgerError', '../../shared/errors.js'],
  ])('domain/ may import %s', async (_what, name, from) => {
    expect(await importing('lambdas/domain/ledger/example.ts', name, from)).not.toContain('no-restricted-imports');
  });

  it.each([
    ['domain', 'leafOrder', '../domain/epochs/epoch.js'],
    ['an adapter', 'FileSigner', '../adapters/local/file-signer.js'],
    ['runtime', 'queue', '../runtime/queue.js'],
    ['http', 'defineHandler', '../http/define-handler.js'],
  ])('store/ may not import %s', async (_what, name, from) => {
    expect(await importing('lambdas/store/example.ts', name, from)).toContain('no-restricted-imports');
  });

  it('shared/ imports nothing of ours', async () => {
    expect(await importing('lambdas/shared/example.ts', 'table', '../store/dynamo.js')).toContain('no-restricted-imports');
    expect(await importing('lambdas/shared/example.ts', 'sha256B64u', '@agent-ledger/protocol')).not.toContain('no-restricted-imports');
  });

  it('handlers reach AWS through store/ and runtime/, not SDK clients', async () => {
    expect(await importing('lambdas/http/public/example.ts', 'S3Client', '@aws-sdk/client-s3')).toContain('no-restricted-imports');
    expect(await importing('lambdas/http/public/example.ts', 'signer', '../../runtime/signer.js')).not.toContain('no-restricted-imports');
  });
});
