/** The resolver model cannot be used (missing file, unreachable endpoint, ...); the message is one line. */
export class ResolverModelError extends Error {
  override name = 'ResolverModelError';
}
