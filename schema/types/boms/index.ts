// BOMs, assembly bills, cost factors, buildable, bill versions (issue 4): one file per type, imported here.
export {};
