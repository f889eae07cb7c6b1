// COOP_BENCH_CGROUP_PARENT groups containers by role (for the CPU breakdown benchmark); unset, Docker
// chooses as before.
import { describe, expect, it } from 'vitest';
import { cgroupParent } from '../../../../../harness/sandbox/docker/sandbox.ts';
import { containerLabels } from '../../../../../harness/sandbox/labels.ts';

describe('cgroupParent', () => {
  it('is unset without COOP_BENCH_CGROUP_PARENT', () => {
    expect(cgroupParent(containerLabels('run', 'agent'), {})).toBeUndefined();
  });

  it('puts each container under a group named for its role', () => {
    const env = { COOP_BENCH_CGROUP_PARENT: '/coop-bench-accounting/' };
    expect(cgroupParent(containerLabels('run', 'agent'), env)).toBe('/coop-bench-accounting/agent');
    expect(cgroupParent(containerLabels('run', 'test'), env)).toBe('/coop-bench-accounting/test');
    expect(cgroupParent({}, env)).toBe('/coop-bench-accounting/other');
  });
});
