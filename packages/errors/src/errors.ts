/**
 * keel's one error type. Every failure a caller can act on carries a stable `code`; the CLI prints
 * the code and the one-line `fix` from {@link ERROR_FIXES}.
 *
 * @module
 */

/** The stable error codes. Codes are never renamed; new ones are added at the end. */
export type KeelErrorCode =
  /** The database was written by a newer keel (its schema version is above the newest migration). */
  | 'SCHEMA_FROM_FUTURE'
  /** The database file could not be opened (permissions, missing folder, locked by another tool). */
  | 'DB_OPEN_FAILED'
  /** The file is not a SQLite database, or SQLite reports it damaged. */
  | 'DB_CORRUPT'
  /** The SQLite build lacks FTS5, which recall needs. */
  | 'FTS5_UNAVAILABLE'
  /** Caller input failed validation (bad kind, bad key, empty value, bad option). */
  | 'INVALID_INPUT'
  /** A value or message is larger than the store accepts. */
  | 'TOO_LARGE'
  /** No row with that id. */
  | 'NOT_FOUND'
  /** The row exists but is in a state the operation cannot apply to (e.g. confirming a retracted fact). */
  | 'INVALID_STATE'
  /** An import file is not in the named format. */
  | 'IMPORT_FORMAT'
  /** A file could not be read. */
  | 'FILE_UNREADABLE'
  /** The journal's hash chain or a store invariant is broken (see `keel verify`). */
  | 'INTEGRITY'
  /** Another keel process held the database lock for longer than the busy timeout. */
  | 'BUSY'
  /** The model provider cannot be reached (no server, wrong host). */
  | 'MODEL_UNAVAILABLE'
  /** The provider stayed overloaded (429/529/overloaded_error) through every retry. */
  | 'MODEL_OVERLOADED'
  /** The account's quota is exhausted; retrying would not help for hours. */
  | 'MODEL_QUOTA'
  /** The response stream stalled through every retry. */
  | 'MODEL_TIMEOUT'
  /** The provider rejected the credentials. */
  | 'MODEL_AUTH'
  /** The provider refused the request itself (too large, invalid). */
  | 'MODEL_REFUSED_INPUT'
  /** The operation was cancelled (Ctrl-C, shutdown). */
  | 'CANCELLED'
  /** Another turn holds the session lock for longer than the wait allows. */
  | 'SESSION_BUSY'
  /** The store's vectors were made by an embedder of another dimension. */
  | 'EMBEDDER_MISMATCH'
  /** The chosen embedder cannot run (model folder missing, Ollama unreachable or without the model). */
  | 'EMBEDDER_UNAVAILABLE'
  /** An embedder returned an empty, wrong-length or non-finite vector; nothing was stored. */
  | 'EMBEDDING_INVALID'
  /** `keel models pull` could not download or verify a model; nothing was installed. */
  | 'MODEL_DOWNLOAD_FAILED'
  /** Another `keel think` service holds `$KEEL_HOME/think.lock` (its PID is alive). */
  | 'THINK_RUNNING'
  /**
   * A setting (an environment variable, or a key of `$KEEL_HOME/config.toml`) has a value keel
   * cannot use, or the config file is damaged or open to other users (the message names the
   * setting, the file and line, and the form).
   */
  | 'CONFIG_INVALID'
  /** A keel service (think, discord) holds its lock: another copy, or `keel restore`, must wait. */
  | 'SERVICE_RUNNING'
  /** The provider answers, but not with the model named (Ollama: not pulled). */
  | 'MODEL_NOT_FOUND'
  /**
   * Discord rejected the bot token (HTTP 401, or the gateway closed with 4004), or refused the
   * Message Content intent the application has off (4014; the error carries the portal fix).
   */
  | 'DISCORD_AUTH'
  /** Discord's API could not be reached (network, `KEEL_DISCORD_API_URL`, an outage). */
  | 'DISCORD_UNAVAILABLE'
  /** An MCP server in the owner's `mcp.json` did not start, answer or list its tools. */
  | 'MCP_UNAVAILABLE'
  /** A Discord bot token is set but no owner is paired (`KEEL_DISCORD_OWNER_ID` is not set). */
  | 'NOT_PAIRED'
  /** Pairing stopped without an owner: the code expired, or three wrong codes were sent. */
  | 'PAIRING_FAILED'
  /** A keel service is not running, or runs but has stopped refreshing its lock or ticking. */
  | 'SERVICE_DOWN'
  /**
   * `keel service` could not reach the service manager (no systemd user session, no launchd GUI
   * domain, an unsupported system): the unit files are written (or removed) but nothing was started
   * or stopped; the message names the commands to run.
   */
  | 'SERVICE_MANAGER_UNAVAILABLE'
  /** The service manager refused a command, or a service stopped right after it was started. */
  | 'SERVICE_FAILED'
  /**
   * `keel setup` asks questions and was run without a terminal (piped input or output, `--json`,
   * a script): nothing was asked or written.
   */
  | 'SETUP_NEEDS_TERMINAL'
  /**
   * A verb that erases (`keel purge`, `keel forget --purge`) was run where it cannot ask (`--json`,
   * no terminal) and without `--yes`: it listed what it would erase and erased nothing.
   */
  | 'CONFIRMATION_REQUIRED'
  /**
   * The model refuses even the smallest request keel can send as too long (no history, no recalled
   * memory): its window is too small for keel, whatever the message; nothing of the turn is stored.
   */
  | 'MODEL_CONTEXT_TOO_SMALL'
  /**
   * The journal does not end where keel last recorded its head (the anchor beside the database):
   * entries were cut, or written outside keel. Writes are refused until a backup is restored.
   */
  | 'JOURNAL_BROKEN'
  /**
   * A keel export can only be imported into a store that holds no beliefs yet (it brings a whole
   * memory: its beliefs, their history and its tombstones).
   */
  | 'STORE_NOT_EMPTY';

/** One line a person can act on, per code. */
export const ERROR_FIXES: Readonly<Record<KeelErrorCode, string>> = {
  SCHEMA_FROM_FUTURE:
    'This database was written by a newer keel; upgrade keel (git pull && npm start).',
  DB_OPEN_FAILED: 'Check that KEEL_HOME points to a folder you can write to.',
  DB_CORRUPT:
    'The database is damaged: restore a backup with `keel restore <file>` (`keel doctor` names the newest; `keel backup` makes them), then `keel recover`.',
  FTS5_UNAVAILABLE: 'Reinstall dependencies (pnpm install) so better-sqlite3 is built with FTS5.',
  INVALID_INPUT: 'Check the arguments; `keel <verb> --help` shows the expected form.',
  TOO_LARGE: 'Shorten the text; keel stores at most the sizes listed in the README.',
  NOT_FOUND: 'Check the id; `keel recall` shows fact (f…) and episode (e…) ids.',
  INVALID_STATE: 'Look at the fact with `keel history <kind>/<key>`; only some states allow this.',
  IMPORT_FORMAT:
    'Check the file and the --format flag (locomo or longmemeval; a keel export is recognised without it).',
  FILE_UNREADABLE: 'Check the path and its permissions.',
  INTEGRITY: 'Run `keel verify` for the full report; restore from a backup if rows were altered.',
  BUSY: 'Another keel process is writing; try again in a moment.',
  MODEL_UNAVAILABLE:
    'Check the provider (`keel doctor`; `keel config list` shows the settings): anthropic.base_url, openai.base_url / openai.model, or that Ollama runs at ollama.host.',
  MODEL_OVERLOADED: 'The model is overloaded; try again in a minute.',
  MODEL_QUOTA: 'Your API quota is used up; check your plan or wait for the quota to reset.',
  MODEL_TIMEOUT: 'The model stopped responding; try again.',
  MODEL_AUTH: 'Check the API key of the provider in use: ANTHROPIC_API_KEY or OPENAI_API_KEY.',
  MODEL_REFUSED_INPUT:
    'The model refused the request as sent (its reason is above); `keel doctor` checks the model settings.',
  CANCELLED: 'Nothing to fix: the turn was cancelled and nothing was stored from it.',
  SESSION_BUSY: 'Another front door is mid-turn; wait for it to finish and try again.',
  EMBEDDER_MISMATCH:
    'Run `keel reindex` to rebuild every vector with the current embedder (or set KEEL_EMBEDDER back).',
  EMBEDDER_UNAVAILABLE:
    'Run `keel models pull`, or start Ollama (OLLAMA_HOST) with the embed model, or set KEEL_EMBEDDER=none.',
  EMBEDDING_INVALID:
    'The embedder returned a bad vector; check the embed model (`keel doctor`) or set KEEL_EMBEDDER=none.',
  MODEL_DOWNLOAD_FAILED:
    'Check the network connection (or KEEL_HF_ENDPOINT) and run `keel models pull` again.',
  THINK_RUNNING:
    'One think service is enough: stop the other first (systemctl --user stop keel-think), or delete $KEEL_HOME/think.lock if that PID is not keel.',
  CONFIG_INVALID:
    "Fix the environment variable named above, or its key in $KEEL_HOME/config.toml (`keel config list` shows every setting and where its value comes from; the README's Configuration lists them).",
  SERVICE_RUNNING:
    'Stop the keel service named above first (systemctl --user stop keel-think / keel-discord, or end its process), then run the command again.',
  MODEL_NOT_FOUND:
    'Pull the model (`ollama pull <model>`), or choose one the provider has: `keel setup` lists them, or `keel config set <setting> <model>` for the setting named above (anthropic.model, openai.model, ollama.chat_model, ollama.gate_model; or its environment variable).',
  DISCORD_AUTH:
    'Copy the bot token again (Discord developer portal → your application → Bot → Reset Token) into DISCORD_TOKEN.',
  DISCORD_UNAVAILABLE:
    'Check the network connection (and KEEL_DISCORD_API_URL if you set it), then try again.',
  MCP_UNAVAILABLE:
    "Run the server's command from mcp.json yourself to see why it stops (or check its URL); `keel tools` shows its last words. Turns go on without its tools meanwhile.",
  NOT_PAIRED:
    'Run `keel discord pair` and DM the code it shows to your bot from your own account (or set KEEL_DISCORD_OWNER_ID).',
  PAIRING_FAILED:
    'Run `keel discord pair` again for a new code and DM it to the bot from your own account within 10 minutes.',
  SERVICE_DOWN:
    'Start the keel service named above (`keel think`, `keel discord`, or its systemd/launchd service); `keel doctor` checks it again.',
  SERVICE_MANAGER_UNAVAILABLE:
    'Run the commands named above in a logged-in session of this user (on Linux `loginctl enable-linger $USER` keeps them running after you log out), or run `keel think` / `keel discord` in a terminal.',
  SERVICE_FAILED:
    "Read the service's log (`keel service status` shows its last lines), fix what it names, then run `keel service install` again.",
  SETUP_NEEDS_TERMINAL:
    'Run `keel setup` in a terminal, or set each value yourself: `keel config set <key> <value>` (`keel config list` shows the keys).',
  CONFIRMATION_REQUIRED:
    'Read the list it printed, then run the same command again with --yes to erase all of it (on a terminal, without --json, keel asks instead).',
  MODEL_CONTEXT_TOO_SMALL:
    "Your message is not the problem: the model's server takes less than keel's smallest request. Give it a larger context (llama.cpp -c, LM Studio's context length, a proxy's limit) or use a model with a larger window; KEEL_CONTEXT_TOKENS tells keel the window.",
  JOURNAL_BROKEN:
    'Run `keel verify` to see the break, then `keel restore <file> --force` with a backup from before it, then `keel recover` for the lines kept meanwhile.',
  STORE_NOT_EMPTY:
    'Import the export into a new, empty KEEL_HOME (KEEL_HOME=<new folder> keel import <file>) and use that home from then on.',
};

const MARKER = Symbol.for('keel.error');

/**
 * The one error class keel throws for expected failures.
 *
 * @example
 * throw new KeelError('NOT_FOUND', 'no fact f42');
 */
export class KeelError extends Error {
  /** Stable machine-readable code. */
  readonly code: KeelErrorCode;
  /** Structured context (ids, paths, versions); safe to print. */
  readonly details: unknown;
  readonly [MARKER] = true;
  /** The fix this failure was given; undefined: its code's. */
  readonly #fix: string | undefined;

  /**
   * @param options.fix - a one-line fix for this very failure (e.g. naming the file and line to
   *   edit); default: the code's, from {@link ERROR_FIXES}.
   */
  constructor(
    code: KeelErrorCode,
    message: string,
    options: { details?: unknown; cause?: unknown; fix?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KeelError';
    this.code = code;
    this.details = options.details;
    this.#fix = options.fix;
  }

  /** The one-line fix: the one this failure was given, else its code's ({@link ERROR_FIXES}). */
  get fix(): string {
    return this.#fix ?? ERROR_FIXES[this.code];
  }

  /** True for any KeelError, even one from another copy of this module. */
  static isInstance(value: unknown): value is KeelError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }

  /** A plain object for `--json` output. */
  toJSON(): { code: KeelErrorCode; message: string; fix: string; details?: unknown } {
    return {
      code: this.code,
      message: this.message,
      fix: this.fix,
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}

/**
 * True for an error that says the database takes no writes now: damaged (`DB_CORRUPT`, or SQLite's
 * corruption errors) or its journal broken (`JOURNAL_BROKEN`). Every door then keeps the owner's
 * words in the recovery file instead of answering the error as a turn's.
 */
export function refusesWrites(err: unknown): boolean {
  if (KeelError.isInstance(err)) return err.code === 'DB_CORRUPT' || err.code === 'JOURNAL_BROKEN';
  return isSqliteCorruption(err);
}

/** True for SQLite's "the file is damaged" errors (`SQLITE_CORRUPT`, `SQLITE_NOTADB`). */
export function isSqliteCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}

/**
 * SQLite's "the file is damaged" errors (SQLITE_CORRUPT, SQLITE_NOTADB) as KeelError
 * `DB_CORRUPT`; null for any other error (a KeelError included).
 */
export function corruptionError(err: unknown): KeelError | null {
  if (KeelError.isInstance(err) || !isSqliteCorruption(err)) return null;
  return new KeelError('DB_CORRUPT', `the database is damaged: ${(err as Error).message}`, {
    cause: err,
  });
}
