// The user's key never reaches the agent's container nor anything recorded: the model proxy
// scrubs it from every answer it relays (a provider may echo a key in an error) and from every
// failure message the harness keeps.

const REPLACEMENT = '[key]';
/** Credentials in header form (`Authorization: Bearer ...`, `x-api-key: ...`), as error texts may quote them. */
const CREDENTIAL_HEADERS = /\b(authorization|x-api-key|api-key)(["']?\s*[:=]\s*["']?)((?:bearer|basic|token)\s+)?[^\s"',;}]+/gi;

/** `text` without `key` and without any credential header's value. */
export function scrubSecrets(text: string, key: string): string {
  const withoutKey = key.length > 0 ? text.split(key).join(REPLACEMENT) : text;
  return withoutKey.replace(CREDENTIAL_HEADERS, (_, name: string, separator: string, scheme = '') => `${name}${separator}${scheme}${REPLACEMENT}`);
}

/**
 * Scrubs `key` from a text relayed piece by piece: a key split across two pieces is caught too.
 * Only a tail that could start the key is held back, so events pass at once.
 */
export class StreamScrubber {
  private held = '';

  constructor(private readonly key: string) {}

  push(piece: string): string {
    if (this.key.length === 0) return piece;
    const text = (this.held + piece).split(this.key).join(REPLACEMENT);
    const keep = this.partialKeyAtEnd(text);
    this.held = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  end(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }

  /** The length of the longest end of `text` that is a start of the key. */
  private partialKeyAtEnd(text: string): number {
    for (let length = Math.min(this.key.length - 1, text.length); length > 0; length--) {
      if (this.key.startsWith(text.slice(text.length - length))) return length;
    }
    return 0;
  }
}
