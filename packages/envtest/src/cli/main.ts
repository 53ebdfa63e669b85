// Stub of the lead's skeleton; H5 implements it.
process.stderr.write('k-envtest: not implemented yet (issue 27)\n');
process.exitCode = 1;
