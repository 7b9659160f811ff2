/**
 * `@keel/gate`: what is worth believing. For now: explicit capture of the owner's "remember that
 * …" statements under stable keys.
 *
 * @module
 */
export { type Capture, captureExplicit } from './capture.js';
