/**
 * TRANSPORT_VERSION is this package's version, as in its package.json (a unit test keeps them
 * equal). It is the `<version>` of the default user agent.
 */
export const TRANSPORT_VERSION = '0.2.0';
