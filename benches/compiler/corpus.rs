//! The corpus mode (`--corpus`, issue 20): one real-shaped tree, generated without contracts
//! and with contracts injected into N of its files (gen.rs, `--inject`), compiled at each N
//! against its own floor, in one run:
//!
//!     cargo bench --bench compiler -- --corpus                       # 3,500 files, N = 0, 50, 200, 1000
//!     cargo bench --bench compiler -- --corpus --sizes 50,1000 --runs 9
//!     cargo bench --bench compiler -- --corpus --baseline-bin OLD    # and another compiler, same run
//!     cargo bench --bench compiler -- --corpus --callgrind           # plus instruction counts
//!
//! For each N: the floor (walk + read + prefilter + parse of the files that pass, the
//! project's definition) and the cold compile as a process, interleaved, medians of `--runs`;
//! their ratio; peak memory; at the largest N the language server's save latencies (a
//! contract file, and the shared zod module every barrel lookup passes through). With
//! `--baseline-bin` the other binary is measured in the same rounds and must write
//! byte-identical manifests. With `--callgrind` (valgrind installed) the compiles and the floor
//! are also counted in instructions, which do not depend on the machine's load.

use crate::{floor, lsp_latency_with, median, ms_since, peak_memory_kib_of, percentile, Floor, Options, Report, BIN};
use agent_surface_compiler::config::Config;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Manifests the compiler before issue 20 wrote for the default corpus (3,500 files, the
/// default seed): every later compiler must write the same bytes.
const KNOWN_MANIFESTS: &[(usize, usize, &str)] = &[
    // (files, N, blake3 of the manifest file)
    (3500, 50, "blake3:2432b6e6b905a7b159e3d9064518af91e220e2c587ee76d63816e0130c798800"),
    (3500, 200, "blake3:6da9e512ca0c3e6a12dfd8fc893e549a3f012ead9aba1b405bb9c885227e4734"),
    (3500, 1000, "blake3:5edbab695a91f6ae62b8f1a60f91feef1c53151042b8cacf0d257a1b6ad70aae"),
];

fn compile_process(bin: &Path, root: &Path) -> (f64, std::process::Output) {
    let t = Instant::now();
    let out = Command::new(bin).arg("compile").arg(root).stdin(Stdio::null()).output().expect("spawn a compiler");
    (ms_since(t), out)
}

fn manifest_hash(root: &Path) -> String {
    let bytes = std::fs::read(root.join("agent-surface.manifest.json")).expect("a manifest");
    format!("blake3:{}", blake3::hash(&bytes).to_hex())
}

/// Instructions of one run of `cmd` under callgrind (`None`: no valgrind).
fn instructions(cmd: &mut Command) -> Option<u64> {
    let out = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).output().ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().find(|l| l.contains("Collected :"))?;
    line.rsplit(':').next()?.trim().replace(',', "").parse().ok()
}

fn callgrind(args: &[&std::ffi::OsStr]) -> Command {
    let mut c = Command::new("valgrind");
    c.arg("--tool=callgrind").arg("--callgrind-out-file=/dev/null").args(args);
    c
}

/// Instructions of a cold compile.
fn compile_instructions(bin: &Path, root: &Path) -> Option<u64> {
    instructions(callgrind(&[bin.as_os_str(), "compile".as_ref(), root.as_os_str()]).stdin(Stdio::null()))
}

/// Instructions of one pass of the floor: the bench's floor loop run for 2 iterations minus 1
/// (the rest is generating the project's summary in memory).
fn floor_instructions(o: &Options, root: &Path, n: usize) -> Option<u64> {
    let me = std::env::current_exe().ok()?;
    let run = |iterations: usize| {
        let (files, seed, it, n) = (o.files.to_string(), format!("{}", o.seed), iterations.to_string(), n.to_string());
        instructions(&mut callgrind(&[
            me.as_os_str(),
            "--bench".as_ref(),
            "--profile".as_ref(),
            "floor".as_ref(),
            "--files".as_ref(),
            files.as_ref(),
            "--seed".as_ref(),
            seed.as_ref(),
            "--inject".as_ref(),
            n.as_ref(),
            "--iterations".as_ref(),
            it.as_ref(),
            "--dir".as_ref(),
            root.as_os_str(),
        ]))
    };
    Some(run(2)?.saturating_sub(run(1)?))
}

fn giga(i: u64) -> String {
    format!("{:.3} G", i as f64 / 1e9)
}

struct Size {
    n: usize,
    floor_ms: f64,
    compile_ms: f64,
    baseline_ms: Option<f64>,
    compile_instr: Option<u64>,
    baseline_instr: Option<u64>,
    floor_instr: Option<u64>,
}

pub fn run(o: &Options, r: &mut Report) {
    let sizes = o.sizes.clone();
    let base_dir = o.dir.clone().unwrap_or_else(std::env::temp_dir);
    let baseline = o.baseline_bin.clone();
    let own = PathBuf::from(BIN);
    r.line(format!("corpus: load average {} (start)", crate::loadavg()));
    r.line(format!(
        "corpus: {} files, seed {:#x}, contract files injected N = {}, runs {} (medians){}",
        o.files,
        o.seed,
        sizes.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "),
        o.runs,
        baseline.as_ref().map(|b| format!(", baseline binary {}", b.display())).unwrap_or_default()
    ));
    let mut results = Vec::new();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    for &n in &sizes {
        let root = base_dir.join(format!("agent-surface-corpus-{}-{:x}-{n}", o.files, o.seed));
        let opts = crate::gen::GenOptions { files: o.files, seed: o.seed, inject: Some(n), ..Default::default() };
        let s = crate::gen::generate(&root, &opts).expect("generate the corpus");
        r.line(format!(
            "corpus N={n}: {} files, {:.1} MB, {} contract files ({} contracts), {}",
            s.files,
            s.bytes as f64 / 1e6,
            s.contract_files,
            s.contracts,
            s.hash
        ));
        // Warm the page cache, prove it compiles clean, and compare the manifests.
        let (_, out) = compile_process(&own, &root);
        assert!(out.status.success(), "compile N={n} failed:\n{}", String::from_utf8_lossy(&out.stderr));
        crate::check_manifest(&root, s.contracts).unwrap_or_else(|e| panic!("corpus N={n}: {e}"));
        let hash = manifest_hash(&root);
        if let Some((.., known)) = KNOWN_MANIFESTS.iter().find(|(f, k, _)| *f == o.files && *k == n) {
            if o.seed == crate::gen::GenOptions::default().seed {
                assert_eq!(
                    &hash, known,
                    "corpus N={n}: the manifest differs from the one the compiler before issue 20 wrote"
                );
            }
        }
        if let Some(b) = &baseline {
            let (_, out) = compile_process(b, &root);
            assert!(out.status.success(), "the baseline binary failed on N={n}");
            let theirs = manifest_hash(&root);
            assert_eq!(hash, theirs, "corpus N={n}: the manifests of the two binaries differ");
            // Leave our own manifest on disk.
            compile_process(&own, &root);
        }
        r.line(format!(
            "corpus N={n}: manifest {hash}{}",
            if baseline.is_some() { " (byte-identical to the baseline's)" } else { "" }
        ));
        let config = Config::load(&root).expect("config");
        let (mut fl, mut co, mut ba) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..o.runs {
            let f = floor(&config, Floor::PrefilterParse);
            assert_eq!(f.parse_failures, 0);
            fl.push(f.ms);
            co.push(compile_process(&own, &root).0);
            if let Some(b) = &baseline {
                ba.push(compile_process(b, &root).0);
            }
        }
        let (floor_ms, compile_ms) = (median(&fl), median(&co));
        let baseline_ms = (!ba.is_empty()).then(|| median(&ba));
        r.line(format!(
            "corpus N={n}: floor {floor_ms:.1} ms, compile (process, cold) {compile_ms:.1} ms (min {:.1}){}",
            percentile(&co, 0.0),
            baseline_ms
                .map(|b| format!(", baseline compile {b:.1} ms (min {:.1})", percentile(&ba, 0.0)))
                .unwrap_or_default()
        ));
        r.line(format!(
            "corpus N={n}: compile/floor ratio: {:.2}{}",
            compile_ms / floor_ms,
            baseline_ms.map(|b| format!(" (baseline {:.2})", b / floor_ms)).unwrap_or_default()
        ));
        let mem = |bin: &Path| peak_memory_kib_of(bin, &root).map(|k| format!("{:.1} MB", k as f64 / 1024.0));
        r.line(format!(
            "corpus N={n}: peak memory (cold compile, maxrss) {}{}",
            mem(&own).unwrap_or_else(|| "n/a".into()),
            baseline
                .as_ref()
                .map(|b| format!(" (baseline {})", mem(b).unwrap_or_else(|| "n/a".into())))
                .unwrap_or_default()
        ));
        let (mut compile_instr, mut baseline_instr, mut floor_instr) = (None, None, None);
        if o.callgrind {
            compile_instr = compile_instructions(&own, &root);
            baseline_instr = baseline.as_ref().and_then(|b| compile_instructions(b, &root));
            floor_instr = floor_instructions(o, &root, n);
            if let (Some(c), Some(f)) = (compile_instr, floor_instr) {
                r.line(format!(
                    "corpus N={n}: instructions: compile {}, floor {}, compile/floor {:.2}{}",
                    giga(c),
                    giga(f),
                    c as f64 / f as f64,
                    baseline_instr
                        .map(|b| format!("; baseline compile {} ({:.2})", giga(b), b as f64 / f as f64))
                        .unwrap_or_default()
                ));
            } else {
                r.line(format!("corpus N={n}: instructions: n/a (valgrind not found)"));
            }
        }
        if n == largest && n > 0 && o.iterations > 0 {
            lsp_figures(o, r, &root, &s);
        }
        results.push(Size { n, floor_ms, compile_ms, baseline_ms, compile_instr, baseline_instr, floor_instr });
        if !o.bench {
            let _ = std::fs::remove_dir_all(&root);
        }
    }
    r.line(format!("corpus: load average {} (end)", crate::loadavg()));
    // Marginal cost per contract file: between the smallest and the largest N.
    let (Some(lo), Some(hi)) = (results.iter().min_by_key(|s| s.n), results.iter().max_by_key(|s| s.n)) else { return };
    if hi.n > lo.n {
        let per = |a: f64, b: f64| (b - a) / (hi.n - lo.n) as f64;
        r.line(format!(
            "corpus marginal cost per contract file (N={} -> {}): compile {:.3} ms, floor {:.3} ms{}",
            lo.n,
            hi.n,
            per(lo.compile_ms, hi.compile_ms),
            per(lo.floor_ms, hi.floor_ms),
            match (lo.baseline_ms, hi.baseline_ms) {
                (Some(a), Some(b)) => format!(", baseline compile {:.3} ms", per(a, b)),
                _ => String::new(),
            }
        ));
        if let (Some(a), Some(b), Some(fa), Some(fb)) =
            (lo.compile_instr, hi.compile_instr, lo.floor_instr, hi.floor_instr)
        {
            let per = |a: u64, b: u64| (b as f64 - a as f64) / (hi.n - lo.n) as f64 / 1e6;
            r.line(format!(
                "corpus marginal instructions per contract file (N={} -> {}): compile {:.2} M, floor {:.2} M, beyond the floor {:.2} M{}",
                lo.n,
                hi.n,
                per(a, b),
                per(fa, fb),
                per(a, b) - per(fa, fb),
                match (lo.baseline_instr, hi.baseline_instr) {
                    (Some(x), Some(y)) => format!("; baseline compile {:.2} M", per(x, y)),
                    _ => String::new(),
                }
            ));
        }
    }
}

/// The language server at the largest N: saving a contract file, and saving the shared module
/// every barrel lookup passes through (a comment added: no contract's value changes).
fn lsp_figures(o: &Options, r: &mut Report, root: &Path, s: &crate::gen::GenSummary) {
    let importers = |needle: &str| {
        walk(root)
            .into_iter()
            .filter(|p| {
                std::fs::read_to_string(p).is_ok_and(|t| t.contains("@agent-surface/core") && t.contains(needle))
            })
            .count()
    };
    let binaries: Vec<(String, PathBuf)> = std::iter::once(("".to_string(), PathBuf::from(BIN)))
        .chain(o.baseline_bin.iter().map(|b| (" (baseline)".to_string(), b.clone())))
        .collect();
    for (label, bin) in &binaries {
        let text = std::fs::read_to_string(&s.contract_file).expect("read");
        let rel = s.contract_file.strip_prefix(root).unwrap_or(&s.contract_file).display().to_string();
        match lsp_latency_with(bin, root, &s.contract_file, &text, o.iterations) {
            Ok((cold, times)) => r.line(format!(
                "corpus LSP{label}: didSave of a contract file ({rel}) -> publishDiagnostics: median {:.1} ms (p90 {:.1} ms; first publish {cold:.0} ms)",
                median(&times),
                percentile(&times, 0.9)
            )),
            Err(e) => r.line(format!("corpus LSP{label}: failed ({e})")),
        }
        let text = std::fs::read_to_string(&s.shared_file).expect("read");
        let rel = s.shared_file.strip_prefix(root).unwrap_or(&s.shared_file).display().to_string();
        let barrel = importers("shared/zod\";");
        match lsp_latency_with(bin, root, &s.shared_file, &text, o.iterations) {
            Ok((_, times)) => r.line(format!(
                "corpus LSP{label}: didSave of the shared module {rel} (every barrel lookup of {barrel} contract files passes through it) -> publishDiagnostics: median {:.1} ms (p90 {:.1} ms)",
                median(&times),
                percentile(&times, 0.9)
            )),
            Err(e) => r.line(format!("corpus LSP{label}: failed ({e})")),
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "ts" || x == "tsx") {
            out.push(p);
        }
    }
    out
}
