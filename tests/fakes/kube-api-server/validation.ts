// What a real API server rejects in the calls the Kubernetes backend makes, with the rule's source.
// Each failure is a Status object as the API server sends it
// (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/status/ ; reasons and codes:
// https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#http-status-codes).

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: { name?: string; kind?: string; causes?: { reason: string; message: string; field: string }[] };
  code: number;
}

export class ApiError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
  }
}

function failure(code: number, reason: string, message: string, details?: Status['details']): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details && { details }), code });
}

export const notFound = (resource: string, name: string) => failure(404, 'NotFound', `${resource} "${name}" not found`, { name, kind: resource });
export const alreadyExists = (resource: string, name: string) =>
  failure(409, 'AlreadyExists', `${resource} "${name}" already exists`, { name, kind: resource });
export const badRequest = (message: string) => failure(400, 'BadRequest', message);
export const unauthorized = () => failure(401, 'Unauthorized', 'Unauthorized');
export const methodNotAllowed = () => failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
export const noSuchPath = () => failure(404, 'NotFound', 'the server could not find the requested resource');

// Object names and label syntax: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/
// and https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set
// (k8s.io/apimachinery/pkg/util/validation: IsDNS1123Subdomain, IsDNS1123Label, IsQualifiedName, IsValidLabelValue).
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
// Quantity: https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/
const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

type Cause = { reason: string; message: string; field: string };

export function subdomainProblem(value: string): string | undefined {
  if (value.length > 253) return 'must be no more than 253 characters';
  if (!DNS1123_SUBDOMAIN.test(value)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

function labelNameProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!DNS1123_LABEL.test(value))
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  return undefined;
}

/** A label key: an optional DNS subdomain prefix and '/', then a name of at most 63 characters. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const [prefix, name] = slash >= 0 ? [key.slice(0, slash), key.slice(slash + 1)] : [undefined, key];
  if (prefix !== undefined && (prefix.length === 0 || subdomainProblem(prefix))) return 'prefix part must be a DNS-1123 subdomain';
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, at most 63 characters";
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!LABEL_VALUE.test(value))
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  return undefined;
}

const invalidValue = (field: string, value: unknown, detail: string): Cause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
  field,
});
const required = (field: string): Cause => ({ reason: 'FieldValueRequired', message: 'Required value', field });
const notSupported = (field: string, value: unknown, supported: string[]): Cause => ({
  reason: 'FieldValueNotSupported',
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
  field,
});

function labelCauses(labels: unknown, field: string): Cause[] {
  if (labels === undefined) return [];
  if (typeof labels !== 'object' || labels === null) return [invalidValue(field, labels, 'must be a map of strings')];
  return Object.entries(labels).flatMap(([key, value]) => {
    const keyProblem = labelKeyProblem(key);
    const valueProblem = typeof value === 'string' ? labelValueProblem(value) : 'must be a string';
    return [...(keyProblem ? [invalidValue(field, key, keyProblem)] : []), ...(valueProblem ? [invalidValue(`${field}[${key}]`, value, valueProblem)] : [])];
  });
}

/** Unprocessable: 422 Invalid with every cause, as ValidatePod reports them. */
function invalid(kind: string, name: string, causes: Cause[]): ApiError {
  const message = `${kind} "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`;
  return failure(422, 'Invalid', message, { name, kind, causes });
}

interface ObjectBody {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; generateName?: unknown; namespace?: unknown; labels?: unknown };
  spec?: Record<string, unknown>;
}

/**
 * Decoding: a body that is no JSON object, or of another kind, is a 400 before validation; so is a
 * namespace in the body that differs from the request's (apiserver's rest.BeforeCreate).
 */
export function decodeObject(raw: string, kind: string, apiVersion: string, namespace: string): ObjectBody {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw badRequest(`the body of the request was in an unknown format: ${raw.slice(0, 40)}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the body of the request was in an unknown format');
  const object = body as ObjectBody;
  if (object.kind !== undefined && object.kind !== kind)
    throw badRequest(`the object provided is unrecognized (must be of type ${kind}): ${String(object.kind)}`);
  if (object.apiVersion !== undefined && object.apiVersion !== apiVersion)
    throw badRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${apiVersion})`);
  if (object.metadata?.namespace !== undefined && object.metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  return object;
}

function metadataCauses(object: ObjectBody): Cause[] {
  const name = object.metadata?.name;
  if (name === undefined || name === '')
    return object.metadata?.generateName
      ? []
      : [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }];
  const problem = typeof name === 'string' ? subdomainProblem(name) : 'must be a string';
  return [...(problem ? [invalidValue('metadata.name', name, problem)] : []), ...labelCauses(object.metadata?.labels, 'metadata.labels')];
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
// Compute resources a container may limit: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#resource-types
const RESOURCE_NAMES = ['cpu', 'memory', 'ephemeral-storage'];

/**
 * Pod rules (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/ ;
 * pkg/apis/core/validation ValidatePodCreate): at least one container; each named as a DNS label,
 * unique, with an image; restartPolicy one of three; non-negative grace period; a deadline of at
 * least a second; resource limits are quantities of known resources (a malformed quantity fails decoding: 400).
 */
export function validatePod(object: ObjectBody): void {
  const causes = metadataCauses(object);
  const spec = object.spec ?? {};
  const containers = spec.containers;
  if (!Array.isArray(containers) || containers.length === 0) causes.push(required('spec.containers'));
  const names = new Set<string>();
  for (const [i, container] of (Array.isArray(containers) ? containers : []).entries()) {
    const field = `spec.containers[${i}]`;
    const { name, image, resources } = container as {
      name?: unknown;
      image?: unknown;
      resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> };
    };
    if (typeof name !== 'string' || name === '') causes.push(required(`${field}.name`));
    else if (labelNameProblem(name)) causes.push(invalidValue(`${field}.name`, name, labelNameProblem(name)!));
    else if (names.has(name)) causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(name)}`, field: `${field}.name` });
    if (typeof name === 'string') names.add(name);
    if (typeof image !== 'string' || image.trim() === '') causes.push(required(`${field}.image`));
    for (const kind of ['limits', 'requests'] as const) {
      for (const [resource, quantity] of Object.entries(resources?.[kind] ?? {})) {
        if (typeof quantity !== 'string' || !QUANTITY.test(quantity)) throw badRequest(`quantities must match the regular expression '${QUANTITY.source}'`);
        if (!RESOURCE_NAMES.includes(resource) && !resource.includes('/'))
          causes.push(notSupported(`${field}.resources.${kind}[${resource}]`, resource, RESOURCE_NAMES));
      }
    }
  }
  if (spec.restartPolicy !== undefined && !RESTART_POLICIES.includes(spec.restartPolicy as string))
    causes.push(notSupported('spec.restartPolicy', spec.restartPolicy, RESTART_POLICIES));
  const grace = spec.terminationGracePeriodSeconds;
  if (grace !== undefined && (typeof grace !== 'number' || grace < 0))
    causes.push(invalidValue('spec.terminationGracePeriodSeconds', grace, 'must be greater than or equal to 0'));
  // ValidatePodSpec: activeDeadlineSeconds in [1, MaxInt32] (validation.InclusiveRangeError).
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && (typeof deadline !== 'number' || !Number.isInteger(deadline) || deadline < 1 || deadline > 2 ** 31 - 1))
    causes.push(invalidValue('spec.activeDeadlineSeconds', deadline, 'must be between 1 and 2147483647, inclusive'));
  if (causes.length) throw invalid('Pod', String(object.metadata?.name ?? ''), causes);
}

const POLICY_TYPES = ['Ingress', 'Egress'];

/**
 * NetworkPolicy rules (https://kubernetes.io/docs/reference/kubernetes-api/policy-resources/network-policy-v1/ ;
 * pkg/apis/networking/validation ValidateNetworkPolicy): the name a DNS subdomain, the pod
 * selector's labels valid, policyTypes only Ingress and Egress, at most both.
 */
export function validateNetworkPolicy(object: ObjectBody): void {
  const causes = metadataCauses(object);
  const spec = object.spec ?? {};
  const selector = spec.podSelector as { matchLabels?: unknown } | undefined;
  causes.push(...labelCauses(selector?.matchLabels, 'spec.podSelector.matchLabels'));
  const types = spec.policyTypes;
  if (types !== undefined) {
    if (!Array.isArray(types) || types.length > 2) causes.push(invalidValue('spec.policyTypes', types, 'may not specify more than two policyTypes'));
    else types.filter((t) => !POLICY_TYPES.includes(t as string)).forEach((t, i) => causes.push(notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES)));
  }
  if (causes.length) throw invalid('NetworkPolicy', String(object.metadata?.name ?? ''), causes);
}

export type Requirement = { key: string; op: '=' | '!=' | 'exists' | '!exists'; value?: string };

/**
 * Equality- and existence-based label selectors (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors):
 * `k=v`, `k==v`, `k!=v`, `k`, `!k`, comma-separated (ANDed). Set-based ones are not used by the
 * backend and are refused here rather than misread; a bad key or value is a 400, as labels.Parse fails.
 */
export function parseSelector(text: string): Requirement[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const term = part.trim();
    const m = /^(!?)([^=!\s]+)\s*(?:(==|=|!=)\s*(\S*))?$/.exec(term);
    if (!m || (m[1] && m[3])) throw badRequest(`unable to parse requirement: ${term}`);
    const [, not, key, op, value] = m;
    if (labelKeyProblem(key)) throw badRequest(`unable to parse requirement: invalid label key "${key}": ${labelKeyProblem(key)}`);
    if (op === undefined) return { key, op: not ? '!exists' : 'exists' };
    if (labelValueProblem(value)) throw badRequest(`unable to parse requirement: invalid label value: "${value}": ${labelValueProblem(value)}`);
    return { key, op: op === '!=' ? '!=' : '=', value };
  });
}

export function matches(requirements: Requirement[], labels: Record<string, string> = {}): boolean {
  return requirements.every(({ key, op, value }) => {
    if (op === 'exists') return key in labels;
    if (op === '!exists') return !(key in labels);
    if (op === '=') return labels[key] === value;
    return labels[key] !== value;
  });
}

/** Parses a quantity into a number of base units (bytes, cores). */
export function quantityValue(quantity: string): number {
  const m = QUANTITY.exec(quantity);
  if (!m) throw badRequest(`quantities must match the regular expression '${QUANTITY.source}'`);
  const suffixes: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    P: 1e15,
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
    Pi: 1024 ** 5,
  };
  const suffix = m[2];
  if (suffix in suffixes) return Number(m[1]) * suffixes[suffix];
  const exponent = /^[eE]([-+]?[0-9]+)$/.exec(suffix);
  if (exponent) return Number(m[1]) * 10 ** Number(exponent[1]);
  throw badRequest(`unable to parse quantity's suffix: ${quantity}`);
}
