// BOMs, assembly bills, cost factors, buildable, bill versions (issue 4): one file per type, imported here.
import './enums.ts';
import './recipe-lines.ts';
import './bom.ts';
import './buildable.ts';
import './location-rules.ts';
import './bill-version.ts';
