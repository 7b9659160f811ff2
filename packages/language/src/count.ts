/**
 * A number with the noun it counts, in English, singular or plural as the number takes it: "1
 * belief", "0 beliefs", "2 entries". Every line keel shows with a count in it (the doors' status
 * lines, `keel doctor`, `keel verify`, the confirmations under a reply) says it this way.
 *
 * @module
 */

/** English plural categories: "one" for 1, "other" for everything else (0 included). */
const ENGLISH = new Intl.PluralRules('en');

/**
 * `n` and `noun`, the noun plural unless `n` is one: `count(1, 'belief')` is "1 belief",
 * `count(3, 'belief')` "3 beliefs", `count(0, 'episode')` "0 episodes".
 *
 * @param plural - the plural when it is not the noun plus "s": `count(2, 'entry', 'entries')`.
 */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${ENGLISH.select(n) === 'one' ? noun : plural}`;
}
