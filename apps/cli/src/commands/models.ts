/**
 * The embedder verbs: `keel models pull|list|runtime` (the one explicit download step: the model,
 * and the local embedder's runtime when it is not installed yet; see `runtime.ts`) and
 * `keel reindex` (bring every vector up to date with the current embedder), plus the helper the
 * other verbs use to pick the embedder from the configuration.
 *
 * @module
 */

import { KeelError } from '@keel/errors';
import { closeStore, configuredEmbedder, openStore } from '@keel/host';
import { count } from '@keel/language';
import { listInstalledModels, MINILM, MODELS, pullModel, type VectorStatus } from '@keel/memory';
import { MultiBar, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { action, EXIT, emit, wantsJson } from '../output.js';
import {
  EMBEDDER_RUNTIME,
  installEmbedderRuntime,
  type RuntimeInstall,
  runtimeState,
} from '../runtime.js';

/** The embedder the configuration asks for, or the first available (see `@keel/host`). */
export { configuredEmbedder } from '@keel/host';

const MB = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * Installs the local embedder's runtime unless it is there, saying so on stderr first (npm's
 * output is shown as it comes on a terminal, unless `json`).
 */
async function ensureRuntime(json: boolean, force = false): Promise<RuntimeInstall> {
  const state = runtimeState();
  if (state.installed && !force) return installEmbedderRuntime();
  process.stderr.write(
    `installing the local embedder's runtime (${EMBEDDER_RUNTIME.name} ${EMBEDDER_RUNTIME.version} and the ONNX runtime, about 400 MB) into ${state.path} with npm…\n`,
  );
  const showNpm = !json && process.stderr.isTTY;
  return installEmbedderRuntime({
    force,
    ...(showNpm ? { onLine: (line: string) => process.stderr.write(`  ${line}\n`) } : {}),
  });
}

/** The human line for a runtime install. */
function runtimeLine(r: RuntimeInstall): string {
  return r.status === 'now'
    ? `installed the local embedder's runtime (${EMBEDDER_RUNTIME.name} ${r.version}) at ${r.path} in ${(r.install_ms / 1000).toFixed(0)} s`
    : `the local embedder's runtime is installed at ${r.path}`;
}

/** Registers `keel models pull|list` and `keel reindex` on the program. */
export function registerModelCommands(program: Command, config: Config): void {
  const json = wantsJson;
  const run = action;

  const models = program
    .command('models')
    .description('local embedding models: pull one (the only download keel does), list them');

  models
    .command('pull')
    .description(`download a model into ${config.paths.models} (default: ${MINILM.name})`)
    .argument('[name]', `one of: ${MODELS.map((m) => m.name).join(', ')}`, MINILM.name)
    .action(
      run(async (name: string, _opts: unknown, cmd: Command) => {
        const spec = MODELS.find((m) => m.name === name || m.id === name);
        if (!spec) {
          throw new KeelError(
            'INVALID_INPUT',
            `unknown model "${name}"; one of: ${MODELS.map((m) => m.name).join(', ')}`,
          );
        }
        const showBar = !json(cmd) && process.stderr.isTTY;
        const bars = new MultiBar(
          {
            format: '{file} [{bar}] {percentage}% | {received} of {size}',
            stream: process.stderr,
            hideCursor: true,
          },
          undefined,
        );
        const perFile = new Map<string, SingleBar>();
        const stop = new AbortController();
        const onSigint = () => stop.abort();
        process.once('SIGINT', onSigint);
        try {
          const r = await pullModel({
            modelsDir: config.paths.models,
            spec,
            endpoint: config.embedder.hfEndpoint,
            signal: stop.signal,
            onProgress: (p) => {
              if (!showBar) return;
              let bar = perFile.get(p.file);
              if (!bar) {
                bar = bars.create(p.total ?? p.received, 0, { file: p.file.padEnd(28) });
                perFile.set(p.file, bar);
              }
              bar.setTotal(Math.max(p.total ?? p.received, p.received));
              bar.update(p.received, { received: MB(p.received), size: MB(p.total ?? p.received) });
            },
          });
          if (showBar) bars.stop();
          const total = r.files.reduce((s, f) => s + f.bytes, 0);
          const runtime = await ensureRuntime(json(cmd));
          emit(json(cmd), { model: spec.id, ...r, bytes: total, runtime }, () =>
            [
              `installed ${spec.id} (${spec.dtype}, ${MB(total)}) at ${r.path}`,
              `revision ${r.revision}; every file matched the hub's checksum`,
              runtimeLine(runtime),
            ].join('\n'),
          );
          return EXIT.ok;
        } finally {
          process.off('SIGINT', onSigint);
          if (showBar) bars.stop();
        }
      }),
    );

  models
    .command('list')
    .description('the models keel knows and which are installed, and the runtime they run on')
    .action(
      run(async (_opts: unknown, cmd: Command) => {
        const list = listInstalledModels(config.paths.models);
        const runtime = runtimeState();
        emit(json(cmd), { models_dir: config.paths.models, models: list, runtime }, () =>
          [
            ...list.map((m) =>
              m.installed
                ? `${m.name}  ${m.id} (${m.dtype})  installed, ${MB(m.bytes ?? 0)}${m.revision ? `, revision ${m.revision.slice(0, 12)}` : ''}`
                : `${m.name}  ${m.id} (${m.dtype})  not installed: keel models pull ${m.name}`,
            ),
            runtime.installed
              ? `runtime  ${EMBEDDER_RUNTIME.name} ${EMBEDDER_RUNTIME.version}  installed at ${runtime.path}`
              : `runtime  ${EMBEDDER_RUNTIME.name} ${EMBEDDER_RUNTIME.version}  not installed: keel models pull (or keel models runtime)`,
          ].join('\n'),
        );
        return EXIT.ok;
      }),
    );

  models
    .command('runtime')
    .description(
      "install the local embedder's runtime alone (transformers.js and the ONNX runtime, about 400 MB, with npm); keel models pull does it too",
    )
    .option('--force', 'install it again even when it is there')
    .action(
      run(async (opts: { force?: boolean }, cmd: Command) => {
        const r = await ensureRuntime(json(cmd), Boolean(opts.force));
        emit(json(cmd), r, () => runtimeLine(r));
        return EXIT.ok;
      }),
    );

  program
    .command('reindex')
    .description(
      'bring every vector up to date with the current embedder (rebuilds after a model change); safe to interrupt and rerun',
    )
    .option('--full', 'rebuild every vector, even when the stored ones are current')
    .action(
      run(async (opts: { full?: boolean }, cmd: Command) => {
        const selection = await configuredEmbedder(config);
        if (!selection.embedder) {
          throw new KeelError(
            'EMBEDDER_UNAVAILABLE',
            `no embedder to index with: ${selection.reason}`,
          );
        }
        const store = openStore(config);
        let failure: unknown;
        const stop = new AbortController();
        const onSigint = () => stop.abort();
        process.once('SIGINT', onSigint);
        const showBar = !json(cmd) && process.stderr.isTTY;
        const bar = new SingleBar({
          format: 'embedding [{bar}] {percentage}% | {value}/{total} rows | {eta_formatted} left',
          stream: process.stderr,
        });
        let started = false;
        const onProgress = (done: number, total: number) => {
          if (!showBar) return;
          if (!started) bar.start(total, 0);
          started = true;
          bar.update(done);
        };
        const t0 = performance.now();
        try {
          // Same embedder as the vectors: what is waiting, and whatever keel verify would find
          // stale or missing. Otherwise (or with --full): rebuild everything.
          let status: VectorStatus | null = null;
          let rebuild = true;
          try {
            status = await store.useEmbedder(selection.embedder, selection.reason);
            rebuild = opts.full === true || status?.state !== 'active';
          } catch (err) {
            if (!KeelError.isInstance(err) || err.code !== 'EMBEDDER_MISMATCH') throw err;
          }
          let embedded: number;
          if (!rebuild) store.vectorIndex?.repair();
          if (rebuild) {
            const r = await store.reindex(selection.embedder, { signal: stop.signal, onProgress });
            embedded = r.embedded;
            status = r.status;
          } else {
            embedded = (await store.embedPending({ signal: stop.signal, onProgress })).embedded;
            status = store.vectorStatus();
          }
          if (started) bar.stop();
          const seconds = (performance.now() - t0) / 1000;
          emit(
            json(cmd),
            { rebuilt: rebuild, embedded, duration_ms: Math.round(seconds * 1000), status },
            () =>
              `${rebuild ? 'rebuilt' : 'updated'} vectors with ${selection.info!.provider} ${selection.info!.model} (${selection.info!.dim}-d): ` +
              `${embedded} row(s) embedded in ${seconds.toFixed(1)} s; ` +
              `${count(status!.vectors.facts, 'fact')} and ${count(status!.vectors.episodes, 'episode')} indexed; recall is ${status!.state === 'active' ? 'hybrid' : 'lexical'}`,
          );
          return EXIT.ok;
        } catch (err) {
          failure = err;
          throw err;
        } finally {
          if (started) bar.stop();
          process.off('SIGINT', onSigint);
          closeStore(store, failure);
        }
      }),
    );
}
