/**
 * Every verb of `keel`, as `keel --help` lists it, and how to define it. Nothing here imports a
 * verb's implementation: a verb's module (and with it the store, the model clients, discord.js…)
 * is imported only when that verb runs or its own help is asked for, so `keel --help` and
 * `keel --version` load the argument parser alone.
 *
 * Adding a verb: write its module under `commands/` exporting a `registerXCommand(program, …)`
 * (the commander definition of the verb, its options and its action), then add one entry to
 * {@link VERBS}: its name, what `keel --help` shows after the name, its one-line description (the
 * same as the command's `.description()`; `verbs.test.ts` checks both against the real
 * definition) and `define`, which imports the module and registers the verb, calling `config()`
 * only when the verb needs keel's configuration (`keel config` reads and mends it itself).
 *
 * @module
 */
import type { Command } from 'commander';
import type { Config } from './config.js';

/** One verb of `keel`. */
export interface Verb {
  /** The verb as typed, e.g. `recall`. */
  name: string;
  /** What `keel --help` shows after the name: `[options]` when it has any, then its arguments. */
  usage: string;
  /** The one line `keel --help` shows (the command's own `.description()`). */
  summary: string;
  /**
   * Imports the verb's module and defines the verb (a module may define several at once) on
   * `program`. `config` reads keel's configuration once (throws KeelError `CONFIG_INVALID`).
   */
  define(program: Command, config: () => Config): Promise<void>;
}

const memory = () => import('./commands/memory.js');
const backup = () => import('./commands/backup.js');
const models = () => import('./commands/models.js');

/** The verbs, in the order `keel --help` lists them. */
export const VERBS: readonly Verb[] = [
  {
    name: 'remember',
    usage: '[options] <slot> <value...>',
    summary: 'store a belief: keel remember <kind>/<key> <value…>',
    define: async (program, config) => (await memory()).registerRememberCommand(program, config()),
  },
  {
    name: 'ask',
    usage: '<message...>',
    summary: 'one turn with the agent, non-interactively (offline without a model)',
    define: async (program, config) =>
      (await import('./commands/ask.js')).registerAskCommand(program, config()),
  },
  {
    name: 'recall',
    usage: '[options] <query...>',
    summary: 'what keel remembers about a query, best first',
    define: async (program, config) => (await memory()).registerRecallCommands(program, config()),
  },
  {
    name: 'history',
    usage: '<slot>',
    summary: 'every version of a belief, newest first, with the links between them',
    define: async (program, config) => (await memory()).registerRecallCommands(program, config()),
  },
  {
    name: 'why',
    usage: '<id>',
    summary:
      'why keel believes something: the belief, its former values, their evidence and who changed it when',
    define: async (program, config) =>
      (await import('./commands/why.js')).registerWhyCommand(program, config()),
  },
  {
    name: 'beliefs',
    usage: '[options]',
    summary:
      'every belief keel holds now (pending conflicts marked), by kind and key or strongest first',
    define: async (program, config) =>
      (await import('./commands/beliefs.js')).registerBeliefsCommand(program, config()),
  },
  {
    name: 'forget',
    usage: '[options] <id>',
    summary: 'retract a belief (it will not be re-learned); --purge erases its value everywhere',
    define: async (program, config) => (await memory()).registerReviewCommands(program, config()),
  },
  {
    name: 'keep',
    usage: '<id>',
    summary: 'keep a belief keel asked to forget (the request is answered; the belief stays)',
    define: async (program, config) => (await memory()).registerReviewCommands(program, config()),
  },
  {
    name: 'review',
    usage: '[options]',
    summary:
      'pending conflicts and questions, requests to forget, weak and stale beliefs to re-validate',
    define: async (program, config) => (await memory()).registerReviewCommands(program, config()),
  },
  {
    name: 'answer',
    usage: '<question> <answer>',
    summary: 'answer a pending question: yes (the belief no longer holds) or no (it stays)',
    define: async (program, config) => (await memory()).registerReviewCommands(program, config()),
  },
  {
    name: 'confirm',
    usage: '<id>',
    summary: 'confirm a belief: owner_confirmed at 1.0, superseding what it contradicted',
    define: async (program, config) => (await memory()).registerReviewCommands(program, config()),
  },
  {
    name: 'reject',
    usage: '<id>',
    summary: 'reject a belief: rejected, with a tombstone so it does not come back',
    define: async (program, config) => (await memory()).registerReviewCommands(program, config()),
  },
  {
    name: 'reminders',
    usage: '[options]',
    summary: 'the reminders you asked for, pending first, with their ids; cancel <id> cancels one',
    define: async (program, config) =>
      (await import('./commands/reminders.js')).registerRemindersCommand(program, config()),
  },
  {
    name: 'purge',
    usage: '[options] <text...>',
    summary:
      'erase every stored mention of a text (folded: accents and case ignored), after showing the list',
    define: async (program, config) =>
      (await import('./commands/purge.js')).registerPurgeCommand(program, config()),
  },
  {
    name: 'import',
    usage: '[options] <file>',
    summary:
      'import a keel export into an empty home, or a conversation (every turn becomes an episode; rerunning adds nothing)',
    define: async (program, config) =>
      (await import('./commands/import.js')).registerImportCommand(program, config()),
  },
  {
    name: 'export',
    usage: '[options]',
    summary:
      'take your memory out: every belief with its evidence and history, and the tombstones, as JSON or Markdown',
    define: async (program, config) =>
      (await import('./commands/export.js')).registerExportCommand(program, config()),
  },
  {
    name: 'verify',
    usage: '[options]',
    summary:
      'walk the journal chain, replay it against the store and check every invariant; exit 1 on any break',
    define: async (program, config) =>
      (await import('./commands/verify.js')).registerVerifyCommand(program, config()),
  },
  {
    name: 'doctor',
    usage: '[options]',
    summary: 'what is configured, what is degraded, and whether it works (live checks)',
    define: async (program, config) =>
      (await import('./commands/doctor.js')).registerDoctorCommand(program, config()),
  },
  {
    name: 'backup',
    usage: '[file]',
    summary:
      'copy the database (safe while keel runs) to a file, verified; default $KEEL_HOME/backups/keel-<time>.db',
    define: async (program, config) => (await backup()).registerBackupCommands(program, config()),
  },
  {
    name: 'restore',
    usage: '[options] <file>',
    summary:
      'put a backup in place of the database (the replaced file is kept beside it); stop keel think and keel discord first',
    define: async (program, config) => (await backup()).registerBackupCommands(program, config()),
  },
  {
    name: 'recover',
    usage: '',
    summary:
      'store what you said while the database was damaged (kept in $KEEL_HOME/recovery.jsonl) as your episodes, once',
    define: async (program, config) => (await backup()).registerBackupCommands(program, config()),
  },
  {
    name: 'tools',
    usage: '',
    summary: "the model's tools: what each may do, your standing answers, and every call it made",
    define: async (program, config) =>
      (await import('./commands/tools.js')).registerToolsCommand(program, config()),
  },
  {
    name: 'models',
    usage: '',
    summary: 'local embedding models: pull one (the only download keel does), list them',
    define: async (program, config) => (await models()).registerModelCommands(program, config()),
  },
  {
    name: 'reindex',
    usage: '[options]',
    summary:
      'bring every vector up to date with the current embedder (rebuilds after a model change); safe to interrupt and rerun',
    define: async (program, config) => (await models()).registerModelCommands(program, config()),
  },
  {
    name: 'discord',
    usage: '[options]',
    summary:
      'run the Discord DM front door (discord.token, then keel discord invite and keel discord pair; see the README)',
    // The configuration is checked here too, so a bad one is reported before the door starts.
    define: async (program, config) => {
      (await import('./commands/discord.js')).registerDiscordCommand(program, config());
    },
  },
  {
    name: 'mcp',
    usage: '',
    summary:
      "serve keel's memory to other agents over MCP on stdio (Claude Desktop, Claude Code, Cursor; see the README)",
    // The configuration is checked here too, so a bad one is reported before the server starts.
    define: async (program, config) => {
      config();
      (await import('./commands/mcp-server.js')).registerMcpServerCommand(program);
    },
  },
  {
    name: 'web',
    usage: '[options]',
    summary:
      "show keel's memory in your browser: a local page only you can open (prints its URL; see the README)",
    // The configuration is checked here too, so a bad one is reported before the page starts.
    define: async (program, config) => {
      config();
      (await import('./commands/web.js')).registerWebCommand(program);
    },
  },
  {
    name: 'think',
    usage: '[options]',
    summary:
      'run the think service: gate, reflect and interrupt each tick, curate nightly (see the README)',
    define: async (program, config) => {
      (await import('./commands/think.js')).registerThinkCommand(program, config());
    },
  },
  {
    name: 'service',
    usage: '',
    summary:
      "install keel's background services (think, discord) with systemd or launchd; remove them; show them",
    define: async (program, config) =>
      (await import('./commands/service.js')).registerServiceCommands(program, config()),
  },
  {
    name: 'setup',
    usage: '',
    summary:
      'set keel up in the terminal, step by step: the model, Discord and pairing, your time zone and quiet hours, the embedder, the services (rerun it to change any of them)',
    define: async (program, config) =>
      (await import('./commands/setup.js')).registerSetupCommand(program, config()),
  },
  {
    name: 'config',
    usage: '',
    summary: 'show and change the settings in $KEEL_HOME/config.toml (list, get, set, unset)',
    define: async (program) =>
      (await import('./commands/config.js')).registerConfigCommand(program),
  },
];

/** The verb named `name` (as typed), or undefined. */
export function findVerb(name: string): Verb | undefined {
  return VERBS.find((v) => v.name === name);
}
