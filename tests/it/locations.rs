//! Edits that change no contract's meaning — a comment or an import added above a contract, a
//! contract moved within its file or to another file — change neither the manifest's bytes nor
//! its hash, and `compile --check` keeps passing; only the locations sidecar follows them. A
//! real contract change still changes both and fails the check (manifest format 2,
//! docs/manifest.md "Source locations").

use crate::common::{example_app, run, scratch_copy};
use serde_json::Value;
use std::path::Path;

struct Compiled {
    manifest: String,
    hash: String,
    locations: Value,
}

fn compile(app: &Path) -> Compiled {
    let r = run(app, &["compile"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let manifest = std::fs::read_to_string(app.join("agent-surface.manifest.json")).unwrap();
    let v: Value = serde_json::from_str(&manifest).unwrap();
    let locations: Value =
        serde_json::from_str(&std::fs::read_to_string(app.join("agent-surface.manifest.locations.json")).unwrap())
            .unwrap();
    assert_eq!(locations["manifestHash"], v["manifestHash"], "the sidecar names the manifest it goes with");
    Compiled { manifest, hash: v["manifestHash"].as_str().unwrap().to_string(), locations }
}

fn check(app: &Path) -> i32 {
    let r = run(app, &["compile", "--check"]);
    r.code
}

fn edit(path: &Path, f: impl FnOnce(String) -> String) {
    let text = std::fs::read_to_string(path).unwrap();
    let changed = f(text.clone());
    assert_ne!(changed, text, "the edit changed {}", path.display());
    std::fs::write(path, changed).unwrap();
}

fn at(c: &Compiled, id: &str) -> (String, u64) {
    let l = &c.locations["locations"][id];
    (l["file"].as_str().unwrap().to_string(), l["line"].as_u64().unwrap())
}

#[test]
fn edits_that_change_no_contract_leave_the_manifest_and_its_hash_alone() {
    let (app, _dir) = scratch_copy(&example_app());
    let base = compile(&app);
    assert!(!base.manifest.contains("\"source\""), "format 2 has no source in the manifest");
    assert!(!base.manifest.contains(".tsx"), "the manifest names no source file");
    assert_eq!(check(&app), 0);
    let table = app.join("src/components/DevicesTable.tsx");
    let (file, line) = at(&base, "view:devices.table");
    assert_eq!(file, "src/components/DevicesTable.tsx");

    // A comment above the contract.
    edit(&table, |t| {
        t.replace(
            "export const devicesTableContract",
            "// The table's agent contract.\n// (Two lines.)\nexport const devicesTableContract",
        )
    });
    let commented = compile(&app);
    assert_eq!(commented.manifest, base.manifest, "a comment changed the manifest");
    assert_eq!(commented.hash, base.hash);
    assert_eq!(check(&app), 0, "compile --check fails after a comment");
    assert_eq!(at(&commented, "view:devices.table"), (file.clone(), line + 2));

    // An import at the top of the file (the recommended layout: contracts next to their
    // components, whose imports come and go).
    edit(&table, |t| format!("import {{ useRef }} from \"react\";\n{t}"));
    let imported = compile(&app);
    assert_eq!(imported.manifest, base.manifest, "an import changed the manifest");
    assert_eq!(imported.hash, base.hash);
    assert_eq!(check(&app), 0, "compile --check fails after an import");
    assert_eq!(at(&imported, "view:devices.table"), (file.clone(), line + 3));

    // A contract moved within its file: the label procedure above the reboot one.
    let devices = app.join("src/domain/devices.ts");
    edit(&devices, |t| {
        let start = t.find("export const labelDevice").unwrap();
        let end = start + t[start..].find("\n});\n").unwrap() + "\n});\n".len();
        let moved = t[start..end].to_string();
        let without = format!("{}{}", &t[..start], &t[end..]);
        without.replacen("export const rebootDevices", &format!("{moved}\nexport const rebootDevices"), 1)
    });
    let reordered = compile(&app);
    assert_eq!(reordered.manifest, base.manifest, "reordering contracts changed the manifest");
    assert_eq!(check(&app), 0);
    assert!(at(&reordered, "domain:devices.label").1 < at(&reordered, "domain:devices.reboot").1);

    // A contract moved to another file (and folder).
    std::fs::create_dir_all(app.join("src/reports")).unwrap();
    std::fs::rename(app.join("src/external/reports.ts"), app.join("src/reports/export.ts")).unwrap();
    let moved = compile(&app);
    assert_eq!(moved.manifest, base.manifest, "moving a contract to another file changed the manifest");
    assert_eq!(check(&app), 0);
    assert_eq!(at(&moved, "external:reports.export").0, "src/reports/export.ts");

    // Compiling again writes the same bytes, sidecar included.
    let again = compile(&app);
    assert_eq!((again.manifest, again.locations), (moved.manifest, moved.locations.clone()));

    // A stale or missing sidecar never fails the check: it is not compared.
    std::fs::remove_file(app.join("agent-surface.manifest.locations.json")).unwrap();
    assert_eq!(check(&app), 0);
    assert!(!app.join("agent-surface.manifest.locations.json").exists(), "--check writes nothing");

    // A real change of meaning: the manifest and its hash change, and the check fails first.
    edit(&table, |t| t.replace("priority: 10,", "priority: 11,"));
    assert_eq!(check(&app), 1, "compile --check passes after a contract changed");
    let changed = compile(&app);
    assert_ne!(changed.manifest, base.manifest);
    assert_ne!(changed.hash, base.hash);
    assert_eq!(check(&app), 0);
}
