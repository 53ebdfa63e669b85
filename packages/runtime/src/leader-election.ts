// @k/runtime/leader-election: client-go's leader election on coordination.k8s.io/v1 Leases
// (a Manager runs one with its `leaderElection` option).
export { LeaderElector } from './leader-election/leader-elector.js';
export type { LeaderElectorOptions, LeaseClient } from './leader-election/leader-elector.js';
