// The server's log as a person reads it on a terminal: one short line per request
// (`12:04:31 GET /api/v1/locations 200 3 ms`) and one per other event, instead of pino's JSON
// lines (two per request). JSON stays the format whenever stdout is not a terminal (a file, a pipe,
// a log shipper) and whenever LOG_FORMAT=json; LOG_FORMAT=text asks for this one anywhere.

/** What a log line is written to. */
export interface LineSink { write(text: string): unknown }

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line carries that the short form leaves out (the time is shown, the rest is noise on a terminal). */
const ROUTINE = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'requestId', 'reqId', 'req', 'res', 'responseTime', 'err']);
/** Requests announced and not yet answered, whose method and URL the answer's line shows (bounded). */
const MAX_PENDING = 10_000;

type Entry = Record<string, unknown> & { level?: number; time?: number; msg?: string };

const clock = (time: unknown) => new Date(typeof time === 'number' ? time : Date.now()).toISOString().slice(11, 19);

/** A short `key=value` list of the fields that say something (strings cut, objects as JSON). */
function extras(entry: Entry): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (ROUTINE.has(key) || value === undefined) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    parts.push(`${key}=${text.length > 200 ? `${text.slice(0, 200)}…` : text}`);
  }
  return parts.length ? ` ${parts.join(' ')}` : '';
}

/**
 * A pino destination that writes each JSON line as short text to `sink`. The lines it receives
 * were already redacted and cut (src/http/errors/log-limits.ts), so no key reaches it; the request
 * line shows method, path and status, never headers.
 */
export function textLogStream(sink: LineSink): { write(line: string): void } {
  const pending = new Map<string, string>();
  return {
    write(line: string) {
      let entry: Entry;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        sink.write(line);
        return;
      }
      const id = String(entry.requestId ?? entry.reqId ?? '');
      const req = entry.req as { method?: string; url?: string } | undefined;
      if (entry.msg === 'incoming request' && req) {
        if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
        pending.set(id, `${req.method ?? '?'} ${req.url ?? '?'}`);
        return;
      }
      // `serve` says this on its start-up line (src/cli/startup-steps.ts); JSON keeps it for log shippers.
      if (entry.msg === 'start-up warm-up done') return;
      const res = entry.res as { statusCode?: number } | undefined;
      if (entry.msg === 'request completed' && res) {
        const what = pending.get(id) ?? 'request';
        pending.delete(id);
        const ms = typeof entry.responseTime === 'number' ? ` ${entry.responseTime < 10 ? entry.responseTime.toFixed(1) : Math.round(entry.responseTime)} ms` : '';
        sink.write(`${clock(entry.time)} ${what} ${res.statusCode ?? '?'}${ms}\n`);
        return;
      }
      const level = LEVELS[entry.level ?? 30] ?? String(entry.level);
      const err = entry.err as { message?: string; stack?: string } | undefined;
      const failure = err ? `\n  ${(entry.level ?? 30) >= 50 && err.stack ? err.stack.replaceAll('\n', '\n  ') : err.message ?? ''}` : '';
      sink.write(`${clock(entry.time)} ${level === 'INFO' ? '' : `${level} `}${entry.msg ?? ''}${extras(entry)}${id ? ` (request ${id})` : ''}${failure}\n`);
    },
  };
}
