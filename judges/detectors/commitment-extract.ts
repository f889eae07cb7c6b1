// Commitments in messages, with what they commit to (definitions.ts: COMMITMENT_KIND_DEFINITIONS):
// a promise ("I'll add `max_batch_size` to the constructor"), a completion claim ("✓ Added X"),
// a boundary ("I won't touch `Session.close()`", "I'll leave lines 40-53 alone") or an accepted
// request ("Sure, will do" after "Please export `LRUCache` from __init__.py"). The sentence
// structure comes from language.ts (who does what, in which tense, negated or not); the target
// from the code the clause names. Offers, conditions and questions commit to nothing, and a
// promise whose target names no code is left to the symptom judge. Targets are read by
// commitment-verbs.ts (a clause's verb), commitment-subjects.ts (code as a clause's subject),
// commitment-phrases.ts (noun phrases and fixed constructions) and commitment-places.ts (a function
// named as a place), commitment-keywords.ts (parameters by a keyword argument's shape),
// commitment-only.ts (a change limited to functions) and commitment-renames.ts, on
// commitment-code.ts's terms; commitment-restated.ts reads reports that restate an earlier commitment,
// commitment-requests.ts requests and the replies that accept them.
import type { ConversationMessage } from '../types.ts';
import { exportStatementNames, functionName, lastName, PACKAGE, symbolsIn, type Commitment, type Target } from './commitment-code.ts';
import {
  callPlacementTargets,
  definitionOrderTargets,
  guardPlacementTargets,
  newCodeTargets,
  newFileTargets,
  ownCodeTargets,
  untouchedPhrases,
} from './commitment-phrases.ts';
import {
  conversationMentions,
  describedCode,
  packageModule,
  parameterScope,
  partnerCode,
  partnerRanges,
  previousCode,
  type ConversationMentions,
  type NamedCode,
} from './commitment-references.ts';
import { passiveGuardTargets } from './commitment-guards.ts';
import { anchoredPlacementTargets, guardFrameTargets, placedCodeTargets } from './commitment-places.ts';
import { restatedCommitments, restatedPlacements } from './commitment-restated.ts';
import { checkedCodeTargets, countedListTargets, listedCodeTargets, partnerItemTargets } from './commitment-lists.ts';
import { exportParticipleTargets } from './commitment-participles.ts';
import { keywordParameterTargets } from './commitment-keywords.ts';
import { onlyChangedTargets } from './commitment-only.ts';
import { renamedTargets } from './commitment-renames.ts';
import { codeSubjectTargets, parameterListTargets, referringSubjectTargets } from './commitment-subjects.ts';
import { coordinatedStance, headLemma, passiveTarget, subordinate, targetOf } from './commitment-verbs.ts';
import { VERB_WORDS, verbIs, type VerbClass } from './commitment-verb-words.ts';
import { parameterOwner } from './commitment-boundaries.ts';
import { messageSentences, type Sentence } from './language.ts';
import { afterDeterminer, commits, isConditional, stanceOf, unconditionalPart } from './stance.ts';
import { acceptsRequest, requestTargets } from './commitment-requests.ts';
import { READING_RULES } from './commitment-reading-rules.ts';
import { FRAME_RULES, listIntroduction, statedKind } from './commitment-frames.ts';
import { firstMatch } from './rules.ts';

export type { Commitment, Target, TargetKind } from './commitment-code.ts';

/**
 * `named`: the function the message named last before the sentence. `item`: for a list item ("- `retry()`
 * in client.ts", "- add `retry()`"), what the sentence introducing the list says its items are
 * (listIntroduction); undefined for any other sentence.
 */
function sentenceCommitments(sentence: Sentence, messageId: number, named?: string, item?: Commitment['kind']): { kind: Commitment['kind']; target: Target }[] {
  if (sentence.questionMark || firstMatch(READING_RULES, ['offer'], sentence, messageId)) return [];
  if (isConditional(sentence)) {
    const part = unconditionalPart(sentence);
    return part ? sentenceCommitments(part, messageId, named, item) : [];
  }
  const found: { kind: Commitment['kind']; target: Target }[] = [];
  const stated = statedKind(sentence);
  const asked = sentence.verbs.some(
    (v) =>
      (v.subject === 'second' && !subordinate(sentence, v)) ||
      (v.form === 'imperative' && v.subject === 'none' && stanceOf(sentence, v) === 'none' && !afterDeterminer(sentence, v)),
  );
  const placements = asked
    ? []
    : [...callPlacementTargets(sentence), ...guardPlacementTargets(sentence), ...passiveGuardTargets(sentence), ...newFileTargets(sentence)];
  for (const target of [
    ...codeSubjectTargets(sentence),
    ...(asked
      ? []
      : [
          ...referringSubjectTargets(sentence),
          ...parameterListTargets(sentence),
          ...listedCodeTargets(sentence),
          ...checkedCodeTargets(sentence),
          ...countedListTargets(sentence),
          ...exportParticipleTargets(sentence),
          ...keywordParameterTargets(sentence),
          ...onlyChangedTargets(sentence),
          ...renamedTargets(sentence),
        ]),
    ...(firstMatch(READING_RULES, ['request'], sentence, messageId) ? [] : untouchedPhrases(sentence)),
    ...partnerItemTargets(sentence),
    ...placements,
  ]) {
    if (!found.some((f) => JSON.stringify(f.target) === JSON.stringify(target))) found.push({ kind: stated === 'claim' && item ? item : stated, target });
  }
  // New code named in a noun phrase, in the sender's plan (a promise) or report (a claim): FRAME_RULES.
  const newCode = asked ? [] : newCodeTargets(sentence);
  const framed = { sentence, item };
  const frame = newCode.length ? (firstMatch(FRAME_RULES, ['plan'], framed, messageId) ?? firstMatch(FRAME_RULES, ['report'], framed, messageId)) : undefined;
  if (frame) {
    const kind = frame.kind === 'plan' ? 'promise' : 'claim';
    for (const target of newCode) if (!found.some((f) => JSON.stringify(f.target) === JSON.stringify(target))) found.push({ kind, target });
  }
  for (const verb of sentence.verbs) {
    const stance = coordinatedStance(sentence, verb) ?? stanceOf(sentence, verb);
    const target =
      verb.subject === 'other' ? (stance === 'did' ? passiveTarget(sentence, verb) : undefined) : commits(stance) ? targetOf(sentence, verb) : undefined;
    if (!target) continue;
    // Counted for calibration: the class of the verb whose clause read this commitment.
    firstMatch(VERB_WORDS, Object.keys(VERB_WORDS.kinds) as VerbClass[], headLemma(sentence, verb), messageId);
    const kind = stance === 'did' ? 'claim' : 'promise';
    // "add `satisfies()` …, both exported": adding and exporting are two promises, the symbol exists and is exported.
    // Adding it to `__all__` or an export statement only exports what is defined elsewhere, unless the sentence names
    // another file it goes to ("I'll add it to toc.py and to the package's `__all__`").
    const reexport =
      sentence.masks.some((m) => m.text === '__all__' || exportStatementNames(m.text, target.module) !== undefined) &&
      target.files.every((f) => f === target.module);
    const added =
      target.kind === 'exported' && verbIs('create', headLemma(sentence, verb)) && !reexport
        ? [{ kind: 'exists' as const, names: target.names, files: target.files, ...(target.refers && { refers: target.refers }) }]
        : [];
    for (const t of [target, ...added]) if (!found.some((f) => JSON.stringify(f.target) === JSON.stringify(t))) found.push({ kind, target: t });
  }
  // Where the words name no placed code the other readers know: the function and the place in it.
  for (const target of asked ? [] : placedCodeTargets(sentence, named)) {
    // "around the call to `handler` in `dispatch()`": the code named is the anchor; the place says more. Code
    // said only to be in the function ("calling `X` from `main()`") is placed there by any placement in it.
    // A parameter added to the function ("a `cost` argument to `allow()`") is what goes there: its own target.
    const bare = target.position === undefined && !target.loop;
    const placed = (t: Target) =>
      (bare && t.scope === target.scope) || (t.kind === 'placement' && t.scope === target.scope && (t.position !== undefined || t.loop || t.guard));
    if (!found.some((f) => placed(f.target))) found.push({ kind: stated, target });
  }
  // A guard and its place in words no reader above took ("encode: ascii check up top ✓").
  if (!asked && !found.some((f) => f.target.kind === 'placement'))
    for (const target of guardFrameTargets(sentence, named)) found.push({ kind: stated, target });
  for (const target of ownCodeTargets(sentence)) {
    if (!found.some((f) => JSON.stringify(f.target) === JSON.stringify(target))) found.push({ kind: 'claim', target });
  }
  for (const target of definitionOrderTargets(
    sentence,
    found.map((f) => f.target),
  )) {
    if (!found.some((f) => JSON.stringify(f.target) === JSON.stringify(target))) found.push({ kind: found[0]!.kind, target });
  }
  return found;
}

/** What a reference stands for in the conversation so far; nothing when it resolves to nothing. */
function resolve(target: Target, agent: string, at: number, mentions: ConversationMentions, earlier: readonly Commitment[] = []): Target[] {
  const { refers, repeats, ...base } = target;
  // "keep clear of 10-19": bare numbers are lines when a range with those numbers was named before.
  if (repeats && !mentions.ranges.some((r) => r.at < at && r.lines[0] === base.lines![0] && r.lines[1] === base.lines![1])) return [];
  let resolved: Target[] = [base];
  if (refers?.to === 'partner_work') {
    const ranges = partnerRanges(mentions, agent, at).map((r): Target => ({ kind: 'untouched_lines', names: [], files: r.files, lines: r.lines }));
    const names = refers.only === 'all' ? [...new Set(partnerCode(mentions, agent, at).map((c) => c.name))] : [];
    resolved = [...ranges, ...(names.length ? [{ kind: 'untouched_symbol', names, files: base.files } as Target] : [])];
  } else if (refers?.to === 'parameters') {
    const scope = parameterScope(mentions, agent, at) ?? refers.fallback;
    resolved = scope ? [{ ...base, scope }] : [];
  } else if (refers?.to === 'previous' || refers?.to === 'described') {
    const code = refers.to === 'previous' ? previousCode(mentions, agent, at) : describedCode(mentions, agent, at, refers.words, refers.functions);
    // "The paused check is in" after "check `self.paused` first": code reached through a value (`self.`, `ctx.`) is used there, not defined.
    const defined = code.filter((c) => base.kind !== 'exists' || !/^[a-z_$][\w$]*\./.test(c.name));
    const names = committedNames(defined, agent, earlier) ?? [...new Set(defined.map((c) => c.name))];
    // The files the code was named with, where its sentence named them.
    const files = base.files.length ? base.files : [...new Set(defined.filter((c) => c.filesNamed).flatMap((c) => c.files))];
    resolved = names.length ? [{ ...base, names, files }] : [];
  }
  return resolved.flatMap((t) => {
    if (t.module !== PACKAGE) return [t];
    // The package of the file the code lives in: named in the sentence, else where the sender last said it was.
    const file = t.files[0] ?? mentions.code.filter((c) => c.agent === agent && c.at < at && t.names.includes(c.name) && c.files.length).at(-1)?.files[0];
    const module = file ? packageModule(file) : undefined;
    return module ? [{ ...t, module }] : [];
  });
}

/**
 * "it's in" after "I'll add a `close()` method to `Pool`, right after `release`": the code the sender
 * committed to in the sentence referred to (`Pool.close`), not every name that sentence mentions.
 */
function committedNames(code: readonly NamedCode[], agent: string, earlier: readonly Commitment[]): string[] | undefined {
  const named = new Set(code.map((c) => c.name));
  const names = earlier
    .filter((c) => c.agent === agent && c.messageId === code[0]?.messageId && (c.target.kind === 'exists' || c.target.kind === 'exported'))
    .flatMap((c) => c.target.names)
    .filter((n) => n.split('.').every((part) => named.has(part)));
  return names.length ? [...new Set(names)] : undefined;
}

/**
 * What a target leaves unsaid, from the sender's earlier commitments on the same code: "The auth check
 * sits at the top of `handle()`" after "`if (!req.user) return deny(res);` as its first statement" is
 * that guard (the names its condition tests count too); "`load_profile` is done and exported" is
 * exported from the module promised before.
 */
function withEarlier(target: Target, agent: string, earlier: readonly Commitment[]): Target {
  const own = earlier.filter((c) => c.agent === agent);
  if (target.guard && target.scope) {
    const before = own.filter((c) => c.target.guard && c.target.scope === target.scope).flatMap((c) => c.target.guard!);
    return before.length ? { ...target, guard: [...new Set([...before, ...target.guard])] } : target;
  }
  if (target.kind === 'exported' && !target.module) {
    const module = own.filter((c) => c.target.kind === 'exported' && c.target.module && c.target.names.some((n) => target.names.includes(n))).at(-1)
      ?.target.module;
    return module ? { ...target, module } : target;
  }
  return target;
}

export function extractCommitments(conversation: readonly ConversationMessage[]): Commitment[] {
  const commitments: Commitment[] = [];
  const analysed = conversation.map((m) => messageSentences(m.message));
  const mentions = conversationMentions(conversation, analysed, symbolsIn, parameterOwner);
  const known = (messageId: number, target: Target) =>
    commitments.some((c) => c.messageId === messageId && JSON.stringify(c.target) === JSON.stringify(target));
  conversation.forEach((message, i) => {
    analysed[i]!.forEach((sentence, s) => {
      const named = analysed[i]!.slice(0, s)
        .flatMap((x) => x.terms.filter((t) => /\(\)$/.test(t.mask?.text.trim() ?? '')).map(functionName))
        .filter(Boolean)
        .at(-1);
      const found = sentenceCommitments(sentence, message.id, named, sentence.listItem ? listIntroduction(analysed[i]!.slice(0, s)) : undefined);
      const earlier = commitments.filter((c) => c.messageId !== message.id);
      for (const { kind, target } of found) {
        for (const resolved of resolve(target, message.from, i * 1000 + s, mentions, commitments).map((t) => withEarlier(t, message.from, commitments))) {
          if (!known(message.id, resolved)) commitments.push({ messageId: message.id, agent: message.from, quote: sentence.text, kind, target: resolved });
        }
      }
      // Before this sentence's own commitments count as earlier ones: a report restates what came before.
      for (const target of restatedCommitments(sentence, message.from, earlier)) {
        if (!known(message.id, target)) commitments.push({ messageId: message.id, agent: message.from, quote: sentence.text, kind: 'claim', target });
      }
      if (found.some((f) => f.target.kind === 'placement')) return;
      const restated = restatedPlacements(sentence, message.from, commitments);
      const created = new Set(found.flatMap((f) => (f.target.kind === 'exists' || f.target.kind === 'exported' ? f.target.names : [])));
      const anchored = restated.length ? [] : anchoredPlacementTargets(sentence, created);
      const kind = anchored.length && sentence.verbs.some((v) => v.tense === 'future') ? 'promise' : 'claim';
      for (const target of restated.length ? restated : anchored) {
        if (!known(message.id, target)) commitments.push({ messageId: message.id, agent: message.from, quote: sentence.text, kind, target });
      }
    });
    // An acceptance commits the agent to the request it answers: the partner's last message before it.
    const opening = analysed[i]![0];
    const request = conversation
      .slice(0, i)
      .reverse()
      .find((m) => m.from !== message.from && m.to.includes(message.from));
    if (!opening || !request) return;
    const requestIndex = conversation.indexOf(request);
    // An acceptance answers the message it follows: once the agent has written after the request, it answered there.
    if (conversation.slice(requestIndex + 1, i).some((m) => m.from === message.from)) return;
    // The reply's words decide only where the request asks for something checkable.
    const asked = analysed[requestIndex]!.flatMap((sentence) =>
      requestTargets(sentence)
        .flatMap((t) => resolve(t, message.from, i * 1000, mentions))
        .map((target) => ({ sentence, target })),
    );
    if (asked.length === 0 || !acceptsRequest(message.message, analysed[i]!, message.id)) return;
    for (const { sentence, target } of asked) {
      // "Done — added `Timeout` to `Options` as you asked": a reply that restates the work still accepts the request.
      if (commitments.some((c) => c.messageId === message.id && c.request && JSON.stringify(c.target) === JSON.stringify(target))) continue;
      commitments.push({
        messageId: message.id,
        agent: message.from,
        quote: opening.text,
        kind: 'promise',
        target,
        request: { messageId: request.id, agent: request.from, quote: sentence.text },
      });
    }
  });
  return commitments;
}

/** A later sentence of the same agent that takes the commitment back for `name` (a symbol or a file). */
export function withdrawal(conversation: readonly ConversationMessage[], commitment: Commitment, name: string): string | undefined {
  // "dropping vintage_range" takes back `Rack.vintage_range`.
  const names = [...new Set([name, lastName(name)])].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const named = new RegExp(`(?<![\\w$])(?:${names.join('|')})(?![\\w$])`);
  for (const message of conversation) {
    if (message.id <= commitment.messageId || message.from !== commitment.agent) continue;
    const hit = messageSentences(message.message).find(
      (s) =>
        named.test(s.text) &&
        commitment.target.kind !== 'untouched_symbol' &&
        firstMatch(READING_RULES, ['withdrawal'], s, { messageId: commitment.messageId, target: commitment.target }),
    );
    if (hit) return hit.text;
  }
  return undefined;
}
