/**
 * `@keel/agent/test`: test doubles for the agent's contracts, for other packages' tests and
 * benchmarks: the recording {@link FakeChatModel} and the shared `ChatModel` conformance suite.
 *
 * @module
 */
export { chatModelConformance } from './model/conformance.js';
export * from './model/fake.js';
