/**
 * The name an MCP client goes by in keel's records: the `clientInfo.name` of its `initialize`
 * request, made safe to be part of an actor (`mcp:<client>`) and a log line.
 *
 * @module
 */

/** The longest client name kept, in characters. */
export const MAX_CLIENT_NAME = 40;

/** The name of a client that gave none (or none keel can keep). */
export const UNNAMED_CLIENT = 'unnamed';

/**
 * Names keel's own records give to the owner and keel's own writers: a client so named is
 * `client-<name>` (`Owner` → `client-owner`), so no record reads as the owner's or keel's.
 */
export const RESERVED_CLIENT_NAMES: ReadonlySet<string> = new Set([
  'owner',
  'keel',
  'system',
  'model',
  'web',
]);

/**
 * `name` lower-cased, with every run of characters other than letters, digits, `.` and `_`
 * (in any script) written as one `-`, trimmed of `-` at either end and cut to
 * {@link MAX_CLIENT_NAME} characters: "Claude Desktop" → `claude-desktop`,
 * "cursor-vscode 1.2" → `cursor-vscode-1.2`. A name with nothing left is {@link UNNAMED_CLIENT};
 * a reserved one ({@link RESERVED_CLIENT_NAMES}) is `client-<name>`.
 */
export function clientName(name: string | undefined): string {
  const safe = (name ?? '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}._]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  const cut = [...safe].slice(0, MAX_CLIENT_NAME).join('').replace(/-+$/, '');
  if (!cut) return UNNAMED_CLIENT;
  return RESERVED_CLIENT_NAMES.has(cut) ? `client-${cut}` : cut;
}
