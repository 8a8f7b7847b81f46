// Writes a brotli (`.br`) and a gzip (`.gz`) copy beside each built text asset, so the server sends
// them as they are (@fastify/static `preCompressed`, src/pages/routes.ts) instead of compressing per
// request. Run by web/vite.config.ts after every `vite build`; also runnable alone:
// `node scripts/compress-assets.mjs [dir]` (default web/dist/assets).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const COMPRESSIBLE = /\.(js|mjs|css|svg|html|json|txt)$/;

/** Compresses every text file of `dir` (not recursive); answers what it wrote, for the build log. */
export function compressAssets(dir) {
  const written = [];
  for (const name of readdirSync(dir)) {
    if (!COMPRESSIBLE.test(name)) continue;
    const file = join(dir, name);
    const raw = readFileSync(file);
    const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
    const gz = gzipSync(raw, { level: 9 });
    writeFileSync(`${file}.br`, br);
    writeFileSync(`${file}.gz`, gz);
    written.push({ name, raw: raw.length, br: br.length, gz: gz.length });
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? fileURLToPath(new URL("../web/dist/assets", import.meta.url));
  for (const f of compressAssets(dir)) console.log(`${f.name}: ${f.raw} B, br ${f.br} B, gzip ${f.gz} B`);
}
