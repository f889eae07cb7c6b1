// A ResourceQuota's refusal, as the resourcequota admission plugin words it
// (plugin/pkg/admission/resourcequota/controller.go: "exceeded quota: %s, requested: %s, used: %s,
// limited: %s", each list `resource=quantity` joined by commas): whether the pod could ever fit.

// Quantity: https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/
const SUFFIXES: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
  Pi: 1024 ** 5,
  Ei: 1024 ** 6,
};

/** A quantity in base units (bytes, cores, pods), NaN when it is none. */
export function quantity(text: string): number {
  const m = /^([+-]?[0-9.]+)(?:([eE][-+]?[0-9]+)|([a-zA-Z]*))$/.exec(text.trim());
  if (!m) return NaN;
  if (m[2]) return Number(`${m[1]}${m[2]}`);
  const factor = SUFFIXES[m[3]];
  return factor === undefined ? NaN : Number(m[1]) * factor;
}

function usage(list: string): Record<string, number> {
  return Object.fromEntries(
    list
      .split(',')
      .map((pair) => pair.trim().split('='))
      .filter((pair) => pair.length === 2)
      .map(([resource, value]) => [resource, quantity(value)]),
  );
}

export interface QuotaRefusal {
  quota: string;
  /** True when the pod alone asks for more than the quota allows: waiting cannot help. */
  neverFits: boolean;
}

/** The refusal in a 403's message, or undefined when the message is no quota's. */
export function quotaRefusal(message: string): QuotaRefusal | undefined {
  const m = /exceeded quota: ([^,]+), requested: (.*?), used: (.*?), limited: (.*)$/.exec(message);
  if (!m) return undefined;
  const requested = usage(m[2]);
  const limited = usage(m[4]);
  return { quota: m[1], neverFits: Object.entries(requested).some(([resource, value]) => value > (limited[resource] ?? Infinity)) };
}
