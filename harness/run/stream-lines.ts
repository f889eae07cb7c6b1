// A long listing (a dry run's tasks) written at the reader's pace, one chunk at a time: memory stays
// flat however long it is. A reader that goes away (`| head`) ends it quietly.

export async function writeLines(out: NodeJS.WritableStream, lines: Iterable<string>): Promise<void> {
  let failure: NodeJS.ErrnoException | undefined;
  const onError = (error: NodeJS.ErrnoException) => void (failure ??= error);
  // Left in place: an error of the last write arrives after this function returns.
  out.on('error', onError);
  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done).off('close', done);
        resolve();
      };
      out.on('drain', done).on('close', done);
    });
  let chunk = '';
  for (const line of lines) {
    chunk += `${line}\n`;
    if (chunk.length < 64 * 1024) continue;
    if (!out.write(chunk)) await drained();
    chunk = '';
    if (failure) break;
  }
  if (!failure && chunk && !out.write(chunk)) await drained();
  await new Promise((resolve) => setImmediate(resolve));
  if (failure && failure.code !== 'EPIPE') throw failure;
}
