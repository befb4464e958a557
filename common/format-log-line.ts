const levelNames: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const levelColors: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Fields every line has; they are shown in the line's head, not as key=value. */
const headFields = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/**
 * One pino JSON line as one human-readable line for a terminal:
 * `10:04:05.123 INFO  dbmon server listening port=7117 stateDir=/var/lib/dbmon`, an error's stack
 * indented below it. Anything that is not a JSON object passes through unchanged.
 */
export function formatLogLine(line: string, options: { colors: boolean }): string {
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return line.endsWith('\n') ? line : `${line}\n`;
    entry = parsed as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = typeof entry.level === 'number' ? entry.level : 30;
  const name = (levelNames[level] ?? `L${level}`).padEnd(5);
  const time = typeof entry.time === 'number' ? clock(new Date(entry.time)) : '';
  const stacks: string[] = [];
  const fields = Object.entries(entry)
    .filter(([key]) => !headFields.has(key))
    .map(([key, value]) => {
      if (isError(value)) {
        stacks.push(value.stack);
        return `${key}=${show(value.message ?? value.type ?? 'error')}`;
      }
      return `${key}=${show(value)}`;
    });
  const head = options.colors ? `\x1b[2m${time}\x1b[0m \x1b[${levelColors[level] ?? '0'}m${name}\x1b[0m` : `${time} ${name}`;
  const text = [head, typeof entry.msg === 'string' ? entry.msg : '', ...fields].filter((part) => part !== '').join(' ');
  const indented = stacks.map((stack) => stack.split('\n').map((stackLine) => `    ${stackLine}`).join('\n'));
  return `${[text, ...indented].join('\n')}\n`;
}

function clock(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

function isError(value: unknown): value is { stack: string; message?: unknown; type?: unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { stack?: unknown }).stack === 'string';
}

/** Plain words stay bare; anything with spaces, quotes or structure is shown as JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}
