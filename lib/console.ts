/**
 * The web console in AWS: its built files (console/dist) in a private S3 bucket behind a
 * CloudFront distribution that also carries the API under /v1/*, /api/* and /.well-known/*
 * (console/serving.ts names the prefixes). One origin for both means the session cookie
 * (HttpOnly, SameSite=Lax) works without CORS, as on the local stack.
 *
 * - The bucket is reached only through Origin Access Control; the API behaviours pass every
 *   viewer header, cookie and query string but Host to the HTTP API and cache nothing.
 * - A CloudFront Function answers client-side routes (/agents/x) with index.html on the
 *   console's behaviour only, so the API's own 403/404 answers are never rewritten.
 * - Responses of the console carry the CSP and headers of console/serving.ts, plus HSTS.
 * - Hashed assets are cached for a year, index.html is revalidated and invalidated on deploy.
 * - The service's own client (docs/CLI.md "Installing the CLI from the service"): the CLI's npm
 *   tarball, the Python wheel and index.json, built from this repository when CDK bundles the
 *   stack (lib/client-files/build.ts), go to the same bucket under client/, so every deployment
 *   hands them out at <origin>/client/ as `npm start` does.
 *
 * It is a nested stack: CloudFormation allows 500 resources per stack, and the API's
 * functions, roles, log groups and routes (several per route) fill the service's own stack
 * nearly to that; the console's ~20 resources live in a stack of their own, deployed with it.
 */
import { AssetHashType, DockerImage, Duration, NestedStack, RemovalPolicy } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CacheCookieBehavior,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
  type BehaviorOptions,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source, type ISource } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { API_PREFIXES, CLIENT_FILES_PREFIX, CONTENT_SECURITY_POLICY, cacheControl } from '../console/serving.js';
import { clientFiles } from './client-files/build.js';
import { PROJECT_ROOT } from './paths.js';

export interface LedgerConsoleProps {
  readonly httpApi: HttpApi;
  /** The stack's access-log bucket (S3 server access logs of the console bucket). */
  readonly logsBucket: Bucket;
  /** The built console; `npm ci` builds it (console workspace's prepare). */
  readonly consoleDir: string;
  /** Client files built beforehand (lib/client-files/build.ts); by default they are built when CDK bundles the stack. */
  readonly clientDir?: string;
}

/** Client-side routes (no file extension in the last segment) get the page (CloudFront Functions JS 2.0). */
const SPA_REWRITE = `function handler(event) {
  var request = event.request;
  var last = request.uri.substring(request.uri.lastIndexOf('/') + 1);
  if (last.indexOf('.') === -1) request.uri = '/index.html';
  return request;
}`;

/**
 * The client files as an asset built by a local bundler, as the functions' code is
 * (function-code.ts): only when CDK bundles this stack (tests and `cdk deploy --exclusively`
 * of another stack skip it, context `aws:cdk:bundling-stacks`), hashed by the output. A deploy
 * needs the wheel too, so a machine without Python 3.11+ fails the synth saying so.
 */
function clientFilesSource(): ISource {
  return Source.asset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local bundler below always succeeds or throws (no Docker on build machines).
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
      command: ['agent-ledger-client-files'],
      local: {
        tryBundle: (outputDir) => {
          cpSync(clientFiles({ wheel: 'required' }), outputDir, { recursive: true });
          return true;
        },
      },
    },
  });
}

export class LedgerConsole extends NestedStack {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly deployments: BucketDeployment[];

  constructor(scope: Construct, id: string, props: LedgerConsoleProps) {
    super(scope, id, { description: 'agent-ledger web console: S3 and CloudFront, the API on the same origin' });
    if (!existsSync(join(props.consoleDir, 'index.html'))) {
      throw new Error(`the console is not built (${props.consoleDir}/index.html is missing): run \`npm run build -w console\` (npm ci does it)`);
    }
    const baseBucket = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      serverAccessLogsBucket: props.logsBucket,
    };
    // The files are rebuilt from source on every deploy; versions keep an accidental overwrite recoverable.
    this.bucket = new Bucket(this, 'Site', {
      ...baseBucket,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      removalPolicy: RemovalPolicy.RETAIN,
      serverAccessLogsPrefix: 'console/',
    });
    // CloudFront standard logs are delivered with ACLs, so this bucket lets the object writer own them.
    const edgeLogs = new Bucket(this, 'EdgeLogs', {
      ...baseBucket,
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      removalPolicy: RemovalPolicy.RETAIN,
      serverAccessLogsPrefix: 'cloudfront-logs/',
      lifecycleRules: [{ id: 'expire-edge-logs', expiration: Duration.days(365) }],
    });

    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'agent-ledger console: CSP and security headers (console/serving.ts)',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: CONTENT_SECURITY_POLICY, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
      },
    });
    const rewrite = new EdgeFunction(this, 'SpaRewrite', {
      comment: 'agent-ledger console: client-side routes get index.html',
      code: FunctionCode.fromInline(SPA_REWRITE),
      runtime: FunctionRuntime.JS_2_0,
    });

    const apiOrigin = new HttpOrigin(`${props.httpApi.apiId}.execute-api.${this.region}.${this.urlSuffix}`, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
    });
    const apiBehavior: BehaviorOptions = {
      origin: apiOrigin,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    };
    const siteCache = new CachePolicy(this, 'SiteCache', {
      comment: 'agent-ledger console files: the object Cache-Control decides (a year for hashed assets, revalidate index.html)',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.minutes(5),
      maxTtl: Duration.days(365),
      cookieBehavior: CacheCookieBehavior.none(),
      headerBehavior: CacheHeaderBehavior.none(),
      queryStringBehavior: CacheQueryStringBehavior.none(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'agent-ledger: web console and API on one origin',
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: edgeLogs,
      logFilePrefix: 'cloudfront/',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: siteCache,
        responseHeadersPolicy: headers,
        functionAssociations: [{ function: rewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: Object.fromEntries(API_PREFIXES.map((prefix) => [`${prefix}*`, apiBehavior])),
    });

    const files = Source.asset(props.consoleDir);
    this.deployments = [
      new BucketDeployment(this, 'Assets', {
        sources: [files],
        destinationBucket: this.bucket,
        include: ['assets/*'],
        exclude: ['*'],
        prune: false,
        cacheControl: [CacheControl.fromString(cacheControl('/assets/'))],
      }),
      new BucketDeployment(this, 'Page', {
        sources: [files],
        destinationBucket: this.bucket,
        exclude: ['assets/*'],
        prune: false,
        cacheControl: [CacheControl.fromString(cacheControl('/index.html'))],
        distribution: this.distribution,
        distributionPaths: ['/index.html'],
      }),
    ];
    // The page names assets that must be there first.
    this.deployments[1]!.node.addDependency(this.deployments[0]!);
    const clientPrefix = CLIENT_FILES_PREFIX.slice(1);
    this.deployments.push(
      new BucketDeployment(this, 'Client', {
        sources: [props.clientDir ? Source.asset(props.clientDir) : clientFilesSource()],
        destinationBucket: this.bucket,
        destinationKeyPrefix: clientPrefix,
        // Earlier versions' files stay at their URLs for hooks and scripts that name them.
        prune: false,
        cacheControl: [CacheControl.fromString(cacheControl(CLIENT_FILES_PREFIX))],
        distribution: this.distribution,
        distributionPaths: [`${CLIENT_FILES_PREFIX}*`],
      }),
    );
  }

  /** The console's (and, through it, the API's) public https address. */
  get url(): string {
    return `https://${this.distribution.distributionDomainName}`;
  }
}
