// A read-only npm registry for the tarballs in one folder, on 127.0.0.1 (an ephemeral port,
// printed on stdout). The install test points the `@agent-surface` scope at it, so a fresh app
// installs the packed packages exactly as it would install them once published: by name and
// version range, optional platform packages chosen by npm from their os/cpu/libc, the rest of
// the scope answered 404. Everything else still comes from the npm registry.
//
//   node scripts/local-registry.mjs DIR
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { gunzipSync } from "node:zlib";

const dir = path.resolve(process.argv[2] ?? ".");

/** package/package.json of a .tgz (ustar: 512-byte headers, sizes in octal). */
function manifestOf(tgz) {
  const tar = gunzipSync(tgz);
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = tar.toString("utf8", at, at + 100).replace(/\0.*$/s, "");
    if (!name) break;
    const size = parseInt(tar.toString("utf8", at + 124, at + 136).replace(/\0.*$/s, "").trim() || "0", 8);
    if (name === "package/package.json") return JSON.parse(tar.toString("utf8", at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error("no package/package.json");
}

const packages = new Map();
for (const file of readdirSync(dir).filter((f) => f.endsWith(".tgz"))) {
  const bytes = readFileSync(path.join(dir, file));
  const manifest = manifestOf(bytes);
  packages.set(manifest.name, { manifest, file, bytes });
}

const server = createServer((req, res) => {
  const url = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+/, "");
  const tarball = url.match(/^-\/tarballs\/(.+\.tgz)$/);
  if (tarball) {
    const entry = [...packages.values()].find((p) => p.file === tarball[1]);
    if (!entry) return res.writeHead(404).end();
    return res.writeHead(200, { "content-type": "application/octet-stream" }).end(entry.bytes);
  }
  const entry = packages.get(url);
  if (!entry) {
    return res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
  }
  const { port } = server.address();
  const { manifest, file, bytes } = entry;
  const version = {
    ...manifest,
    _id: `${manifest.name}@${manifest.version}`,
    dist: {
      tarball: `http://127.0.0.1:${port}/-/tarballs/${encodeURIComponent(file)}`,
      integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
      shasum: createHash("sha1").update(bytes).digest("hex"),
    },
  };
  const packument = { name: manifest.name, "dist-tags": { latest: manifest.version }, versions: { [manifest.version]: version } };
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(packument));
});
server.listen(0, "127.0.0.1", () => {
  console.log(server.address().port);
});
