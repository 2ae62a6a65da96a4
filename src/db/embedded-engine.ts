import { closeSync, createReadStream, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { createGunzip } from 'node:zlib';

/**
 * How the embedded database (PGlite: PostgreSQL compiled to WebAssembly, inside this process) is
 * started. Two things keep its memory near what it stores rather than what its engine needs once:
 *
 * - **16 MB of shared buffers** instead of PostgreSQL's 128 MB. PGlite's data directory is files on
 *   this machine, so a page not in the buffers is read through the operating system's cache; a 20k
 *   shop's load took the same time with 16, 32 or 128 MB (measured) and used about 115 MB less with 16.
 * - **A new cluster from a template, not from initdb.** PGlite's initdb runs a second engine and
 *   initdb's own, and copies the first one's heap: about 575 MB more than the engine it leaves (1.1 GB
 *   peak when V8's optimizing compiler also runs: bin/node-flags.js). `cluster-template.tar.gz` (next to this file) is what
 *   that initdb writes, made once by `npm run pglite:template` with the PGlite version pinned in
 *   package.json; `cluster-template.json` records which. A new data directory (on disk or in
 *   memory) is unpacked from it, and initdb never runs in a bomcore process.
 */
export const SHARED_BUFFERS = '16MB';

const TEMPLATE = new URL('./cluster-template.tar.gz', import.meta.url);
const TEMPLATE_INFO = new URL('./cluster-template.json', import.meta.url);

/** What the template was made from, as `npm run pglite:template` records it. */
export interface TemplateInfo {
  pgliteVersion: string;
  serverVersion: string;
  catalogVersion: number;
  /** initdb's random cluster id: every cluster made from the template has it (PGlite never replicates, so nothing compares them). */
  systemIdentifier: string;
}

export function templateInfo(): TemplateInfo {
  return JSON.parse(readFileSync(TEMPLATE_INFO, 'utf8')) as TemplateInfo;
}

/** The version of the installed PGlite package (its package.json is not among its exports). */
export function installedPgliteVersion(): string {
  const entry = new URL(import.meta.resolve('@electric-sql/pglite'));
  return (JSON.parse(readFileSync(new URL('../package.json', entry), 'utf8')) as { version: string }).version;
}

/** PGlite's own start parameters with bomcore's settings after them (later ones win). */
export async function startParams(): Promise<string[]> {
  const { PGlite } = await import('@electric-sql/pglite');
  const defaults = (PGlite as unknown as { defaultStartParams: readonly string[] }).defaultStartParams;
  return [...defaults, '-c', `shared_buffers=${SHARED_BUFFERS}`];
}

/** True when `dataDir` (a directory path, or null for in memory) holds no cluster yet. */
export function isNewCluster(dataDir: string | null): boolean {
  return dataDir === null || !existsSync(join(dataDir, 'PG_VERSION'));
}

/** The template as PGlite's `loadDataDir` takes it. */
export function clusterTemplate(): Blob {
  return new Blob([readFileSync(TEMPLATE)]);
}

/**
 * The PGlite options for the embedded database at `dataDir` (null: in memory): the start
 * parameters, and, for a new cluster in memory, the template. A new cluster on disk is unpacked
 * into its directory first (`unpackTemplate`): PGlite's own unpacking holds the archive, the tar and
 * its files in memory at once (about 140 MB more, measured).
 */
export async function embeddedEngineOptions(dataDir: string | null): Promise<{ startParams: string[]; extensions: EmbeddedExtensions; loadDataDir?: Blob }> {
  if (dataDir !== null && isNewCluster(dataDir)) await unpackTemplate(dataDir);
  return { startParams: await startParams(), extensions: await embeddedExtensions(), ...(dataDir === null ? { loadDataDir: clusterTemplate() } : {}) };
}

export type EmbeddedExtensions = Record<string, unknown>;

/**
 * The PostgreSQL extensions the schema uses, loaded into the engine at start (PGlite builds them
 * as separate WebAssembly bundles): pg_trgm and btree_gin, for the materials search's index.
 */
export async function embeddedExtensions(): Promise<EmbeddedExtensions> {
  const [{ pg_trgm }, { btree_gin }] = await Promise.all([import('@electric-sql/pglite/contrib/pg_trgm'), import('@electric-sql/pglite/contrib/btree_gin')]);
  return { pg_trgm, btree_gin };
}

/**
 * Unpacks the template into `dataDir`, streamed: each file's bytes go to disk as they are inflated,
 * never held whole (the WAL segment alone is 16 MB), owner-only as PostgreSQL keeps its files.
 * `PG_VERSION`, which marks a cluster, is written last: an unpacking cut short leaves a directory
 * that is still new, and the next start unpacks it again over what is there. The archive is ustar
 * with files and directories only, as PGlite's dump writes it.
 */
export async function unpackTemplate(dataDir: string): Promise<void> {
  let header: Buffer = Buffer.alloc(0);
  let file: { fd: number | null; left: number; padding: number; marker: boolean } | null = null;
  let marker: Buffer[] | null = null;
  for await (const inflated of createReadStream(TEMPLATE).pipe(createGunzip()) as AsyncIterable<Buffer>) {
    let chunk = inflated;
    while (chunk.length > 0) {
      if (file !== null) {
        const take = Math.min(chunk.length, file.left + file.padding);
        const data = chunk.subarray(0, Math.min(take, file.left));
        if (data.length > 0) {
          if (file.fd !== null) writeSync(file.fd, data);
          else if (file.marker) marker!.push(Buffer.from(data));
        }
        const fromData = Math.min(take, file.left);
        file.left -= fromData;
        file.padding -= take - fromData;
        chunk = chunk.subarray(take);
        if (file.left === 0 && file.padding === 0) {
          if (file.fd !== null) closeSync(file.fd);
          file = null;
        }
        continue;
      }
      const need = 512 - header.length;
      header = Buffer.concat([header, chunk.subarray(0, need)]);
      chunk = chunk.subarray(need);
      if (header.length < 512) break;
      const block = header;
      header = Buffer.alloc(0);
      if (block.every((byte) => byte === 0)) continue;
      const text = (from: number, length: number) => block.subarray(from, from + length).toString('utf8').replace(/\0.*$/s, '');
      const prefix = text(345, 155);
      const name = prefix ? `${prefix}/${text(0, 100)}` : text(0, 100);
      const size = parseInt(text(124, 12).trim() || '0', 8);
      const flag = text(156, 1);
      if (flag !== '' && flag !== '0' && flag !== '5') throw new Error(`the cluster template holds a tar entry of type "${flag}" (${name}): only files and directories are expected`);
      const path = normalize(name).replace(/^(\.\.(\/|$)|\/)+/, '');
      const target = join(dataDir, path);
      if (flag === '5') {
        if (path !== '' && path !== '.') mkdirSync(target, { recursive: true, mode: 0o700 });
        continue;
      }
      const isMarker = path === 'PG_VERSION';
      if (isMarker) marker = [];
      else mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      file = { fd: isMarker ? null : openSync(target, 'w', 0o600), left: size, padding: (512 - (size % 512)) % 512, marker: isMarker };
      if (file.left === 0 && file.padding === 0) {
        if (file.fd !== null) closeSync(file.fd);
        file = null;
      }
    }
  }
  if (marker === null) throw new Error(`${TEMPLATE.pathname} holds no PG_VERSION: run npm run pglite:template`);
  writeFileSync(join(dataDir, 'PG_VERSION'), Buffer.concat(marker), { mode: 0o600 });
}

/** Writes the template and its record next to this file: a fresh initdb, as PGlite runs it. */
export async function writeClusterTemplate(): Promise<TemplateInfo> {
  const [{ PGlite }, { writeFileSync }] = await Promise.all([import('@electric-sql/pglite'), import('node:fs')]);
  const db = await PGlite.create();
  try {
    const { rows } = await db.query<{ server_version: string; catalog_version_no: number; system_identifier: string }>(
      `select current_setting('server_version') as server_version, catalog_version_no, system_identifier::text from pg_control_system()`);
    const blob = await db.dumpDataDir('gzip');
    writeFileSync(TEMPLATE, Buffer.from(await blob.arrayBuffer()));
    const pgliteVersion = installedPgliteVersion();
    const info: TemplateInfo = { pgliteVersion, serverVersion: rows[0]!.server_version, catalogVersion: Number(rows[0]!.catalog_version_no), systemIdentifier: rows[0]!.system_identifier };
    writeFileSync(TEMPLATE_INFO, `${JSON.stringify(info, null, 2)}\n`);
    return info;
  } finally {
    await db.close();
  }
}

if (import.meta.main) {
  const info = await writeClusterTemplate();
  console.log(`wrote ${TEMPLATE.pathname} (PGlite ${info.pgliteVersion}, PostgreSQL ${info.serverVersion}, catalog ${info.catalogVersion})`);
}
