// The seeded generator the exit matrix's random programs use too (test/harness).
export { random } from '@peclet/test-harness';
