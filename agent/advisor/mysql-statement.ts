import { tokenize, type Token } from './statement-guard.js';

/**
 * A digest text (`SELECT * FROM t WHERE a = ? LIMIT ?`) made executable for EXPLAIN with safe
 * literals: `'1'` for a value (a quoted literal compares with numbers and strings alike, so an
 * index stays usable), `1` where only a number parses (LIMIT, OFFSET), `('1')` for a folded list
 * `(...)`. Undefined when the server truncated the digest (it ends in `...`).
 */
export function executableDigest(text: string, tokens: readonly Token[]): string | undefined {
  const last = tokens.length;
  if (last >= 3 && isEllipsis(tokens, last - 3) && tokens[last - 4]?.text !== '(') return undefined;
  const replacements: Array<{ start: number; end: number; text: string }> = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.text === '(' && isEllipsis(tokens, i + 1) && tokens[i + 4]?.text === ')') {
      replacements.push({ start: token.start, end: tokens[i + 4]!.end, text: "('1')" });
      i += 4;
    } else if (token.type === 'placeholder') {
      replacements.push({ start: token.start, end: token.end, text: numericOnly(tokens, i) ? '1' : "'1'" });
    }
  }
  let out = '';
  let at = 0;
  for (const replacement of replacements) {
    out += text.slice(at, replacement.start) + replacement.text;
    at = replacement.end;
  }
  return out + text.slice(at, tokens[tokens.length - 1]?.end ?? text.length);
}

function isEllipsis(tokens: readonly Token[], from: number): boolean {
  const [a, b, c] = [tokens[from], tokens[from + 1], tokens[from + 2]];
  return a?.text === '.' && b?.text === '.' && c?.text === '.' && b.start === a.end && c.start === b.end;
}

/** LIMIT ?, LIMIT ?, ? and OFFSET ? take only numbers. */
function numericOnly(tokens: readonly Token[], i: number): boolean {
  const previous = tokens[i - 1];
  const word = previous?.type === 'word' ? previous.text.toUpperCase() : '';
  if (word === 'LIMIT' || word === 'OFFSET') return true;
  return previous?.text === ',' && tokens[i - 2]?.type === 'placeholder' && tokens[i - 3]?.text.toUpperCase() === 'LIMIT';
}

export interface TableRef {
  schema: string | null;
  table: string;
}

const notAlias = new Set([
  'WHERE', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'CROSS', 'STRAIGHT_JOIN', 'NATURAL', 'OUTER', 'ON', 'USING', 'GROUP', 'ORDER',
  'LIMIT', 'HAVING', 'SET', 'UNION', 'FOR', 'LOCK', 'WINDOW', 'FORCE', 'USE', 'IGNORE', 'PARTITION', 'AS', 'STRAIGHT',
]);
const clauseEnd = new Set(['WHERE', 'GROUP', 'ORDER', 'LIMIT', 'HAVING', 'SET', 'UNION', 'FOR', 'LOCK', 'WINDOW', 'ON', 'USING']);

/** Alias (or bare table name) to table, from the FROM/JOIN/UPDATE clauses of a statement. */
export function tableAliases(tokens: readonly Token[]): Map<string, TableRef> {
  const aliases = new Map<string, TableRef>();
  let inList = false;
  for (let i = 0; i < tokens.length; i++) {
    const word = upper(tokens[i]);
    const opens = word === 'FROM' || word === 'JOIN' || word === 'UPDATE' || (inList && tokens[i]!.text === ',');
    if (clauseEnd.has(word)) inList = false;
    if (!opens) continue;
    inList = word === 'FROM' || word === 'UPDATE' || inList;
    let j = i + 1;
    if (!isName(tokens[j])) continue;
    let schema: string | null = null;
    let table = nameOf(tokens[j]!);
    if (tokens[j + 1]?.text === '.' && isName(tokens[j + 2])) {
      schema = table;
      table = nameOf(tokens[j + 2]!);
      j += 2;
    }
    j++;
    if (upper(tokens[j]) === 'AS') j++;
    const alias = isName(tokens[j]) && !notAlias.has(upper(tokens[j])) ? nameOf(tokens[j]!) : table;
    aliases.set(alias, { schema, table });
    i = j - 1;
  }
  return aliases;
}

export type MysqlColumnRole = 'equality' | 'join';

export interface MysqlColumnUse {
  alias: string;
  column: string;
  role: MysqlColumnRole;
}

/**
 * Equality uses of `alias.column` (or `db.alias.column`) in an EXPLAIN condition such as
 * "t.a = '1' and t2.c = t1.a": compared with `=` or `IN`; against another table's column, a join.
 */
export function conditionColumns(condition: string): MysqlColumnUse[] {
  const tokens = tokenize(condition, 'mysql');
  const refs: Array<{ alias: string; column: string; first: number; last: number }> = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!isName(tokens[i]) || tokens[i + 1]?.text !== '.' || !isName(tokens[i + 2])) continue;
    if (tokens[i + 3]?.text === '.' && isName(tokens[i + 4])) {
      refs.push({ alias: nameOf(tokens[i + 2]!), column: nameOf(tokens[i + 4]!), first: i, last: i + 4 });
      i += 4;
    } else {
      refs.push({ alias: nameOf(tokens[i]!), column: nameOf(tokens[i + 2]!), first: i, last: i + 2 });
      i += 2;
    }
  }
  const uses: MysqlColumnUse[] = [];
  for (const ref of refs) {
    let after = ref.last + 1;
    while (tokens[after]?.text === ')') after++;
    let before = ref.first - 1;
    while (tokens[before]?.text === '(') before--;
    const equalsAfter = tokens[after]?.text === '=' && !['<', '>', '!'].includes(tokens[ref.last + 1]?.text ?? '');
    const equalsBefore = tokens[before]?.text === '=' && !['<', '>', '!'].includes(tokens[before - 1]?.text ?? '');
    const inList = upper(tokens[after]) === 'IN';
    if (!equalsAfter && !equalsBefore && !inList) continue;
    const otherIndex = equalsAfter ? after + 1 : before - 1;
    const other = refs.find((candidate) => (equalsAfter ? candidate.first >= otherIndex && candidate.first <= otherIndex + 1 : candidate.last <= otherIndex && candidate.last >= otherIndex - 1));
    const role: MysqlColumnRole = (equalsAfter || equalsBefore) && other !== undefined && other.alias !== ref.alias ? 'join' : 'equality';
    uses.push({ alias: ref.alias, column: ref.column, role });
  }
  return uses;
}

function isName(token: Token | undefined): boolean {
  return token !== undefined && (token.type === 'word' || token.type === 'quoted_identifier');
}

function nameOf(token: Token): string {
  return token.type === 'quoted_identifier' ? token.text.slice(1, -1).replaceAll('``', '`') : token.text;
}

function upper(token: Token | undefined): string {
  return token?.type === 'word' ? token.text.toUpperCase() : '';
}
