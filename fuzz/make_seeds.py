#!/usr/bin/env python3
"""Generates the seed corpora (fuzz/corpus/<target>/) from the project's real inputs.

    python3 fuzz/make_seeds.py [--out DIR]

Seeds are derived, not committed: the example app and diagnostics fixtures, the example
manifest and tamperings of it, the JSON-Schema-Test-Suite in conformance/, serve sessions.
Run it before fuzzing (docs/fuzzing.md); the test command runs it into a temporary folder and
replays every seed (tests/it/fuzz_replay.rs). Names come from the inputs (or their sha1), so
re-running is idempotent. The crash reproducers in fuzz/artifacts/ are committed and never
touched.
"""
import hashlib, json, os, pathlib, random, sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
MANIFEST = ROOT / "examples" / "devices-app" / "agent-surface.manifest.json"
SUITE = ROOT / "conformance" / "json-schema-test-suite" / "draft2020-12"
FUZZ_ROOT = "/nonexistent/agent-surface-fuzz/app"  # src/fuzz_support.rs FUZZ_ROOT


def put(target, data, name=None):
    if isinstance(data, str):
        data = data.encode()
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    stem = name or hashlib.sha1(data).hexdigest()[:16]
    (d / stem).write_bytes(data)


APP = ROOT / "examples" / "devices-app"
DIAGNOSTICS = ROOT / "crates" / "compiler" / "fixtures" / "diagnostics"


def source_files():
    # A folder that moved would otherwise give no seeds, silently.
    for d in (APP / "src", DIAGNOSTICS):
        if not d.is_dir():
            sys.exit(f"make_seeds.py: {d} is missing")
    files = sorted((APP / "src").rglob("*.ts*"))
    files += sorted(p for p in DIAGNOSTICS.rglob("*.ts*") if "node_modules" not in p.parts)
    # One oversized fixture (27 KB) would set libFuzzer's max_len for every input: skip it.
    return [p for p in files if p.stat().st_size <= 8192]


def compile_file():
    for p in source_files():
        put("compile_file", p.read_bytes(), "seed-" + p.relative_to(ROOT).as_posix().replace("/", "_"))


def manifest():
    text = MANIFEST.read_text()
    m = json.loads(text)
    put("authority_manifest", text, "seed-devices-app")
    put("authority_manifest", json.dumps(m, separators=(",", ":")), "seed-devices-app-compact")
    put("authority_manifest", json.dumps(m, indent=1), "seed-devices-app-indent1")
    # Tamperings (refused as-is; the harness also re-hashes them, reaching the definition rules).
    def tamper(name, f):
        t = json.loads(text)
        f(t)
        put("authority_manifest", json.dumps(t, indent=2), "seed-tamper-" + name)
    c0 = lambda t: t["contracts"][0]
    tamper("description", lambda t: c0(t).__setitem__("description", "changed"))
    tamper("format-version", lambda t: t.__setitem__("formatVersion", 1))
    tamper("incomplete", lambda t: t["completeness"].update(status="incomplete", failed=1))
    tamper("count", lambda t: t["completeness"].update(contracts=99))
    tamper("hash", lambda t: c0(t).__setitem__("contractHash", c0(t)["contractHash"][:-1] + "0"))
    tamper("manifest-hash", lambda t: t.__setitem__("manifestHash", "blake3:" + "0" * 64))
    tamper("reversed", lambda t: t["contracts"].reverse())
    tamper("duplicate", lambda t: t["contracts"].append(t["contracts"][0]))
    tamper("unknown-field", lambda t: c0(t).__setitem__("extra", True))
    tamper("effect", lambda t: [o.__setitem__("effect", "destructive") for c in t["contracts"] if c["kind"] != "component" for o in [c]])
    tamper("confirmation-never", lambda t: [c.__setitem__("confirmation", "never") for c in t["contracts"] if c["kind"] != "component"])
    tamper("schema-oneof", lambda t: [c.__setitem__("inputSchema", {"oneOf": [{}]}) for c in t["contracts"] if c["kind"] != "component"])
    tamper("schema-ref-loop", lambda t: [c.__setitem__("inputSchema", {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}) for c in t["contracts"] if c["kind"] != "component"])
    tamper("bad-id", lambda t: c0(t).__setitem__("id", "view:Bad Id"))
    put("authority_manifest", text[: len(text) // 2], "seed-truncated")
    put("authority_manifest", text.replace('"formatVersion": 2', '"formatVersion": 2, "formatVersion": 2', 1), "seed-duplicate-key")
    for s in ["{}", "[]", "null", '{"formatVersion":2}', '{"formatVersion":2,"generator":{"name":"x","version":"1"},"completeness":{"status":"complete","contracts":0,"failed":0},"contracts":[],"manifestHash":""}']:
        put("authority_manifest", s)


def schemas():
    if not SUITE.is_dir():
        sys.exit(f"error: {SUITE} is missing (the JSON-Schema-Test-Suite copy)")
    for f in sorted(SUITE.glob("*.json")):
        for i, group in enumerate(json.loads(f.read_text())):
            doc = {"schema": group["schema"], "instances": [t["data"] for t in group["tests"]]}
            put("schema_validate", json.dumps(doc), f"suite-{f.stem}-{i}")
    # The example app's schemas, with the empty object and null as instances.
    m = json.loads(MANIFEST.read_text())
    found = []
    def walk(v, key=None):
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("inputSchema", "outputSchema") and isinstance(x, dict):
                    found.append(x)
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(m)
    for i, s in enumerate(found):
        put("schema_validate", json.dumps({"schema": s, "instances": [{}, None, {"ids": ["a"]}]}), f"example-schema-{i}")
    # The arbitrary form: a few fixed random byte strings.
    rng = random.Random(10)
    for i in range(8):
        put("schema_validate", bytes(rng.randrange(256) for _ in range(64 + 32 * i)), f"arbitrary-{i}")


def serve():
    table = (APP / "src" / "components" / "DevicesTable.tsx").read_text()
    domain = (APP / "src" / "domain" / "devices.ts").read_text()
    f = lambda rel: f"{FUZZ_ROOT}/{rel}"
    line = lambda **kw: json.dumps(kw)
    transform = lambda i, rel, code: line(id=i, method="transform", params={"file": f(rel), "code": code})
    put("serve_lines", line(id=1, method="scan"), "seed-scan")
    put("serve_lines", transform(1, "src/components/DevicesTable.tsx", table), "seed-transform-table")
    put("serve_lines", "\n".join([transform(1, "src/domain/devices.ts", domain), transform(2, "src/domain/devices.ts", domain),
                                  line(id=3, method="didChange", params={"files": [f("src/domain/devices.ts")]}),
                                  transform(4, "src/domain/devices.ts", domain.replace("devices", "things")),
                                  line(id=5, method="didRemove", params={"files": [f("src/domain/devices.ts")]}),
                                  line(id="s", method="shutdown"), line(id=6, method="scan")]), "seed-session")
    put("serve_lines", transform(1, "src/x.test.ts", "import '@agent-surface/core'"), "seed-transform-outside")
    put("serve_lines", transform(1, "relative.ts", ""), "seed-transform-relative")
    for i, bad in enumerate(["{", "[]", '{"id":1}', '{"id":1,"method":"nope"}', '{"id":1,"method":"transform","params":{}}',
                             '{"id":[1,{"a":null}],"method":"didChange","params":{"files":[1]}}', '{"method":"scan","id":null}',
                             '"just a string"', '{"id":1,"method":"transform","params":{"file":"/","code":""}}']):
        put("serve_lines", bad, f"seed-bad-{i}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--out"] and len(args) == 2:
        CORPUS = pathlib.Path(args[1]).resolve()
    elif args:
        sys.exit("usage: python3 fuzz/make_seeds.py [--out DIR]")
    compile_file()
    manifest()
    schemas()
    serve()
    for t in sorted(os.listdir(CORPUS)):
        print(t, len(os.listdir(CORPUS / t)))
