// Runs git commands for the process that forked it (resolver/git.ts). A spawn forks the spawning
// process, and that costs in proportion to its memory: from a harness of a few hundred MB each git
// command blocked the event loop ~15 ms, from this small process ~1.5 ms. Plain JavaScript, so that
// node starts it without the TypeScript loader.
import { spawn } from 'node:child_process';

process.on('message', ({ id, args, cwd, env, input, maxOutput }) => {
  const child = spawn('git', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const stdout = [];
  const stderr = [];
  let size = 0;
  let failed;
  child.stdout.on('data', (chunk) => {
    size += chunk.length;
    if (size > maxOutput) child.kill();
    else stdout.push(chunk);
  });
  child.stderr.on('data', (chunk) => stderr.push(chunk));
  child.on('error', (error) => (failed = `cannot run git: ${error.message}`));
  child.on('close', (code) => {
    const error = failed ?? (size > maxOutput ? `git ${args[0]} printed more than ${maxOutput / 1024 / 1024} MiB` : undefined);
    process.send({ id, error, exitCode: code ?? 1, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString('utf8') });
  });
  // git may exit before reading all its input (e.g. a patch it rejects at once): not an error.
  child.stdin.on('error', () => undefined);
  child.stdin.end(input ?? '');
});
process.on('disconnect', () => process.exit(0));
