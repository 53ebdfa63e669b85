// Stub of the lead's skeleton; H5 implements it.

/** setup starts one control plane for a vitest run. */
export default function setup(): Promise<() => Promise<void>> {
  throw new Error('not implemented yet (issue 27)');
}
