// The lint rules that keep protocol/ pure (DESIGN.md, Layout) must actually fire.
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
