/**
 * Every code the API answers is in the indexes of docs/rules.md, and nothing else is: the error
 * codes in "Error codes", the verdicts of a license validation in "Validation codes".
 *
 * The codes are read from the source, not from a list kept by hand: every call that makes one of
 * the service's faults (shared/errors.ts) or an API error (shared/http/errors.ts), wherever the
 * file lives. A code given as a literal is read as it is; one built from an attribute's name
 * (`<ATTRIBUTE>_TOO_LONG` and the like) is read from the calls of the helper that builds it, or
 * from the loop that names the attributes. A code the test cannot tell fails it, so that a new
 * way of making codes is taught here rather than missed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, root } from '../support/imports.ts';

/** The code that raises errors: everything but the tests, the documents and what is built. */
const CODE_FOLDERS = ['bin', 'dev', 'functions', 'lib', 'shared'];

interface Source {
  path: string;
  text: string;
}

const sourcesIn = (folder: string): Source[] =>
  filesUnder(folder, /(?<!\.d)\.ts$/).map((file) => ({ path: file, text: withoutComments(readFileSync(join(root, file), 'utf8')) }));

/** Block comments and whole-line comments, blanked out so that positions stay where they were. */
const withoutComments = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/^\s*\/\/.*$/gm, (line) => ' '.repeat(line.length));

/** The index just past the bracket that closes the one at `open`, skipping strings and templates. */
function closing(text: string, open: number): number {
  const stack: string[] = [];
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '`') {
      for (i++; i < text.length && text[i] !== '`'; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '$' && text[i + 1] === '{') i = closing(text, i + 1) - 1;
      }
    } else if (pairs[c]) stack.push(pairs[c]);
    else if (c === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return i + 1;
    }
  }
  throw new Error(`unbalanced bracket at ${open}`);
}

/** The top-level arguments of the call whose `(` is at `open`, each trimmed. */
function argumentsAt(text: string, open: number): string[] {
  const inner = text.slice(open + 1, closing(text, open) - 1);
  const args: string[] = [];
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if ('([{\'"`'.includes(c)) i = c === '(' || c === '[' || c === '{' ? closing(inner, i) - 1 : skipString(inner, i);
    else if (c === ',') {
      args.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = inner.slice(start).trim();
  if (last !== '') args.push(last);
  return args;
}

function skipString(text: string, at: number): number {
  const quote = text[at]!;
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (quote === '`' && text[i] === '$' && text[i + 1] === '{') i = closing(text, i + 1) - 1;
    else if (text[i] === quote) return i;
  }
  return text.length;
}

const CODE = /^'([A-Z][A-Z0-9_]*)'$/;
const NAME = /^'([A-Za-z][A-Za-z0-9]*)'$/;
/** A code built from an attribute's name: `${attributeCode(attribute)}_TOO_LONG`, `${attribute.toUpperCase()}_INVALID`. */
const BUILT = /^`\$\{(?:attributeCode\((\w+)\)|(\w+)\.toUpperCase\(\))\}(_[A-Z_]+)`$/;

/** `firstName` → `FIRST_NAME`, as shared/resources/rules.ts makes codes of attribute names. */
const attributeCode = (attribute: string) => attribute.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** The code a template of BUILT makes of one attribute's name. */
function buildWith(template: string, value: string): string {
  const built = BUILT.exec(template)!;
  return `${built[1] ? attributeCode(value) : value.toUpperCase()}${built[3]}`;
}

/** Calls of `name` (not a method of something else, not its own definition), by the position of their `(`. */
function callsOf(source: Source, name: string): number[] {
  const pattern = new RegExp(`(?<![.\\w])(?:new\\s+)?${name}\\s*\\(`, 'g');
  return [...source.text.matchAll(pattern)]
    .filter((match) => !/(function|class)\s+$/.test(source.text.slice(Math.max(0, match.index - 16), match.index)))
    .map((match) => match.index + match[0].length - 1);
}

const lineOf = (source: Source, at: number) => `${source.path}:${source.text.slice(0, at).split('\n').length}`;

/** The values a for-of loop before `at` gives `variable`: its strings, or each tuple's first string ('?' when not a name). */
function loopValues(source: Source, variable: string, at: number): string[] | undefined {
  const loop = [...source.text.slice(0, at).matchAll(new RegExp(`for \\(const (?:\\[\\s*)?${variable}\\b[^;]*?\\bof \\[`, 'g'))].at(-1);
  if (!loop) return undefined;
  return argumentsAt(source.text, loop.index + loop[0].length - 1)
    .map((item) => (item.startsWith('[') ? argumentsAt(item, 0)[0]! : item))
    .map((item) => NAME.exec(item)?.[1] ?? '?');
}

/** The function around `at` that takes `variable` as a parameter: its name and the parameter's place. */
function wrapperOf(source: Source, variable: string, at: number): { name: string; index: number } | undefined {
  const definitions = [
    ...source.text.slice(0, at).matchAll(/(?:function\s+(\w+)\s*(?:<[^>]*>)?\(|const\s+(\w+)\s*=\s*(?:async\s*)?(?:<[^>]*>)?\()/g),
  ].reverse();
  for (const definition of definitions) {
    const open = definition.index + definition[0].length - 1;
    const end = endOf(source.text, open);
    if (end === undefined || end < at) continue;
    const params = argumentsAt(source.text, open).map((param) => param.replace(/^readonly\s+/, '').split(/[?:=\s]/)[0]);
    const index = params.indexOf(variable);
    if (index >= 0) return { name: (definition[1] ?? definition[2])!, index };
  }
  return undefined;
}

/**
 * Where the function whose parameters open at `open` ends: its block, or its arrow's expression up
 * to the statement's end. Undefined when the text is beyond this reading (a regular expression
 * with a quote in it, say): such a function is not taken for the one around a call.
 */
function endOf(text: string, open: number): number | undefined {
  try {
    const afterParams = closing(text, open);
    const rest = text.slice(afterParams);
    const body = /^\s*(?::[^={;]*)?(=>\s*)?\{/.exec(rest);
    return body ? closing(text, afterParams + body[0].length - 1) : afterParams + rest.indexOf(';');
  } catch {
    return undefined;
  }
}

/** The codes of a table of refusals, `KEY: ['CODE', 'detail']`. */
function tableCodes(source: Source, table: string): string[] {
  const start = new RegExp(`const ${table}\\b[^=]*=\\s*\\{`).exec(source.text);
  if (!start) return [];
  const body = source.text.slice(start.index, closing(source.text, start.index + start[0].length - 1));
  return [...body.matchAll(/\[\s*'([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]!);
}

/** Where the service makes its faults and API errors: the constructor or helper, and which argument is the code. */
const MAKERS: Record<string, number> = {
  ruleBroken: 0,
  RuleBroken: 0,
  NotAuthenticated: 0,
  InputInvalid: 0,
  AnswerTooLarge: 0,
  Conflict: 1,
  ActionRefused: 1,
  refused: 1,
};

interface Maker {
  name: string;
  index: number;
  /** Only in this file: a helper of its own. */
  only?: Source;
  /** The helper builds the code from the argument's name with this template (else the argument is the code). */
  built?: string;
}

interface Found {
  /** Code → where it is made. */
  errors: Map<string, string[]>;
  /** Codes of every `code: '...'` member: an API error's, a validation's verdict, and the like. */
  answered: Map<string, string[]>;
  /** VALIDATION_CODES, as the source lists them. */
  validation: string[];
  /** Calls whose code could not be told. */
  unknown: string[];
}

function codesIn(sources: Source[]): Found {
  const found: Found = { errors: new Map(), answered: new Map(), validation: [], unknown: [] };
  const add = (into: Map<string, string[]>, code: string, at: string) => into.set(code, [...(into.get(code) ?? []), at]);
  const makers: Maker[] = Object.entries(MAKERS).map(([name, index]) => ({ name, index }));
  const learn = (source: Source, wrapper: { name: string; index: number }, built?: string) => {
    if (makers.some((maker) => maker.name === wrapper.name)) return;
    const exported = new RegExp(`export\\s+(?:async\\s+)?(?:function|const)\\s+${wrapper.name}\\b`).test(source.text);
    makers.push({ ...wrapper, built, only: exported ? undefined : source });
  };
  /** An argument naming an attribute, for a helper that builds the code from it. */
  const named = (source: Source, at: number, arg: string, template: string, label: string) => {
    const value = NAME.exec(arg)?.[1];
    if (value) return add(found.errors, buildWith(template, value), label);
    if (/^\w+$/.test(arg)) {
      const wrapper = wrapperOf(source, arg, at);
      if (wrapper) return learn(source, wrapper, template);
      const values = loopValues(source, arg, at);
      if (values && !values.includes('?')) {
        for (const value of values) add(found.errors, buildWith(template, value), label);
        return;
      }
    }
    found.unknown.push(`${label}: ${arg}`);
  };
  /** An argument that is the code. */
  const code = (source: Source, at: number, arg: string, label: string) => {
    const literal = CODE.exec(arg)?.[1];
    if (literal) return add(found.errors, literal, label);
    const built = BUILT.exec(arg);
    if (built) return named(source, at, (built[1] ?? built[2])!, arg, label);
    // A fault caught and thrown again under another pointer keeps the code it had.
    if (/^\w+\.code$/.test(arg)) return;
    if (/^\w+$/.test(arg)) {
      const wrapper = wrapperOf(source, arg, at);
      if (wrapper) return learn(source, wrapper);
      const constants = [...source.text.matchAll(new RegExp(`const ${arg} = '([A-Z][A-Z0-9_]*)'`, 'g'))].map((m) => m[1]!);
      const table = new RegExp(`const \\[${arg}\\b[^\\]]*\\] = (\\w+)\\[`).exec(source.text)?.[1];
      const codes = [...constants, ...(table ? tableCodes(source, table) : [])];
      if (codes.length > 0) {
        for (const made of codes) add(found.errors, made, label);
        return;
      }
    }
    found.unknown.push(`${label}: ${arg}`);
  };
  // Helpers learnt along the way (a file's own `invalid`, `maxLength`) are read in turn, until none is new.
  for (let i = 0; i < makers.length; i++) {
    const maker = makers[i]!;
    for (const source of maker.only ? [maker.only] : sources) {
      for (const open of callsOf(source, maker.name)) {
        const arg = argumentsAt(source.text, open)[maker.index];
        if (arg === undefined) continue;
        const label = lineOf(source, open);
        if (maker.built) named(source, open, arg, maker.built, label);
        else code(source, open, arg, label);
      }
    }
  }
  const members = (text: string) => [...text.matchAll(/\bcode:\s*'([A-Z][A-Z0-9_]*)'/g)];
  for (const source of sources) {
    // An API error made whole: its errors' `code` members.
    for (const open of [...callsOf(source, 'ApiError'), ...callsOf(source, 'badRequest')]) {
      for (const match of members(source.text.slice(open, closing(source.text, open)))) add(found.errors, match[1]!, lineOf(source, open));
    }
    for (const match of members(source.text)) add(found.answered, match[1]!, lineOf(source, match.index));
    // A fault's default code (the Conflict's CONFLICT).
    for (const match of source.text.matchAll(/\breadonly code\s*=\s*'([A-Z][A-Z0-9_]*)'/g))
      add(found.errors, match[1]!, lineOf(source, match.index));
    const list = /\bVALIDATION_CODES\s*=\s*\[/.exec(source.text);
    if (list)
      found.validation.push(...argumentsAt(source.text, list.index + list[0].length - 1).map((item) => CODE.exec(item)?.[1] ?? item));
  }
  return found;
}

/** The codes in the first column of the tables of a section of docs/rules.md, by its title. */
function indexed(rules: string, title: string): string[] {
  const start = rules.search(new RegExp(`^## \\d+\\. ${title}$`, 'm'));
  expect(start, `docs/rules.md has a section "${title}"`).toBeGreaterThanOrEqual(0);
  const rest = rules.slice(rules.indexOf('\n', start) + 1);
  const end = rest.search(/^#{1,2} /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map((m) => m[1]!);
}

const sources = CODE_FOLDERS.flatMap(sourcesIn);
const found = codesIn(sources);
const rules = readFileSync(join(root, 'docs/rules.md'), 'utf8');
const errorIndex = indexed(rules, 'Error codes');
const validationIndex = indexed(rules, 'Validation codes');

describe('the indexes of codes in docs/rules.md', () => {
  it('reads every code the source makes (a new way of making one is taught to this test)', () => {
    expect(found.unknown, 'calls whose code this test cannot tell').toEqual([]);
    // Enough of each kind that the reading cannot have quietly found nothing.
    expect(found.errors.size).toBeGreaterThan(80);
    expect(found.validation.length).toBeGreaterThan(20);
    expect(
      found.validation.every((code) => /^[A-Z][A-Z0-9_]*$/.test(code)),
      'VALIDATION_CODES holds literals',
    ).toBe(true);
  });

  it('indexes every error code the API answers, once', () => {
    const missing = [...found.errors]
      .filter(([code]) => !errorIndex.includes(code))
      .map(([code, at]) => `${code} (${at.join(', ')})`)
      .sort();
    expect(missing, 'error codes missing from "Error codes"').toEqual([]);
    expect(
      errorIndex.filter((code, i) => errorIndex.indexOf(code) !== i),
      'codes indexed twice',
    ).toEqual([]);
  });

  it('indexes no error code the source does not make', () => {
    expect(errorIndex.filter((code) => !found.errors.has(code)).sort(), 'indexed codes made nowhere').toEqual([]);
  });

  it('indexes exactly the validation codes', () => {
    expect([...validationIndex].sort()).toEqual([...new Set(found.validation)].sort());
  });

  it('indexes every other code an answer carries', () => {
    const either = new Set([...errorIndex, ...validationIndex]);
    expect([...found.answered.keys()].filter((code) => !either.has(code)).sort()).toEqual([]);
  });
});
