// @k/config/testing: helpers for tests of code built on @k/config.
export { testResolvedConfig } from './testing/test-resolved-config.js';
