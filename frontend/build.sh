#!/usr/bin/env bash
# Builds static/vendor/graph-bundle.js (sigma + graphology + ForceAtlas2, one minified IIFE)
# from the npm registry packages pinned in package-lock.json, then copies the licence text of
# every package that ended up in the bundle to static/vendor/LICENSES/ and rewrites
# static/vendor/README.md with their versions.
#
# Run it by hand after changing a version (node + npm needed); the built files are committed,
# so `make run` and `make test` never need npm.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
vendor="$here/../static/vendor"
cd "$here"

npm ci --no-audit --no-fund
mkdir -p "$vendor/LICENSES"

versions="$(node -e '
const names = ["graphology", "sigma", "graphology-layout-forceatlas2", "graphology-layout"];
const out = {};
for (const n of names) out[n] = require("./node_modules/" + n + "/package.json").version;
process.stdout.write(JSON.stringify(out));')"

./node_modules/.bin/esbuild entry.js \
  --define:__PEGASUS_VENDOR_VERSIONS__="$versions" \
  --bundle --minify --format=iife --target=es2019 --platform=browser \
  --legal-comments=none \
  --banner:js="/*! Pegasus graph bundle: sigma, graphology, graphology-layout(-forceatlas2) and their dependencies. MIT licensed; versions and licence texts in static/vendor/README.md and static/vendor/LICENSES/. Built by frontend/build.sh. */" --metafile=node_modules/.graph-bundle-meta.json \
  --outfile="$vendor/graph-bundle.js"

node - "$vendor" <<'JS'
const fs = require("fs");
const path = require("path");
const vendor = process.argv[2];
const meta = JSON.parse(fs.readFileSync("node_modules/.graph-bundle-meta.json", "utf8"));
// Every package with at least one file in the bundle.
const names = new Set();
for (const input of Object.keys(meta.inputs)) {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) names.add(m[1]);
}
const licDir = path.join(vendor, "LICENSES");
for (const f of fs.readdirSync(licDir)) fs.unlinkSync(path.join(licDir, f));
const rows = [];
for (const name of [...names].sort()) {
  const dir = path.join("node_modules", name);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const lic = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
  if (!lic) throw new Error(`no licence file in ${dir}`);
  const out = `${name.replace("/", "__")}-${pkg.version}.txt`;
  fs.copyFileSync(path.join(dir, lic), path.join(licDir, out));
  rows.push(`| ${name} | ${pkg.version} | ${pkg.license} | LICENSES/${out} |`);
}
const esbuildVersion = require("./node_modules/esbuild/package.json").version;
const readme = `# Vendored browser libraries

\`graph-bundle.js\` is one minified IIFE that defines \`window.PegasusGraph\`
(\`Graph\`, \`Sigma\`, \`forceAtlas2\`, \`layout.circular\`, \`layout.random\`, \`programs\`,
\`versions\`) for the memory explorer (\`static/js/explorer.js\`). It is generated; do not
edit it by hand.

Rebuild (needs node and npm; installs from the npm registry at the versions pinned in
\`frontend/package-lock.json\`, bundles with esbuild ${esbuildVersion}):

    frontend/build.sh

What is inside, with each package's licence copied from its npm package:

| package | version | licence | text |
|---|---|---|---|
${rows.join("\n")}
`;
fs.writeFileSync(path.join(vendor, "README.md"), readme);
console.log(`bundled ${names.size} packages: ${[...names].sort().join(", ")}`);
JS
ls -l "$vendor/graph-bundle.js"
