/**
 * `@keel/mcp`: keel's memory as an MCP server for other agents (`keel mcp`).
 * {@link createMemoryServer} builds the server over a store: the model's memory tools as
 * {@link SERVED_TOOLS} (`recall`, `remember`, `history`, `review`, `forget`), a client's writes
 * applied as `inferred` under `mcp:<client>` ({@link clientName}), and the owner's standing
 * beliefs as the resource {@link STANDING_BELIEFS_URI}. `main.ts` is the process entry point
 * (stdio) and the only module that reads the environment.
 *
 * @module
 */
export { clientName, MAX_CLIENT_NAME, UNNAMED_CLIENT } from './client-name.js';
export {
  createMemoryServer,
  type MemoryServerOptions,
  SERVED_TOOLS,
  type ServedTool,
  STANDING_BELIEFS_URI,
} from './memory-server.js';
