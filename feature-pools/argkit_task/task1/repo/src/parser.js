import { ArgError, ErrorCodes } from './errors.js';

const TYPES = ['boolean', 'string', 'number'];
const LONG_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const SHORT_NAME = /^[A-Za-z0-9]$/;

/**
 * Validate a spec and build the lookup tables used by `parse` and
 * `formatHelp`.
 *
 * @param {object} [spec]
 * @returns {{options: object[], byLong: Map<string, object>,
 *   byShort: Map<string, object>, program?: string, usage?: string,
 *   description?: string}}
 */
export function normalizeSpec(spec = {}) {
  if (spec === null || typeof spec !== 'object') {
    throw new TypeError('spec must be an object');
  }
  const options = [];
  const byLong = new Map();
  const byShort = new Map();

  for (const [name, def] of Object.entries(spec.options ?? {})) {
    if (!LONG_NAME.test(name)) {
      throw new TypeError(`Invalid option name "${name}"`);
    }
    if (def === null || typeof def !== 'object') {
      throw new TypeError(`Option "${name}" must be described by an object`);
    }
    const type = def.type ?? 'boolean';
    if (!TYPES.includes(type)) {
      throw new TypeError(`Option "${name}" has unknown type "${type}"`);
    }
    const opt = {
      name,
      type,
      short: def.short,
      description: def.description ?? '',
      placeholder: def.placeholder ?? 'value',
    };
    if (opt.short !== undefined) {
      if (typeof opt.short !== 'string' || !SHORT_NAME.test(opt.short)) {
        throw new TypeError(`Option "${name}" has invalid short flag "${opt.short}"`);
      }
      if (byShort.has(opt.short)) {
        throw new TypeError(`Duplicate short flag -${opt.short}`);
      }
      byShort.set(opt.short, opt);
    }
    byLong.set(name, opt);
    options.push(opt);
  }

  return {
    options,
    byLong,
    byShort,
    program: spec.program,
    usage: spec.usage,
    description: spec.description,
  };
}

/**
 * Convert the raw command-line string given for `opt` to the option's type.
 *
 * @param {object} opt normalized option
 * @param {string} raw
 */
function coerce(opt, raw) {
  if (opt.type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || Number.isNaN(n)) {
      throw new ArgError(
        `Option --${opt.name} expects a number, got "${raw}"`,
        ErrorCodes.INVALID_VALUE,
        opt.name,
      );
    }
    return n;
  }
  return raw;
}

/**
 * The value of a value-taking option is the next token, whatever it looks
 * like (so `--offset -3` works).
 */
function takeValue(argv, i, opt) {
  if (i + 1 >= argv.length) {
    throw new ArgError(
      `Option --${opt.name} requires a value`,
      ErrorCodes.MISSING_VALUE,
      opt.name,
    );
  }
  return String(argv[i + 1]);
}

function unknownOption(flag, name) {
  return new ArgError(`Unknown option ${flag}`, ErrorCodes.UNKNOWN_OPTION, name);
}

/**
 * Parse command-line arguments according to `spec`.
 *
 * @param {string[]} [argv] the arguments, without the node binary and the
 *   script path (defaults to `process.argv.slice(2)`)
 * @param {object} [spec] `{ options: { name: { type, short, description,
 *   placeholder } }, program, usage, description }`
 * @returns {{values: object, positionals: string[]}}
 */
export function parse(argv = process.argv.slice(2), spec = {}) {
  if (!Array.isArray(argv)) {
    throw new TypeError('argv must be an array');
  }
  const { byLong, byShort } = normalizeSpec(spec);
  const values = {};
  const positionals = [];

  for (let i = 0; i < argv.length; i++) {
    const token = String(argv[i]);

    if (token === '--') {
      // end of options: everything that follows is positional
      positionals.push(...argv.slice(i + 1).map(String));
      break;
    }

    if (token.startsWith('--')) {
      // long option: --name, or --name <value>
      const name = token.slice(2);
      const opt = byLong.get(name);
      if (!opt) {
        throw unknownOption(`--${name}`, name);
      }
      if (opt.type === 'boolean') {
        values[opt.name] = true;
        continue;
      }
      values[opt.name] = coerce(opt, takeValue(argv, i, opt));
      i++;
      continue;
    }

    if (token.startsWith('-') && token.length > 1) {
      // short flags: -v, -o <value>, -o<value>, or a group such as -abc
      for (let j = 1; j < token.length; j++) {
        const opt = byShort.get(token[j]);
        if (!opt) {
          throw unknownOption(`-${token[j]}`, token[j]);
        }
        if (opt.type === 'boolean') {
          values[opt.name] = true;
          continue;
        }
        const attached = token.slice(j + 1);
        if (attached !== '') {
          values[opt.name] = coerce(opt, attached);
        } else {
          values[opt.name] = coerce(opt, takeValue(argv, i, opt));
          i++;
        }
        break;
      }
      continue;
    }

    // a lone "-" conventionally means stdin and is a positional too
    positionals.push(token);
  }

  return { values, positionals };
}
