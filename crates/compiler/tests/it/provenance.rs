//! Provenance edits (DECISIONS §5): one insertion per compiled root macro call, carrying the
//! contract's id and hash from the manifest; failed contracts get none and stay inert.

use agent_surface_compiler::compile::{compile, project_at};
use agent_surface_compiler::provenance::{apply_edits, provenance_edits, provenance_literal};

#[test]
fn edits_add_id_and_hash_to_each_compiled_contract() {
    let root = crate::common::example_app();
    let c = compile(project_at(&root).unwrap()).unwrap();
    let file =
        agent_surface_compiler::paths::normalize(&std::path::absolute(root.join("src/domain/devices.ts")).unwrap());
    let edits = provenance_edits(&c, &file);
    assert_eq!(edits.len(), 3);
    let text = std::fs::read_to_string(&file).unwrap();
    let out = apply_edits(&text, &edits);
    for id in ["domain:devices.reboot", "domain:devices.tag", "domain:devices.label"] {
        let hash = c.manifest().contracts.iter().find(|m| m.id() == id).unwrap().contract_hash();
        assert!(out.contains(&format!(", {}", provenance_literal(id, hash))), "{out}");
    }
    // The edited text is still valid TypeScript: each literal became the call's last argument.
    let f = agent_surface_compiler::source::SourceFile::new(
        agent_surface_compiler::source::FileId(0),
        file.clone(),
        "x.ts".into(),
        out.clone().into(),
    );
    agent_surface_compiler::parse::parse_module(&f).expect("edited file parses");
    assert!(out.contains("defineProcedure({\n  id: \"domain:devices.reboot\""));
    assert!(out.contains("tags: [\"devices\"],\n}, {\"contractHash\":\"blake3:"), "{out}");
}

#[test]
fn failed_contracts_get_no_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let src = "import { defineAgentComponentContract as d } from '@agent-surface/core';\n\
               export const ok = d({ type: 'a', description: 'ok' });\n\
               export const bad = d({ type: 'B', description: 'bad' });\n\
               export const none = d();\n";
    std::fs::write(root.join("c.ts"), src).unwrap();
    let c = compile(project_at(root).unwrap()).unwrap();
    let file = agent_surface_compiler::paths::normalize(&std::fs::canonicalize(root).unwrap().join("c.ts"));
    let edits = provenance_edits(&c, &file);
    assert_eq!(edits.len(), 1, "{edits:?}");
    assert_eq!(&src[..edits[0].offset], "import { defineAgentComponentContract as d } from '@agent-surface/core';\nexport const ok = d({ type: 'a', description: 'ok' }");
}
