/**
 * The environment a `shell` command sees: the host's, without keel's own secrets or anything named
 * like a credential.
 *
 * @module
 */

/**
 * Names that look like a credential, matched case-insensitively on the variable's name: one that
 * ends in `_TOKEN` (or is `TOKEN`), ends in `_API_KEY` / `_APIKEY`, or contains `SECRET`,
 * `PASSWORD` or `PASSWD` (e.g. `GITHUB_TOKEN`, `OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`,
 * `PGPASSWORD`).
 */
export const CREDENTIAL_NAME = /(^|_)TOKEN$|(^|_)API_?KEY$|SECRET|PASSWORD|PASSWD/i;

/** Whether an environment variable's name looks like a credential ({@link CREDENTIAL_NAME}). */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

/**
 * The environment with every variable named in `secretNames` (exact, case-sensitive as the
 * environment is) and every variable whose name looks like a credential removed; variables
 * without a value are dropped too.
 *
 * @param env - the base environment (the host passes its own).
 * @param secretNames - names to remove whatever they look like (keel's secret settings).
 */
export function strippedEnv(
  env: Readonly<Record<string, string | undefined>>,
  secretNames: readonly string[],
): Record<string, string> {
  const secret = new Set(secretNames);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || secret.has(name) || isCredentialName(name)) continue;
    out[name] = value;
  }
  return out;
}
