// @k/rest/testing: helpers for tests of code built on @k/rest.
export { FakeClock, flushMicrotasks } from './fake-clock.js';
