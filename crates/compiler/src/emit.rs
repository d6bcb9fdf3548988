//! Emit: write the manifest only when its bytes changed, atomically (a temp file in the same
//! folder, then rename), so a crash or a full disk never leaves a half-written manifest and the
//! previous one stays intact.

use std::io::Write;
use std::path::{Path, PathBuf};

/// What writing did.
#[derive(Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    Written,
    Unchanged,
}

pub fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<WriteOutcome> {
    if holds(path, contents.as_bytes()) {
        return Ok(WriteOutcome::Unchanged);
    }
    replace(path, contents, true).map(|_| WriteOutcome::Written)
}

/// Replaces `path` with `contents` through a temporary file and a rename: a reader sees the old
/// file or the new one, never a part. `durable`: synced to disk before the rename (a manifest);
/// a cache, which a crash may leave empty and which is then only rebuilt, skips that.
pub fn replace(path: &Path, contents: &str, durable: bool) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "manifest".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents.as_bytes())?;
        if durable {
            f.sync_all()?;
        }
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Whether the file at `path` holds exactly `contents`, read a block at a time (a manifest runs
/// to megabytes: reading it whole was a second copy at the compile's peak).
fn holds(path: &Path, contents: &[u8]) -> bool {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else { return false };
    if file.metadata().map(|m| m.len()).ok() != Some(contents.len() as u64) {
        return false;
    }
    let mut block = vec![0u8; 64 * 1024];
    let mut at = 0;
    loop {
        match file.read(&mut block) {
            Ok(0) => return at == contents.len(),
            Ok(n) if contents.get(at..at + n) == Some(&block[..n]) => at += n,
            Ok(_) | Err(_) => return false,
        }
    }
}

/// Where the locations sidecar of the manifest at `manifest` goes: beside it, its name without
/// a final `.json` plus `.locations.json` (`agent-surface.manifest.json` →
/// `agent-surface.manifest.locations.json`). No hash covers it and `--check` does not read it.
pub fn locations_path(manifest: &Path) -> PathBuf {
    let name = manifest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = name.strip_suffix(".json").unwrap_or(&name);
    manifest.with_file_name(format!("{stem}.locations.json"))
}

/// Writes the locations sidecar of the manifest at `manifest` (when its bytes changed).
pub fn write_locations(
    manifest: &Path,
    locations: &agent_surface_model::manifest::ContractLocations,
) -> std::io::Result<WriteOutcome> {
    write_if_changed(&locations_path(manifest), &locations.to_pretty_json())
}

/// `--check`: whether the manifest on disk is exactly what a compile would write.
#[derive(Debug, PartialEq, Eq)]
pub enum Freshness {
    Fresh,
    Missing,
    Stale,
}

pub fn freshness(path: &Path, contents: &str) -> Freshness {
    if !path.exists() {
        Freshness::Missing
    } else if holds(path, contents.as_bytes()) {
        Freshness::Fresh
    } else {
        Freshness::Stale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_only_on_change_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.json");
        assert_eq!(write_if_changed(&p, "a").unwrap(), WriteOutcome::Written);
        assert_eq!(write_if_changed(&p, "a").unwrap(), WriteOutcome::Unchanged);
        assert_eq!(write_if_changed(&p, "b").unwrap(), WriteOutcome::Written);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "b");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert_eq!(freshness(&p, "b"), Freshness::Fresh);
        assert_eq!(freshness(&p, "c"), Freshness::Stale);
        assert_eq!(freshness(&dir.path().join("x"), "c"), Freshness::Missing);
    }

    #[test]
    fn the_locations_sidecar_sits_beside_the_manifest() {
        assert_eq!(
            locations_path(Path::new("/p/agent-surface.manifest.json")),
            Path::new("/p/agent-surface.manifest.locations.json")
        );
        assert_eq!(locations_path(Path::new("out/m")), Path::new("out/m.locations.json"));
    }

    #[test]
    fn a_failed_write_keeps_the_previous_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("missing-dir/m.json");
        assert!(write_if_changed(&p, "a").is_err());
        assert!(!p.exists());
    }
}
