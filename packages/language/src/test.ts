/**
 * `@keel/language/test`: the secret phrasings every store and door test runs through (credentials
 * said every way the scanner must catch, and harmless sentences it must leave alone).
 *
 * @module
 */
export * from './secrets/testkit.js';
