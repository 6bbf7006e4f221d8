/**
 * A real RFC 3161 time-stamping authority for tests: `openssl ts -reply` behind a tiny HTTP
 * server on 127.0.0.1 (docs/PROTOCOL.md, RFC 3161 anchor). It makes its own CA and a TSA certificate
 * (P-256; OpenSSL cannot time-stamp with Ed25519) whose extendedKeyUsage is timeStamping,
 * marked critical as RFC 3161 §2.3 requires, so `openssl ts -verify` accepts its tokens.
 *
 * Tests can make it misbehave (`behave`) to check the client's response checks and that a
 * failing or slow TSA never blocks sealing. Requests are answered one at a time: openssl
 * updates the serial-number file on every reply.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * - `ok`: a genuine reply;
 * - `error`: HTTP 500;
 * - `delay`: a genuine reply after `ms` milliseconds;
 * - `reject`: a well-formed TimeStampResp with status rejection (2) and no token;
 * - `replay`: the previous genuine reply, whatever was asked (another request's nonce and imprint);
 * - `tamper`: a genuine reply with the last byte flipped (the end of the signer's signature);
 * - `garbage`: bytes that are not DER.
 */
export type TsaBehaviour =
  | { kind: 'ok' }
  | { kind: 'error' }
  | { kind: 'delay'; ms: number }
  | { kind: 'reject' }
  | { kind: 'replay' }
  | { kind: 'tamper' }
  | { kind: 'garbage' };

export interface OpensslTsa {
  /** `http://127.0.0.1:<port>/tsa` */
  url: string;
  /** The CA certificate that issued the TSA certificate (PEM file path). */
  caFile: string;
  /** The TSA certificate (PEM file path). */
  tsaCertFile: string;
  /** Requests received so far. */
  requests(): number;
  behave(behaviour: TsaBehaviour): void;
  /**
   * `openssl ts -verify -digest <hex> -token_in -in <token> -CAfile ca.pem -untrusted tsa.pem`:
   * resolves with openssl's output when it prints "Verification: OK", rejects otherwise.
   */
  verifyToken(token: Uint8Array, digest: Uint8Array): Promise<string>;
  /** A TimeStampToken (DER) for a SHA-256 `digest`, made as a reply to the sealer's query would be, without HTTP. */
  stampDigest(digest: Uint8Array): Promise<Uint8Array>;
  stop(): Promise<void>;
}

async function openssl(args: string[], cwd: string): Promise<string> {
  const { stdout, stderr } = await run('openssl', args, { cwd, timeout: 20_000 });
  return `${stdout}${stderr}`;
}

/** One file for `openssl req` (needs a [req] section) and the extensions of both certificates. */
const PKI_CONFIG = `[req]
distinguished_name = dn

[dn]

[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[tsa]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

function tsConfig(dir: string): string {
  return `[tsa]
default_tsa = test_tsa

[test_tsa]
serial = ${join(dir, 'tsaserial')}
crypto_device = builtin
signer_cert = ${join(dir, 'tsa.pem')}
certs = ${join(dir, 'ca.pem')}
signer_key = ${join(dir, 'tsa.key')}
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;
}

export interface OpensslTsaOptions {
  /**
   * A TSA certificate that expired a day before it was made (`openssl x509 -days -1`), so every
   * token it stamps has a genTime after its certificate's end: what a verifier must report as
   * expired. Otherwise the CA and the TSA certificate are valid for ten years.
   */
  expiredCertificate?: boolean;
}

/** Creates the CA, the TSA key and certificate and the `openssl ts` configuration in `dir`. */
async function makePki(dir: string, options: OpensslTsaOptions): Promise<void> {
  await writeFile(join(dir, 'pki.cnf'), PKI_CONFIG);
  await writeFile(join(dir, 'ts.cnf'), tsConfig(dir));
  await writeFile(join(dir, 'tsaserial'), '01\n');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  const subject = (cn: string) => ['-subj', `/CN=${cn}`, '-config', 'pki.cnf'];
  await openssl(['req', '-x509', ...ec, ...subject('agent-ledger test TSA root'), '-extensions', 'ca', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650'], dir);
  await openssl(['req', '-new', ...ec, ...subject('agent-ledger test TSA'), '-keyout', 'tsa.key', '-out', 'tsa.csr'], dir);
  await openssl(['x509', '-req', '-in', 'tsa.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', options.expiredCertificate ? '-1' : '3650', '-extfile', 'pki.cnf', '-extensions', 'tsa', '-out', 'tsa.pem'], dir);
}

function readBody(request: IncomingMessage, limit = 64 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) request.destroy(new Error('query too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** TimeStampResp ::= SEQUENCE { status PKIStatusInfo ::= SEQUENCE { status INTEGER 2 (rejection) } } */
const REJECTION = Buffer.from('30053003020102', 'hex');

export async function startOpensslTsa(options: OpensslTsaOptions = {}): Promise<OpensslTsa> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-tsa-'));
  await makePki(dir, options);
  let behaviour: TsaBehaviour = { kind: 'ok' };
  let count = 0;
  let last: Buffer | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  async function reply(query: Buffer): Promise<Buffer> {
    const n = count;
    const queryFile = join(dir, `query-${n}.tsq`);
    const replyFile = join(dir, `reply-${n}.tsr`);
    await writeFile(queryFile, query);
    await openssl(['ts', '-reply', '-config', 'ts.cnf', '-queryfile', queryFile, '-out', replyFile], dir);
    return readFile(replyFile);
  }

  const server: Server = createServer((request, response) => {
    count += 1;
    const current = behaviour;
    const answer = (async () => {
      const query = await readBody(request);
      if (request.method !== 'POST' || request.headers['content-type'] !== 'application/timestamp-query') {
        response.writeHead(400).end();
        return;
      }
      if (current.kind === 'error') {
        response.writeHead(500).end('TSA unavailable');
        return;
      }
      let body: Buffer;
      if (current.kind === 'reject') body = REJECTION;
      else if (current.kind === 'garbage') body = Buffer.from('this is not DER');
      else {
        // One openssl at a time: each reply increments the serial file.
        const previous = last;
        const genuine = (queue = queue.then(() => reply(query), () => reply(query))) as Promise<Buffer>;
        body = await genuine;
        last = body;
        if (current.kind === 'replay') body = previous ?? body;
        if (current.kind === 'tamper') {
          body = Buffer.from(body);
          body[body.length - 1]! ^= 0x01;
        }
        // A client that gave up ends the wait: no timer outlives the request (or the test file).
        if (current.kind === 'delay') await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, current.ms);
          response.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      if (response.destroyed) return;
      response.writeHead(200, { 'content-type': 'application/timestamp-reply', 'content-length': body.length }).end(body);
    })();
    answer.catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/tsa`,
    caFile: join(dir, 'ca.pem'),
    tsaCertFile: join(dir, 'tsa.pem'),
    requests: () => count,
    behave(next) {
      behaviour = next;
    },
    async verifyToken(token, digest) {
      const tokenFile = join(dir, `token-${Date.now()}-${Math.random().toString(36).slice(2)}.der`);
      await writeFile(tokenFile, token);
      const hex = Buffer.from(digest).toString('hex');
      const output = await openssl(['ts', '-verify', '-digest', hex, '-token_in', '-in', tokenFile, '-CAfile', 'ca.pem', '-untrusted', 'tsa.pem'], dir);
      if (!output.includes('Verification: OK')) throw new Error(`openssl ts -verify failed:\n${output}`);
      return output;
    },
    async stampDigest(digest) {
      const n = (count += 1);
      const queryFile = join(dir, `digest-${n}.tsq`);
      const tokenFile = join(dir, `digest-${n}.der`);
      await openssl(['ts', '-query', '-digest', Buffer.from(digest).toString('hex'), '-sha256', '-cert', '-out', queryFile], dir);
      const stamped = (queue = queue.then(
        () => openssl(['ts', '-reply', '-config', 'ts.cnf', '-queryfile', queryFile, '-token_out', '-out', tokenFile], dir),
        () => openssl(['ts', '-reply', '-config', 'ts.cnf', '-queryfile', queryFile, '-token_out', '-out', tokenFile], dir),
      ));
      await stamped;
      return new Uint8Array(await readFile(tokenFile));
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
