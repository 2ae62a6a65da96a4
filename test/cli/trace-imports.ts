// Loaded with `node --import` before the CLI: writes the URL of every module the process loaded
// to the file named by BOMCORE_TRACE_IMPORTS when it exits (see importsOf in run-cli.ts).
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.BOMCORE_TRACE_IMPORTS;
const loaded = new Set<string>();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});
if (out) process.on('exit', () => writeFileSync(out, [...loaded].join('\n')));
