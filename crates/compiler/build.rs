//! The compiler's fingerprint: a hash of the sources that decide what a compile produces (this
//! crate's, the model's and the schema crate's) and of the lock file. The disk cache
//! (`src/disk_cache.rs`) keys its results by it, so a build from other sources — even at the
//! same version — never reuses them. A published crate lacks the sibling folders: its version
//! then stands for them.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let here = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let inputs =
        [here.join("src"), here.join("../model/src"), here.join("../schema/src"), here.join("../../Cargo.lock")];
    let mut hasher = DefaultHasher::new();
    for input in &inputs {
        if input.exists() {
            println!("cargo:rerun-if-changed={}", input.display());
            let mut files = Vec::new();
            collect(input, &mut files);
            files.sort();
            for f in files {
                f.strip_prefix(&here).unwrap_or(&f).hash(&mut hasher);
                std::fs::read(&f).unwrap_or_default().hash(&mut hasher);
            }
        }
    }
    println!("cargo:rustc-env=AGENT_SURFACE_COMPILER_FINGERPRINT={:016x}", hasher.finish());
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    match std::fs::read_dir(path) {
        Ok(entries) => {
            for e in entries.flatten() {
                collect(&e.path(), out);
            }
        }
        Err(_) => out.push(path.to_path_buf()),
    }
}
