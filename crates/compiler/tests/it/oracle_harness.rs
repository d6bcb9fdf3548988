//! What the differential tests of the schema libraries with one run per corpus entry share (zod
//! 4 in each io mode, zod 3, ArkType): run the real library (`node oracle.mjs` in `test-tools/<tool>`), compile one
//! module per entry, compare structurally, and snapshot the refusals. `schema_libs_oracle`
//! (Valibot, TypeBox: several modes per entry) shares the comparison.

use agent_surface_compiler::compile::compile;
use agent_surface_compiler::config::Config;
use agent_surface_compiler::paths::normalize;
use agent_surface_compiler::project::Project;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// Structural equality: object key order ignored, numbers compared as doubles.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The schema without its root `$schema` (the one normalisation every library shares).
pub fn without_dialect(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
    }
    v
}

/// Writes one module per corpus entry (`r<i>.ts`, contract `domain:<prefix>.r<i>` whose output
/// schema is the entry's) and the project's package.json.
pub type WriteProject = fn(&Path, &[&Value], &str);

/// Runs `oracle.mjs` in `dir`: the runs it prints (its summary line left out), and the corpus
/// entries by name.
pub fn run_oracle(dir: &Path) -> (Vec<Value>, HashMap<String, Value>) {
    let out = Command::new("node").arg("oracle.mjs").current_dir(dir).output().expect("node runs (install Node.js)");
    assert!(out.status.success(), "oracle failed: {}", String::from_utf8_lossy(&out.stderr));
    let runs = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("summary").is_none())
        .collect();
    let corpus = std::fs::read_to_string(dir.join("corpus.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["name"].as_str().unwrap().to_string(), v)
        })
        .collect();
    (runs, corpus)
}

/// Every run of `test-tools/<tool>` (installed: `marker` exists) against the compiler: 0 wrong,
/// no in-subset case refused, every out-of-subset case refused.
pub fn differential(tool: &str, marker: &str, write_project: WriteProject) {
    let dir = crate::common::npm_tool(tool, marker);
    let (runs, corpus) = run_oracle(&dir);
    // A run's `io` (zod 4 converts each expression in both modes) reaches the writer as its
    // entry's `io`, as a refusal entry's own `io` does.
    let entries: Vec<Value> = runs
        .iter()
        .map(|r| {
            let mut e = corpus[r["name"].as_str().unwrap()].clone();
            if let (Some(io), Some(o)) = (r.get("io"), e.as_object_mut()) {
                o.insert("io".into(), io.clone());
            }
            e
        })
        .collect();
    let entries: Vec<&Value> = entries.iter().collect();
    let tmp = tempfile::tempdir().unwrap();
    let root = normalize(&std::fs::canonicalize(tmp.path()).unwrap());
    write_project(&root, &entries, "oracle");
    let c = compile(Project::new(Config::load(&root).unwrap())).unwrap();
    let by_id: HashMap<&str, &agent_surface_model::manifest::ManifestContract> =
        c.manifest().contracts.iter().map(|m| (m.id(), m)).collect();

    let (mut matched, mut refused, mut refused_in_subset, mut wrong) = (0, 0, Vec::new(), Vec::new());
    for (i, run) in runs.iter().enumerate() {
        let name = match run.get("io").and_then(Value::as_str) {
            Some(io) => format!("{} ({io})", run["name"].as_str().unwrap()),
            None => run["name"].as_str().unwrap().to_string(),
        };
        let entry = entries[i];
        let file = format!("r{i}.ts");
        let errors: Vec<String> = c
            .diagnostics
            .iter()
            .filter(|d| d.is_error() && c.project.db.get(d.primary.span.file).rel == file)
            .map(|d| format!("{} {}", d.code.id(), d.message))
            .collect();
        let ours = by_id.get(format!("domain:oracle.r{i}").as_str()).map(|m| match m {
            agent_surface_model::manifest::ManifestContract::Procedure(p) => {
                p.output_schema.clone().unwrap_or(Value::Null)
            }
            _ => Value::Null,
        });
        if entry["expect"] == "refuse" {
            if errors.is_empty() {
                wrong.push(format!(
                    "{name}: out of subset but accepted; ours = {}",
                    ours.map(|o| o.to_string()).unwrap_or_default()
                ));
            } else {
                refused += 1;
            }
            continue;
        }
        let theirs = without_dialect(&run["schema"]);
        match ours {
            Some(o) if same(&without_dialect(&o), &theirs) => matched += 1,
            Some(o) => wrong.push(format!("{name}:\n    lib  {theirs}\n    ours {}", without_dialect(&o))),
            None => refused_in_subset.push(format!("{name}: {}", errors.join(" | "))),
        }
    }
    println!(
        "{tool}: {matched} matched, {} in-subset refused, {refused} out-of-subset refused, {} wrong",
        refused_in_subset.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
    // The goal is every in-subset case; the figure in docs/schemas.md is this one.
    assert!(refused_in_subset.is_empty(), "in-subset cases refused:\n{}", refused_in_subset.join("\n"));
}

/// Every refused corpus construct of `test-tools/<tool>` gets a pointed diagnostic with a help,
/// snapshotted one line per construct into `snapshots/<snapshots>/refusals.snap` (no Node needed).
pub fn refusals(tool: &str, snapshots: &str, write_project: WriteProject) {
    let dir = crate::common::repo().join("test-tools").join(tool);
    let corpus = std::fs::read_to_string(dir.join("corpus.jsonl")).unwrap();
    let entries: Vec<Value> =
        corpus.lines().map(|l| serde_json::from_str(l).unwrap()).filter(|e: &Value| e["expect"] == "refuse").collect();
    let refs: Vec<&Value> = entries.iter().collect();
    let tmp = tempfile::tempdir().unwrap();
    let root = normalize(&std::fs::canonicalize(tmp.path()).unwrap());
    write_project(&root, &refs, "refuse");
    let c = compile(Project::new(Config::load(&root).unwrap())).unwrap();
    let mut lines = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let file = format!("r{i}.ts");
        let d = c
            .diagnostics
            .iter()
            .find(|d| d.is_error() && c.project.db.get(d.primary.span.file).rel == file)
            .unwrap_or_else(|| panic!("{} was not refused", e["name"]));
        assert!(d.help.is_some(), "{}: refusal without help", e["name"]);
        let f = c.project.db.get(d.primary.span.file);
        let at = f.line_col(d.primary.span.lo);
        let under: String = f.text[d.primary.span.lo as usize..d.primary.span.hi as usize].chars().take(40).collect();
        lines.push(format!(
            "{} [{}] {}:{} `{}` {}\n    help: {}",
            e["name"].as_str().unwrap(),
            d.code.id(),
            at.line,
            at.column,
            under.replace('\n', " "),
            d.message,
            d.help.as_deref().unwrap_or("")
        ));
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots").join(snapshots));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!("refusals", lines.join("\n")));
}
