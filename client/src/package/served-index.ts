/**
 * /client/index.json, the list of the files a service hands out of its own client (docs/CLI.md
 * "Installing the CLI from the service"): written by lib/client-files/build.ts, read by the
 * console's "Connect an agent" panel and by `agent-ledger doctor`.
 */
export const CLIENT_INDEX_PATH = '/client/index.json';

export interface ClientIndex {
  format: 'agent-ledger-client-files/1';
  /** SHA-256 of the sources the files were built from. */
  source_sha256: string;
  files: ClientFile[];
}

export interface ClientFile {
  /** The file's name under /client/. */
  name: string;
  kind: 'npm' | 'wheel';
  /** The package it installs: @agent-ledger/client, agent-ledger. */
  package: string;
  version: string;
  /** SHA-256 (hex) of the file as served. */
  sha256: string;
  bytes: number;
  /** npm only: the installed package's file-tree digest and each file's SHA-256 (digest.ts). */
  tree_sha256?: string;
  contents?: Record<string, string>;
}
