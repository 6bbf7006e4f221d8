/**
 * The CLI's version, set by client/build.mjs in both halves of the bundle (the hook's entry and
 * the lazily compiled commands); undefined when the CLI runs from source (tsx), where no single
 * file holds the whole program.
 */
declare const AGENT_LEDGER_VERSION: string | undefined;

export const CLI_VERSION: string | undefined = typeof AGENT_LEDGER_VERSION === 'string' ? AGENT_LEDGER_VERSION : undefined;
