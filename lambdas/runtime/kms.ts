/** The KMS client the signer and the encryptor share in AWS (one per process, traced, with the timeouts of sdk-client-settings.ts). */
import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../config.js';
import { sdkClientSettings } from '../sdk-client-settings.js';
import { once } from '../shared/once.js';
import { traced } from '../tracer.js';

export const kms = once(() => traced(new KMSClient({ region: config().region, ...sdkClientSettings(config().stage) })));
