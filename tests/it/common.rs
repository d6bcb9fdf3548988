//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

/// The bundled example app.
pub fn example_app() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/devices-app")
}

/// Copies a fixture project, leaving out build output and installed packages.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap();
        if name == "node_modules" || name == "agent-surface.manifest.json" || name == "dist" {
            continue;
        }
        let target = to.join(name);
        if p.is_dir() {
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
        }
    }
}
