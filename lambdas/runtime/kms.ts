/** The KMS client the signer and the encryptor share in AWS (one per process, traced). */
import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../config.js';
import { once } from '../shared/once.js';
import { traced } from '../tracer.js';

export const kms = once(() => traced(new KMSClient({ region: config().region })));
