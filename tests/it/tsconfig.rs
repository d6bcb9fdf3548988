//! tsconfig as TypeScript reads it, on create-vite's react-ts layout: a solution
//! `tsconfig.json` whose `references` name `tsconfig.app.json` (owning `src`, with the `@/*`
//! alias shadcn/ui and most React apps add) and `tsconfig.node.json` (owning `vite.config.ts`).

use crate::common::run;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

const TSCONFIG: &str = r#"{
  "files": [],
  "references": [
    { "path": "./tsconfig.app.json" },
    { "path": "./tsconfig.node.json" }
  ]
}
"#;

/// create-vite's tsconfig.app.json (comments and all) with `baseUrl` and `paths` added.
fn tsconfig_app(paths: &str) -> String {
    format!(
        r#"{{
  "compilerOptions": {{
    "tsBuildInfoFile": "./node_modules/.tmp/tsconfig.app.tsbuildinfo",
    "target": "ES2022",
    "useDefineForClassFields": true,
    "lib": ["ES2022", "DOM", "DOM.Iterable"],
    "module": "ESNext",
    "types": ["vite/client"],
    "skipLibCheck": true,

    /* Bundler mode */
    "moduleResolution": "bundler",
    "allowImportingTsExtensions": true,
    "verbatimModuleSyntax": true,
    "moduleDetection": "force",
    "noEmit": true,
    "jsx": "react-jsx",

    /* Linting */
    "strict": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "erasableSyntaxOnly": true,
    "noFallthroughCasesInSwitch": true,
    "noUncheckedSideEffectImports": true{paths}
  }},
  "include": ["src"]
}}
"#
    )
}

const ALIAS: &str = ",\n\n    \"baseUrl\": \".\",\n    \"paths\": {\n      \"@/*\": [\"./src/*\"]\n    }";

const TSCONFIG_NODE: &str = r#"{
  "compilerOptions": {
    "tsBuildInfoFile": "./node_modules/.tmp/tsconfig.node.tsbuildinfo",
    "target": "ES2023",
    "lib": ["ES2023"],
    "module": "ESNext",
    "types": ["node"],
    "skipLibCheck": true,

    /* Bundler mode */
    "moduleResolution": "bundler",
    "allowImportingTsExtensions": true,
    "verbatimModuleSyntax": true,
    "moduleDetection": "force",
    "noEmit": true,

    /* Linting */
    "strict": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "erasableSyntaxOnly": true,
    "noFallthroughCasesInSwitch": true,
    "noUncheckedSideEffectImports": true
  },
  "include": ["vite.config.ts"]
}
"#;

const PANEL: &str = r#"import { defineAgentComponentContract } from "@agent-surface/core";
import { PANEL_TYPE, PANEL_DESCRIPTION } from "@/lib/ids";

export const panelContract = defineAgentComponentContract({
  type: PANEL_TYPE,
  description: PANEL_DESCRIPTION,
});
"#;

/// A create-vite react-ts app with `@/*` in tsconfig.app.json (or not) and a contract that
/// imports its type through the alias.
fn create_vite_app(parent: &Path, paths: &str) -> PathBuf {
    let app = std::fs::canonicalize(parent).unwrap().join("vite-project");
    write(&app, "package.json", r#"{ "name": "vite-project", "private": true, "version": "0.0.0", "type": "module" }"#);
    write(&app, "tsconfig.json", TSCONFIG);
    write(&app, "tsconfig.app.json", &tsconfig_app(paths));
    write(&app, "tsconfig.node.json", TSCONFIG_NODE);
    write(&app, "vite.config.ts", "import { defineConfig } from 'vite'\nexport default defineConfig({})\n");
    write(
        &app,
        "src/lib/ids.ts",
        "export const PANEL_TYPE = \"devices.panel\";\nexport const PANEL_DESCRIPTION = \"The devices panel\";\n",
    );
    write(&app, "src/components/Panel.tsx", PANEL);
    app
}

#[test]
fn the_app_projects_alias_resolves_in_src_and_only_there() {
    let tmp = tempfile::tempdir().unwrap();
    let app = create_vite_app(tmp.path(), ALIAS);
    let r = run(&app, &["compile", "--format", "json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let manifest = std::fs::read_to_string(app.join("agent-surface.manifest.json")).unwrap();
    assert!(manifest.contains("\"view:devices.panel\"") && manifest.contains("The devices panel"), "{manifest}");

    // vite.config.ts belongs to tsconfig.node.json, which has no alias: the same import there
    // does not resolve, as `tsc -b` would say too.
    write(&app, "vite.config.ts", &PANEL.replace("panelContract", "configContract"));
    let r = run(&app, &["check", "--format", "json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let out: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let files: Vec<&str> = out["diagnostics"].as_array().unwrap().iter().map(|d| d["file"].as_str().unwrap()).collect();
    assert!(!files.is_empty() && files.iter().all(|f| *f == "vite.config.ts"), "{}", r.stdout);
}

#[test]
fn without_the_alias_the_import_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let app = create_vite_app(tmp.path(), "");
    let r = run(&app, &["check", "--format", "json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("src/components/Panel.tsx") && r.stdout.contains("@/lib/ids"), "{}", r.stdout);
}

#[test]
fn watch_reloads_the_configuration_when_tsconfig_app_json_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let app = create_vite_app(tmp.path(), "");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-surface"))
        .args(["compile", "--watch"])
        .arg(&app)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next_build = || loop {
        let line = rx.recv_timeout(Duration::from_secs(30)).expect("a rebuild line within 30 s");
        if line.starts_with('[') {
            return line;
        }
    };
    let first = next_build();
    assert!(first.contains("[initial build]") && first.contains("0 contracts"), "{first}");
    write(&app, "tsconfig.app.json", &tsconfig_app(ALIAS));
    let reloaded = next_build();
    assert!(reloaded.contains("tsconfig.app.json") && reloaded.contains("1 contract"), "{reloaded}");
    child.kill().unwrap();
    let _ = child.wait();
}
