export function flagsFor(args: readonly string[], env: NodeJS.ProcessEnv): string[];
export function missingFlags(wanted: readonly string[]): string[];
export function runWith(node: string, flags: readonly string[], script: string, args: readonly string[]): Promise<never>;
export function watchRelay(): void;
