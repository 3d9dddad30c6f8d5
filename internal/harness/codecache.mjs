// Runs a Claude Code client shipped as one ES module (cli.js, the 2.0.x
// line) with V8's code cache: the same module, evaluated through
// vm.SourceTextModule so that its compiled code can be saved once and
// reused, instead of parsing 11 MB of JavaScript on every start (0.5 s
// of the 3 s of CPU a resume took). The harness starts it as
//
//	node --experimental-vm-modules --disable-warning=ExperimentalWarning codecache.mjs cli.js ARGS...
//
// and the client sees process.argv as if started as `node cli.js ARGS...`.
// CCSURGEON_NO_CODE_CACHE=1 makes the harness start cli.js directly.
import fs from "node:fs";
import path from "node:path";
import url from "node:url";
import vm from "node:vm";

const file = path.resolve(process.argv[2]);
const href = url.pathToFileURL(file).href;
const st = fs.statSync(file);
// one cache per source, node version and node flags (V8 refuses a cache
// made with other flags)
const flags = process.execArgv.join(" ").replace(/[^A-Za-z0-9=.-]+/g, "_");
const cacheFile = path.join(
  path.dirname(url.fileURLToPath(import.meta.url)),
  `.ccsurgeon-code-cache-${process.version}-${st.size}-${Math.floor(st.mtimeMs)}-${flags}`,
);
// a relative specifier is the client's, not this file's
const resolve = (spec) => (spec.startsWith(".") ? new URL(spec, href).href : spec);
const source = fs.readFileSync(file, "utf8");
const compile = (cachedData) =>
  new vm.SourceTextModule(source, {
    identifier: href,
    cachedData,
    initializeImportMeta(meta) {
      meta.url = href;
    },
    importModuleDynamically: (spec) => import(resolve(spec)),
  });
let cachedData;
try {
  cachedData = fs.readFileSync(cacheFile);
} catch {}
let mod;
try {
  mod = compile(cachedData);
} catch (e) {
  // V8 refuses a cache made with other flags (or cut short): compile
  // from the source and save a new one
  if (e.code !== "ERR_VM_MODULE_CACHED_DATA_REJECTED") throw e;
  cachedData = undefined;
  mod = compile();
}
process.argv.splice(1, 1); // the client's own argv: node cli.js ARGS...
await mod.link(async (spec) => {
  const ns = await import(resolve(spec));
  const names = Object.keys(ns);
  return new vm.SyntheticModule(names, function () {
    for (const k of names) this.setExport(k, ns[k]);
  }, { identifier: spec });
});
if (!cachedData) {
  try {
    const tmp = `${cacheFile}.${process.pid}`;
    fs.writeFileSync(tmp, mod.createCachedData());
    fs.renameSync(tmp, cacheFile);
  } catch {} // a read-only install: run without a cache
}
await mod.evaluate();
