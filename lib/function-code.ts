/**
 * The code of every function of one app, from ONE esbuild run (bundling.ts) instead of one
 * NodejsFunction bundling per function: `cdk synth` spent 1.6 s per function, most of it
 * parsing the same AWS SDK again. Each function still gets its own asset, holding exactly its
 * own `index.mjs` and source map, so what Lambda runs is unchanged.
 *
 * The build runs on the first function's asset and only when CDK bundles the stack: tests
 * and `cdk deploy --exclusively` of another stack skip bundling (context
 * `aws:cdk:bundling-stacks`) and then nothing is built. Each asset goes through CDK's own
 * bundling step with a local bundler that moves the function's files into place, so asset
 * hashes are the hash of the output, as they were with NodejsFunction.
 */
import { readdirSync, renameSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { AssetHashType, DockerImage, Stage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { bundleFunctionsSync, type BundledFunction, type FunctionEntry } from './bundling.js';
import { PROJECT_ROOT } from './paths.js';

/**
 * Where the one build writes, inside the cloud assembly directory: `<outdir>/<prefix><name>/`,
 * two levels below the repository like CDK's own `bundling-temp-*` directories, so the
 * source maps' relative paths are those NodejsFunction produced.
 */
const DIR_PREFIX = 'ledger-bundle.';

export class FunctionBundles {
  private built: Map<string, BundledFunction> | undefined;

  constructor(
    private readonly scope: Construct,
    private readonly functions: readonly FunctionEntry[],
    private readonly options: { readonly sdkTracing: boolean },
  ) {}

  /** The code of function `name` (one of the entries this was made with). */
  code(name: string): Code {
    if (!this.functions.some((fn) => fn.name === name)) throw new Error(`no bundle entry for function ${name}`);
    return Code.fromAsset(PROJECT_ROOT, {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Never pulled: the local bundler below always succeeds (no Docker on build machines).
        image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
        // Part of CDK's asset cache key, which must differ per function and per build setting.
        command: ['agent-ledger-bundle', name, JSON.stringify(this.options)],
        local: { tryBundle: (outputDir) => this.moveInto(name, outputDir) },
      },
    });
  }

  private moveInto(name: string, outputDir: string): boolean {
    this.built ??= new Map(
      bundleFunctionsSync(this.functions, Stage.of(this.scope)?.outdir ?? join(PROJECT_ROOT, 'cdk.out'), {
        ...this.options,
        dirPrefix: DIR_PREFIX,
      }).map((bundle) => [bundle.name, bundle]),
    );
    const bundle = this.built.get(name);
    if (!bundle) throw new Error(`function ${name} was not part of the build`);
    for (const file of readdirSync(bundle.dir)) renameSync(join(bundle.dir, file), join(outputDir, file));
    rmdirSync(bundle.dir);
    return true;
  }
}
