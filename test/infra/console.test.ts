/**
 * The console's nested stack (lib/console.ts): the console from a private bucket
 * through Origin Access Control, the API on the same origin under the prefixes of
 * console/serving.ts, uncached and with every viewer header, cookie and query string but Host;
 * the SPA rewrite on the console's behaviour only; the console's security headers; the service's
 * own client (the CLI's tarball, the Python wheel, index.json) in the same bucket under client/,
 * built from this repository when CDK bundles the stack.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIXES, CONTENT_SECURITY_POLICY } from '../../console/serving.js';
import type { ClientIndex } from '../../lib/client-files/build.js';
import { defaultSynth, logicalId, StubLambdas, synthesize, type Synthesized } from './support.js';

// Managed policy ids (CloudFront developer guide, "Use managed cache policies" / "origin request policies").
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

let synth: Synthesized;
/** The console's own (nested) stack. */
let consoleStack: Template;
beforeAll(() => {
  synth = defaultSynth();
  consoleStack = Template.fromStack(synth.stack.console);
});

function distributionConfig() {
  const resources = consoleStack.toJSON().Resources as Record<string, { Properties: { DistributionConfig: Record<string, unknown> } }>;
  return resources[logicalId(synth.stack.console.distribution)]!.Properties.DistributionConfig as {
    DefaultCacheBehavior: Record<string, unknown>;
    CacheBehaviors: Record<string, unknown>[];
    Origins: { Id: string; DomainName: unknown; S3OriginConfig?: unknown; CustomOriginConfig?: Record<string, unknown>; OriginAccessControlId?: unknown }[];
  };
}

describe('the console distribution', () => {
  it('lives in a nested stack, so both stacks stay within CloudFormation\'s 500 resources', () => {
    expect(synth.template.toJSON().Resources[logicalId(synth.stack.console.nestedStackResource!)].Type).toBe('AWS::CloudFormation::Stack');
    synth.template.resourceCountIs('AWS::CloudFront::Distribution', 0);
    consoleStack.resourceCountIs('AWS::CloudFront::Distribution', 1);
  });

  it('sends /v1/*, /api/* and /.well-known/* to the HTTP API, uncached, with cookies and headers but Host', () => {
    const config = distributionConfig();
    const api = config.Origins.find((origin) => origin.CustomOriginConfig)!;
    // The API's id comes in as a parameter of the nested stack, set to the parent's HTTP API.
    const parameter = (JSON.stringify(api.DomainName).match(/"Ref":"(referenceto\w+)"/) ?? [])[1]!;
    const nested = synth.template.toJSON().Resources[logicalId(synth.stack.console.nestedStackResource!)] as { Properties: { Parameters: Record<string, unknown> } };
    expect(nested.Properties.Parameters[parameter]).toEqual({ Ref: logicalId(synth.stack.api.httpApi) });
    expect(api.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
    expect(config.CacheBehaviors.map((behavior) => behavior.PathPattern).sort()).toEqual(API_PREFIXES.map((prefix) => `${prefix}*`).sort());
    for (const behavior of config.CacheBehaviors) {
      expect(behavior).toMatchObject({
        TargetOriginId: api.Id,
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
        ViewerProtocolPolicy: 'https-only',
      });
      expect(behavior.FunctionAssociations).toBeUndefined();
    }
  });

  it('serves the console from a private bucket through Origin Access Control, client-side routes rewritten to the page', () => {
    const config = distributionConfig();
    const site = config.Origins.find((origin) => origin.S3OriginConfig)!;
    expect(site.OriginAccessControlId).toBeDefined();
    expect(config.DefaultCacheBehavior).toMatchObject({ TargetOriginId: site.Id, ViewerProtocolPolicy: 'redirect-to-https', AllowedMethods: ['GET', 'HEAD'] });
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([expect.objectContaining({ EventType: 'viewer-request' })]);
    consoleStack.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LoggingConfiguration: { LogFilePrefix: 'console/' },
    });
    consoleStack.hasResourceProperties('AWS::CloudFront::Function', { FunctionCode: Match.stringLikeRegexp("request.uri = '/index.html'") });
  });

  it('answers with the console CSP and security headers, HSTS included', () => {
    consoleStack.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: {
          ContentSecurityPolicy: { ContentSecurityPolicy: CONTENT_SECURITY_POLICY, Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
          StrictTransportSecurity: Match.objectLike({ AccessControlMaxAgeSec: 63072000 }),
        },
      },
    });
  });

  it('deploys the built files, hashed assets cached for a year and the page revalidated', () => {
    consoleStack.resourceCountIs('Custom::CDKBucketDeployment', 3);
    consoleStack.hasResourceProperties('Custom::CDKBucketDeployment', { SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' } });
    consoleStack.hasResourceProperties('Custom::CDKBucketDeployment', { SystemMetadata: { 'cache-control': 'no-cache' }, DistributionPaths: ['/index.html'] });
    expect(Object.keys(synth.template.toJSON().Outputs)).toContain('ConsoleUrl');
  });
});

describe('the client files', () => {
  it('go to the console bucket under client/, revalidated, earlier versions kept, invalidated on deploy', () => {
    consoleStack.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketKeyPrefix: 'client/',
      Prune: false,
      SystemMetadata: { 'cache-control': 'no-cache' },
      DistributionPaths: ['/client/*'],
    });
  });

  it('are built from this repository when CDK bundles the stack: the tarball, the wheel and an index of their SHA-256', () => {
    // Bundling on (a nested stack bundles when its parent does), with no route or worker: the
    // functions' bundles are not what this checks.
    const stubs = new StubLambdas([], []);
    try {
      const bundled = synthesize({ lambdasDir: stubs.dir, routes: [], workers: [] }, { 'aws:cdk:bundling-stacks': ['AgentLedger'] });
      const deployment = Template.fromStack(bundled.stack.console).findResources('Custom::CDKBucketDeployment', { Properties: { DestinationBucketKeyPrefix: 'client/' } });
      const [key] = JSON.stringify(Object.values(deployment)[0]!.Properties.SourceObjectKeys).match(/[0-9a-f]{64}\.zip/)!;
      const dir = join(bundled.app.outdir, `asset.${key.slice(0, 64)}`);
      const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as ClientIndex;
      const version = (JSON.parse(readFileSync(new URL('../../client/package.json', import.meta.url), 'utf8')) as { version: string }).version;
      expect(index.files.map((file) => [file.kind, file.name])).toEqual([
        ['npm', `agent-ledger-${version}.tgz`],
        ['wheel', `agent_ledger-${version}-py3-none-any.whl`],
      ]);
      expect(readdirSync(dir).sort()).toEqual(['index.json', ...index.files.map((file) => file.name)].sort());
      for (const file of index.files) expect(createHash('sha256').update(readFileSync(join(dir, file.name))).digest('hex'), file.name).toBe(file.sha256);
      expect(index.files[0]!.tree_sha256).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      stubs.remove();
    }
  });
});
