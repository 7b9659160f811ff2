/**
 * discord.js, imported on first use (a process that never reaches Discord never loads it).
 *
 * @module
 */

type DiscordModule = typeof import('discord.js');

/**
 * The discord.js module. It is CommonJS: Node gives its exports both by name and as the default
 * export, but a bundler that cannot see the names (esbuild, for a dynamic import) gives the
 * default alone, so the default is used when there is one.
 */
export async function loadDiscord(): Promise<DiscordModule> {
  const mod = await import('discord.js');
  return (mod as DiscordModule & { default?: DiscordModule }).default ?? mod;
}
