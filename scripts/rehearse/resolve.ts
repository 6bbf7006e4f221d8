/**
 * CloudFormation's intrinsic functions (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select,
 * Fn::Split, Fn::If on no condition) resolved against the rehearsal's resources: what each
 * resource's Ref and attributes would be in the rehearsal's account and region
 * (`physical`), nested stack parameters from the parent's AWS::CloudFormation::Stack
 * properties, and nested stack outputs through `Outputs.<name>`. A reference the rehearsal
 * cannot resolve throws naming it, so nothing runs with a guessed value.
 */
import type { CfnResource, Json, StackTemplate } from './assembly.js';

export const ACCOUNT = '123456789012';
export const REGION = 'eu-west-1';

/** Ref and attributes of one resource as the rehearsal deploys it. */
export interface Physical {
  readonly ref: string;
  readonly attributes: Readonly<Record<string, string>>;
}

type PhysicalIds = (stack: StackTemplate, logicalId: string, resource: CfnResource) => Physical;

const PSEUDO: Record<string, string> = {
  'AWS::AccountId': ACCOUNT,
  'AWS::Region': REGION,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::NoValue': '',
};

export class Resolver {
  constructor(private readonly physical: PhysicalIds) {}

  /** `value` with every intrinsic resolved, in the context of `stack`. */
  resolve(stack: StackTemplate, value: Json): Json {
    if (Array.isArray(value)) return value.map((item) => this.resolve(stack, item));
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const [key] = keys as [string];
      const arg = value[key] as Json;
      switch (key) {
        case 'Ref':
          return this.ref(stack, String(arg));
        case 'Fn::GetAtt': {
          const [logicalId, attribute] = Array.isArray(arg) ? (arg as string[]) : String(arg).split(/\.(.*)/);
          return this.getAtt(stack, String(logicalId), String(attribute));
        }
        case 'Fn::Join': {
          const [separator, parts] = arg as [string, Json[]];
          return (this.resolve(stack, parts) as Json[]).map(String).join(separator);
        }
        case 'Fn::Select': {
          const [index, list] = arg as [Json, Json];
          return (this.resolve(stack, list) as Json[])[Number(this.resolve(stack, index))] ?? null;
        }
        case 'Fn::Split': {
          const [separator, text] = arg as [string, Json];
          return String(this.resolve(stack, text)).split(separator);
        }
        case 'Fn::Sub': {
          const [text, variables] = Array.isArray(arg) ? (arg as [string, Record<string, Json>]) : [String(arg), {}];
          return text.replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
            if (name in variables) return String(this.resolve(stack, variables[name] as Json));
            if (name.includes('.')) {
              const [logicalId, attribute] = name.split(/\.(.*)/) as [string, string];
              return this.getAtt(stack, logicalId, attribute);
            }
            return this.ref(stack, name);
          });
        }
        default:
          if (key.startsWith('Fn::')) throw new Error(`${stack.path}: the rehearsal does not resolve ${key}`);
      }
    }
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, this.resolve(stack, item)]));
  }

  /** Resolved to a string, or a thrown error naming what did not resolve to one. */
  text(stack: StackTemplate, value: Json, what: string): string {
    const resolved = this.resolve(stack, value);
    if (typeof resolved !== 'string' && typeof resolved !== 'number') throw new Error(`${stack.path}: ${what} does not resolve to a string`);
    return String(resolved);
  }

  ref(stack: StackTemplate, name: string): string {
    if (name in PSEUDO) return PSEUDO[name]!;
    const parameter = stack.template.Parameters?.[name];
    if (parameter) {
      const passed = stack.parent?.stack.template.Resources[stack.parent.logicalId]?.Properties?.Parameters as Record<string, Json> | undefined;
      if (passed && name in passed) return this.text(stack.parent!.stack, passed[name]!, `parameter ${name}`);
      if (parameter.Default !== undefined) return String(parameter.Default);
      if (name === 'BootstrapVersion') return '1';
      throw new Error(`${stack.path}: parameter ${name} has no value`);
    }
    const resource = stack.template.Resources[name];
    if (!resource) throw new Error(`${stack.path}: Ref to unknown ${name}`);
    return this.physical(stack, name, resource).ref;
  }

  getAtt(stack: StackTemplate, logicalId: string, attribute: string): string {
    const resource = stack.template.Resources[logicalId];
    if (!resource) throw new Error(`${stack.path}: Fn::GetAtt of unknown ${logicalId}`);
    if (resource.Type === 'AWS::CloudFormation::Stack' && attribute.startsWith('Outputs.')) {
      const nested = this.nested(stack, logicalId);
      const output = nested.template.Outputs?.[attribute.slice('Outputs.'.length)];
      if (!output) throw new Error(`${nested.path}: no output ${attribute}`);
      return this.text(nested, output.Value, attribute);
    }
    const value = this.physical(stack, logicalId, resource).attributes[attribute];
    if (value === undefined) throw new Error(`${stack.path}: the rehearsal has no ${resource.Type} attribute ${attribute} (${logicalId})`);
    return value;
  }

  private nestedStacks = new Map<string, StackTemplate>();

  /** Registers the nested stacks so outputs can be followed into them. */
  withStacks(stacks: readonly StackTemplate[]): this {
    for (const stack of stacks) if (stack.parent) this.nestedStacks.set(`${stack.parent.stack.path}/${stack.parent.logicalId}`, stack);
    return this;
  }

  private nested(stack: StackTemplate, logicalId: string): StackTemplate {
    const nested = this.nestedStacks.get(`${stack.path}/${logicalId}`);
    if (!nested) throw new Error(`${stack.path}: nested stack ${logicalId} not loaded`);
    return nested;
  }
}
