// Broken checkable commitments (definitions.ts: broken_checkable_commitment). Each commitment's
// target is checked for what it promised, on syntax trees of the code (code/syntax.ts):
// - exists, exported, placement: on the code that was tested, the merged patch (plus the agents'
//   test files, which the merge drops on purpose), or the agents' patches together when the merge
//   produced nothing testable; the agent's own patch tells "never added" from "lost in the merge";
// - untouched_symbol, untouched_lines: on the agent's own patch (commitment-untouched.ts).
// A patch shows pieces of files, so a check that needs code the pieces do not show ("first in
// get()" with get's start outside every hunk) is not decided: precision comes first.
import type { Evidence, JudgeInput, JudgeLabel } from '../types.ts';
import { addedLinesNaming, definitionsIn, exportListed, inFiles, lineText, reexportsWhole, usagesIn, type FileCode } from '../code/patch-code.ts';
import { lastName, sameFunction } from './commitment-code.ts';
import { codeQuote, codeUnderCheck, describeTarget, ownPatchNote, shownLinesNaming, type CodeUnderCheck, type Finding } from './commitment-evidence.ts';
import { checkPlacement } from './commitment-placement.ts';
import { checkOnlyChanged, checkParametersKept, checkUntouchedFile, checkUntouchedLines, checkUntouchedSymbol } from './commitment-untouched.ts';
import { extractCommitments, withdrawal, type Commitment, type Target } from './commitment-extract.ts';

function checkExists(c: Commitment, code: CodeUnderCheck, name: string): Finding | undefined {
  const files = inFiles(code.files, c.target.files);
  const source = code.source === 'merged' ? 'merged' : 'patch';
  const short = lastName(name);
  const scope = c.target.scope;
  const definitions = definitionsIn(files);
  if (scope) {
    const functions = definitions.filter((d) => d.kind === 'function' && sameFunction(d.name, scope) && d.parameters);
    const parameter = definitions.find(
      (d) => (d.kind === 'parameter' || d.kind === 'field') && d.name === short && d.scope.some((s) => sameFunction(s, scope)),
    );
    if (parameter) return undefined;
    if (functions.length === 0) {
      // "`Timeout` on `Options`": a scope that is a type, not a function, owns the name as a member.
      const member = missingMember(files, `${scope}.${short}`, source);
      if (member) return member;
      return definitions.some((d) => d.name === short) || addedLinesNaming(files, short).length > 0 ? undefined : absent(c, code, name);
    }
    // The function is shown and lacks the parameter: say where the name is still used.
    const signature = functions[0]!;
    const used = usagesIn(code.files).filter((u) => u.name === short && !u.scope.some((s) => sameFunction(s, scope)));
    return {
      missing: name,
      evidence: [
        {
          kind: 'absence',
          source,
          text: name,
          note: `\`${signature.name}\` in ${describeTarget(code)} (${signature.path}:${signature.line}) has no parameter \`${short}\``,
        },
        codeQuote(source, signature),
        ...used
          .slice(0, 1)
          .flatMap((u): Evidence[] => [
            codeQuote(source, u),
            { kind: 'fact', text: `\`${short}\` is still used in ${u.scope.at(-1) ? `${u.scope.at(-1)}()` : u.path} at ${u.path}:${u.line}` },
          ]),
        ...ownPatchNote(c, code, name),
      ],
    };
  }
  const memberless = missingMember(files, name, source);
  if (memberless) return memberless;
  // A name on a shown line may be defined outside the hunks (a parameter whose signature is not shown, a method above the hunk).
  if (definitions.some((d) => d.name === short) || shownLinesNaming(files, short, short !== name)) return undefined;
  return absent(c, code, name);
}

/**
 * "added `Timeout` to `Options`": a member of a type whose whole body is shown (from its opening line
 * to its closing brace) and that no shown code defines. Then a use elsewhere (`o.Timeout`) does not
 * stand for a definition outside the hunks. A Python class's end is not known from a piece: not decided.
 */
function missingMember(files: readonly FileCode[], name: string, source: 'merged' | 'patch'): Finding | undefined {
  const parts = /^([A-Z][\w$]*)\.([A-Za-z_$][\w$]*)$/.exec(name);
  if (!parts) return undefined;
  const [, owner, member] = parts as unknown as [string, string, string];
  const definitions = definitionsIn(files);
  if (definitions.some((d) => d.name === member)) return undefined;
  const type = definitions.find((d) => d.kind === 'class' && d.name === owner);
  const file = type && files.find((f) => f.path === type.path);
  if (!type || !file || !/^\s*}/.test(lineText(file, 'new', type.endLine))) return undefined;
  return {
    missing: name,
    evidence: [
      { kind: 'absence', source, text: name, note: `\`${owner}\` (${type.path}:${type.line}-${type.endLine}) has no member \`${member}\`` },
      codeQuote(source, type),
    ],
  };
}

function absent(c: Commitment, code: CodeUnderCheck, name: string): Finding {
  const where = c.target.files.length ? ` to ${c.target.files.join(' or ')}` : '';
  // Added to another file than the promised one; a use in the promised file (`w.count_ones()`) is no definition elsewhere.
  const elsewhere = c.target.files.length
    ? addedLinesNaming(code.files, lastName(name)).find((l) => !inFiles(code.files, c.target.files).some((f) => f.path === l.path))
    : undefined;
  return {
    missing: name,
    evidence: [
      {
        kind: 'absence',
        source: code.source === 'merged' ? 'merged' : 'patch',
        text: name,
        note: `no line added${where} in ${describeTarget(code)} contains \`${name}\``,
      },
      ...(elsewhere ? [{ kind: 'fact', text: `\`${name}\` was added in ${elsewhere.path} instead` } as Evidence] : ownPatchNote(c, code, name)),
    ],
  };
}

/**
 * The files of the module an export is promised from: a file (`src/index.ts`), a Python package
 * (`promptkit` is promptkit/__init__.py), a Go package, which is its directory (`semver` is the
 * .go files of semver/), or a Rust crate, whose root is src/lib.rs.
 */
function filesOfModule(files: readonly FileCode[], module: string): FileCode[] {
  if (/\.\w+$/.test(module)) return inFiles(files, [module]);
  const python = inFiles(files, [`${module.replace(/\./g, '/')}/__init__.py`]);
  if (python.length) return python;
  const name = module.split(/[./]/).at(-1);
  const go = files.filter((f) => /\.go$/.test(f.path) && f.path.split('/').at(-2) === name);
  if (go.length) return go;
  // A Rust crate (`textkit`) exports from its root.
  return files.filter((f) => /(?:^|\/)src\/lib\.rs$/.test(f.path));
}

function checkExported(c: Commitment, code: CodeUnderCheck, name: string): Finding | undefined {
  const short = lastName(name);
  const module = c.target.module;
  const source = code.source === 'merged' ? 'merged' : 'patch';
  const moduleFiles = module ? filesOfModule(code.files, module) : code.files;
  const isPythonPackage = moduleFiles.some((f) => /__init__\.py$/.test(f.path)) || (!!module && !/\.\w+$/.test(module) && moduleFiles.length === 0);
  const listed = exportListed(moduleFiles, short);
  const definitions = definitionsIn(code.files).filter((d) => d.name === short && d.kind !== 'parameter');
  // A named Python module whose `__all__` is shown exports only what that list names.
  const declaresAll = !!module && moduleFiles.some((f) => f.hunks.some((h) => h.after?.declaresAll));
  const exportedHere = declaresAll ? undefined : definitionsIn(moduleFiles).find((d) => d.name === short && d.exported);
  if (listed || exportedHere) return undefined;
  if (!module && definitions.some((d) => d.exported)) return undefined;
  const definition = definitions[0];
  const target = `${module ? ` from ${module}` : ''} in ${describeTarget(code)}`;
  // `export * from './percent'` exports what percent.ts exports.
  if (definition?.exported && reexportsWhole(moduleFiles, definition.path)) return undefined;
  // A module the patches never show may take the name through its own file's `__all__` and a star import.
  if (definition && module && moduleFiles.length === 0 && exportListed(inFiles(code.files, [definition.path]), short)) return undefined;
  if (definition) {
    return {
      missing: name,
      evidence: [
        {
          kind: 'absence',
          source,
          text: name,
          note: `\`${short}\` exists (${definition.path}:${definition.line}) but is not exported${target}${isPythonPackage ? ' (no import or __all__ entry for it there)' : ''}`,
        },
        codeQuote(source, definition),
      ],
    };
  }
  // Go exports by a capital first letter: a promised `NewLimiter` defined as `newLimiter` exists but is not exported.
  const lowered = short.charAt(0).toLowerCase() + short.slice(1);
  const unexported = lowered !== short ? definitionsIn(code.files).find((d) => d.name === lowered && /\.go$/.test(d.path)) : undefined;
  if (unexported) {
    const note = `\`${short}\` is defined as \`${lowered}\` (${unexported.path}:${unexported.line}), which Go does not export`;
    return { missing: name, evidence: [{ kind: 'absence', source, text: name, note }, codeQuote(source, unexported)] };
  }
  // A promised export is a promise that the symbol exists: missing from the files named, it is broken as such.
  const missing = c.target.files.length ? checkExists(c, code, name) : undefined;
  if (missing) return missing;
  // Defined outside the patches: broken when the module's changes show no export of it, or a
  // promised export never touched the module (a claim about an unchanged module may be old news).
  const moduleChanged = module !== undefined && moduleFiles.length > 0;
  // A whole module re-exported may hold the definition the hunks do not show: not decided.
  if (reexportsWhole(moduleFiles)) return undefined;
  if (!moduleChanged && (c.kind === 'claim' || module === undefined)) return addedLinesNaming(code.files, short).length ? undefined : absent(c, code, name);
  return {
    missing: name,
    evidence: [{ kind: 'absence', source, text: name, note: `no export of \`${short}\`${target}` }, ...ownPatchNote(c, code, name)],
  };
}

function check(c: Commitment, code: CodeUnderCheck, input: JudgeInput): Finding[] {
  const t: Target = c.target;
  const keptBack = (name: string) => withdrawal(input.conversation, c, name) !== undefined;
  switch (t.kind) {
    case 'exists':
      return t.names
        .filter((n) => !keptBack(n))
        .map((n) => checkExists(c, code, n))
        .filter((f): f is Finding => f !== undefined);
    case 'exported':
      return t.names
        .filter((n) => !keptBack(n))
        .map((n) => checkExported(c, code, n))
        .filter((f): f is Finding => f !== undefined);
    case 'untouched_symbol': {
      if (t.parameters) {
        const f = t.scope ? checkParametersKept(c, code, input) : undefined;
        return f ? [f] : [];
      }
      if (t.except) {
        const f = checkOnlyChanged(c, code);
        return f ? [f] : [];
      }
      if (t.names.length === 0) {
        const f = checkUntouchedFile(c, code);
        return f ? [f] : [];
      }
      return t.names.map((n) => checkUntouchedSymbol(c, code, n)).filter((f): f is Finding => f !== undefined);
    }
    case 'untouched_lines': {
      const f = checkUntouchedLines(c, code, input);
      return f ? [f] : [];
    }
    case 'placement': {
      if (t.names.some(keptBack)) return [];
      const f = checkPlacement(c, code);
      return f ? [f] : [];
    }
  }
}

/** "removes `timeout`", "removes `timeout` and adds `timeout_s`": what a parameters finding's note says the patch does. */
function parameterChange(f: Finding): string {
  const e = f.evidence[0];
  const note = e && 'note' in e ? (e.note ?? '') : '';
  return /patch (.*) in the parameters of/.exec(note)?.[1] ?? 'changes';
}

function describe(c: Commitment, findings: Finding[]): string {
  const verb = c.request ? `accepted ${c.request.agent}'s request` : c.kind === 'promise' ? 'promised' : 'claimed';
  const t = c.target;
  const what = t.parameters
    ? `that the ${t.signature ? 'signature' : 'existing parameters'} of \`${t.scope}\` stay${t.signature ? 's' : ''}, but its patch ${findings.map(parameterChange).join('; ')}`
    : t.except
      ? `to change only ${t.except.map((n) => `\`${n}\``).join(', ')}, but its patch changes ${findings.map((f) => `\`${f.missing}\``).join(', ')}`
      : t.kind === 'untouched_lines' || t.kind === 'untouched_symbol'
        ? `to leave ${findings.map((f) => (t.kind === 'untouched_lines' ? f.missing : `\`${f.missing}\``)).join(', ')} untouched, but its patch changes ${t.kind === 'untouched_lines' ? 'them' : 'it'}`
        : t.kind === 'exported'
          ? `that ${findings.map((f) => `\`${f.missing}\``).join(', ')} is exported${t.module ? ` from ${t.module}` : ''}, which the code does not do`
          : t.kind === 'placement'
            ? `${findings[0]!.missing} ${t.position === 'first' ? 'first ' : ''}${t.scope ? `in \`${t.scope}()\`` : ''}, which the code does not have there`
            : `${findings.map((f) => `\`${f.missing}\``).join(', ')}${t.scope ? ` in \`${t.scope}\`` : ''}, missing from the code`;
  return `${c.agent} ${verb} ${what}`;
}

export interface BrokenPromise {
  commitment: Commitment;
  /** What the code shows against it. */
  findings: Finding[];
}

/** Each commitment the code does not keep (a repeat of one in the same message is checked once). */
export function brokenPromises(input: JudgeInput, commitments: readonly Commitment[] = extractCommitments(input.conversation)): BrokenPromise[] {
  if (commitments.length === 0 || input.patches.length === 0) return [];
  const code = codeUnderCheck(input);
  const broken: BrokenPromise[] = [];
  for (const [i, c] of commitments.entries()) {
    // An accepted request its reply also states as a claim is one commitment, reported as the accepted request.
    const rank = (x: Commitment) => (x.request ? 0 : 1);
    const same = commitments.filter((d) => d.messageId === c.messageId && JSON.stringify(d.target) === JSON.stringify(c.target));
    if (same.some((d) => rank(d) < rank(c) || (rank(d) === rank(c) && commitments.indexOf(d) < i))) continue;
    const findings = check(c, code, input);
    if (findings.length > 0) broken.push({ commitment: c, findings });
  }
  return broken;
}

/** The broken_checkable_commitment labels: one per message, with each broken promise's evidence. */
export function brokenCommitmentLabels(broken: readonly BrokenPromise[]): JudgeLabel[] {
  const labels: JudgeLabel[] = [];
  for (const { commitment: c, findings } of broken) {
    // One label per message: a second broken commitment in it adds its evidence.
    const existing = labels.find((l) => l.messageId === c.messageId);
    const evidence = findings.flatMap((f) => f.evidence);
    if (existing) {
      existing.evidence.push(...evidence);
      continue;
    }
    labels.push({
      judge: 'detectors',
      label: 'broken_checkable_commitment',
      isPrimary: false,
      messageId: c.messageId,
      agent: c.agent,
      description: describe(c, findings),
      evidence: [
        { kind: 'quote', source: 'conversation', text: c.quote, messageId: c.messageId, agent: c.agent },
        ...(c.request
          ? [{ kind: 'quote', source: 'conversation', text: c.request.quote, agent: c.request.agent, messageId: c.request.messageId } as Evidence]
          : []),
        ...evidence,
      ],
    });
  }
  return labels;
}

/** The labels of the commitments the code does not keep. */
export function brokenCommitments(input: JudgeInput, commitments?: readonly Commitment[]): JudgeLabel[] {
  return brokenCommitmentLabels(brokenPromises(input, commitments));
}
