export type Dialect = 'postgresql' | 'mysql';
export type StatementKind = 'select' | 'update' | 'delete';

export type TokenType = 'word' | 'quoted_identifier' | 'string' | 'parameter' | 'placeholder' | 'semicolon' | 'punct';

export interface Token {
  type: TokenType;
  /** The token as written. */
  text: string;
  /** Offsets into the statement text. */
  start: number;
  end: number;
}

export type GuardVerdict =
  | { ok: true; kind: StatementKind; /** The statement without trailing semicolons and comments. */ text: string; tokens: Token[] }
  | { ok: false; reason: string };

/**
 * MySQL/MariaDB sql_mode flags that change where quoted text ends. The guard must lex with
 * the modes of the session that runs the text, or the two disagree on where a statement ends.
 */
export interface MysqlLexerModes {
  /** `"..."` quotes a name (no backslash escapes), not a string. */
  ansiQuotes?: boolean;
  /** A backslash in a string is an ordinary character. */
  noBackslashEscapes?: boolean;
}

export class StatementSyntaxError extends Error {}

const analyzable: Record<string, StatementKind> = { select: 'select', update: 'update', delete: 'delete' };

/**
 * Lets through exactly one SELECT, UPDATE or DELETE statement: no second statement after a
 * semicolon, no utility statement, no SELECT ... INTO, no MySQL executable comment. The advisor
 * runs nothing it has not passed, and runs what it passes only under EXPLAIN, in a transaction
 * that is rolled back.
 */
export function checkStatement(text: string, dialect: Dialect, modes: MysqlLexerModes = {}): GuardVerdict {
  if (text.includes('\0')) return { ok: false, reason: 'the text contains a NUL character' };
  let tokens: Token[];
  try {
    tokens = tokenize(text, dialect, modes);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  let end = tokens.length;
  while (end > 0 && tokens[end - 1]!.type === 'semicolon') end--;
  const body = tokens.slice(0, end);
  if (body.some((token) => token.type === 'semicolon')) {
    return { ok: false, reason: 'the text holds more than one statement (a semicolon before its end)' };
  }
  const first = body[0];
  if (first === undefined) return { ok: false, reason: 'the text holds no statement' };
  const kind = first.type === 'word' ? analyzable[first.text.toLowerCase()] : undefined;
  if (kind === undefined) {
    return { ok: false, reason: `only SELECT, UPDATE and DELETE statements are analyzed, not ${first.text.slice(0, 40)}` };
  }
  if (kind === 'select' && body.some((token) => token.type === 'word' && token.text.toLowerCase() === 'into')) {
    return { ok: false, reason: 'SELECT ... INTO writes (a table, a file or variables); it is not analyzed' };
  }
  return { ok: true, kind, text: text.slice(first.start, body[body.length - 1]!.end), tokens: body };
}

/**
 * Splits statement text into tokens, skipping whitespace and comments, the way the engine's own
 * lexer does (PostgreSQL's scan.l, MySQL's sql_lex.cc); throws StatementSyntaxError on
 * unterminated quotes or comments, and on what it does not lex as the engine would.
 */
export function tokenize(text: string, dialect: Dialect, modes: MysqlLexerModes = {}): Token[] {
  const tokens: Token[] = [];
  const postgres = dialect === 'postgresql';
  const backslashEscapes = !postgres && modes.noBackslashEscapes !== true;
  let i = 0;
  const push = (type: TokenType, start: number, end: number) => tokens.push({ type, text: text.slice(start, end), start, end });
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (whitespace.test(c)) {
      i++;
    } else if (c === '-' && next === '-' && (postgres || startsMysqlComment(text[i + 2]))) {
      i = lineEnd(text, i, postgres ? /[\n\r]/ : /\n/);
    } else if (c === '#' && !postgres) {
      i = lineEnd(text, i, /\n/);
    } else if (c === '/' && next === '*') {
      if (!postgres && /^\/\*(!|M!)/.test(text.slice(i, i + 4))) {
        throw new StatementSyntaxError('MySQL executable comments (/*! ... */) are not analyzed');
      }
      i = blockCommentEnd(text, i, postgres);
    } else if (postgres && /[Uu]/.test(c) && next === '&' && text[i + 2] === '"' && !identifierChar.test(text[i - 1] ?? ' ')) {
      // A Unicode-escaped name (U&"\0065vil") would slip past the names the advisor checks.
      throw new StatementSyntaxError('Unicode-escaped names (U&"...") are not analyzed');
    } else if (c === "'") {
      const end = quotedEnd(text, i, "'", postgres ? isEscapeStringPrefix(text, i) : backslashEscapes);
      push('string', i, end);
      i = end;
    } else if (c === '"') {
      const name = postgres || modes.ansiQuotes === true;
      const end = quotedEnd(text, i, '"', !name && backslashEscapes);
      push(name ? 'quoted_identifier' : 'string', i, end);
      i = end;
    } else if (c === '`' && !postgres) {
      const end = quotedEnd(text, i, '`', false);
      push('quoted_identifier', i, end);
      i = end;
    } else if (c === '$' && postgres) {
      const param = /^\$\d+/.exec(text.slice(i));
      if (param !== null) {
        push('parameter', i, i + param[0].length);
        i += param[0].length;
        continue;
      }
      const tag = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(text.slice(i));
      if (tag === null) {
        push('punct', i, i + 1);
        i++;
        continue;
      }
      const close = text.indexOf(tag[0], i + tag[0].length);
      if (close < 0) throw new StatementSyntaxError('unterminated dollar-quoted string');
      push('string', i, close + tag[0].length);
      i = close + tag[0].length;
    } else if (c === '?' && !postgres) {
      push('placeholder', i, i + 1);
      i++;
    } else if (c === ';') {
      push('semicolon', i, i + 1);
      i++;
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      const word = /^[A-Za-z0-9_$\u0080-\uffff]+/.exec(text.slice(i))![0];
      push('word', i, i + word.length);
      i += word.length;
    } else if (/[0-9]/.test(c)) {
      const number = /^[0-9][0-9A-Za-z_.]*/.exec(text.slice(i))![0];
      push('punct', i, i + number.length);
      i += number.length;
    } else {
      push('punct', i, i + 1);
      i++;
    }
  }
  return tokens;
}

/** Both engines' whitespace; anything else (a no-break space) is part of a name to them. */
const whitespace = /[ \t\n\r\f\v]/;
const identifierChar = /[A-Za-z0-9_$\u0080-\uffff]/;

/** MySQL starts a -- comment only before a space, a control character or the end of the text. */
function startsMysqlComment(after: string | undefined): boolean {
  const code = after?.charCodeAt(0) ?? 0;
  return code <= 0x20 || code === 0x7f;
}

/** Where a line comment starting at `from` ends: after the first line end (PostgreSQL: \n or \r; MySQL: \n only). */
function lineEnd(text: string, from: number, end: RegExp): number {
  const match = end.exec(text.slice(from));
  return match === null ? text.length : from + match.index + 1;
}

function blockCommentEnd(text: string, from: number, nested: boolean): number {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    if (text.startsWith('/*', i)) {
      depth = nested || depth === 0 ? depth + 1 : depth;
      i += 2;
    } else if (text.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  throw new StatementSyntaxError('unterminated comment');
}

/** End offset (exclusive) of a quoted run starting at `from`; a doubled quote is an escaped one. */
function quotedEnd(text: string, from: number, quote: string, backslashEscapes: boolean): number {
  let i = from + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (backslashEscapes && c === '\\') {
      i += 2;
    } else if (c === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i++;
    }
  }
  throw new StatementSyntaxError(`unterminated ${quote === "'" ? 'string' : 'quoted name'}`);
}

/** PostgreSQL E'...' strings take backslash escapes. */
function isEscapeStringPrefix(text: string, quoteAt: number): boolean {
  return /[Ee]/.test(text[quoteAt - 1] ?? '') && !identifierChar.test(text[quoteAt - 2] ?? ' ');
}
