//! The compiler bench: the compiler against its physical floor, measured in one run on the same
//! files, every figure a median of several runs (the machine is shared and noisy, so ratios
//! against same-run baselines are what to compare).
//!
//!     cargo bench --bench compiler                      # 3,000 files / ~18 MB, 5 runs
//!     cargo bench --bench compiler -- --files 300 --runs 3 --seed 7
//!     cargo bench --bench compiler -- --generate DIR    # only write the project
//!
//! Under `cargo test` (no `--bench` argument) it runs once on a 10-file project and checks its
//! own report, so the bench cannot rot. See docs/performance.md.

mod corpus;
mod gen;

use agent_surface_compiler::compile::{compile_files, compile_shared, project_at};
use agent_surface_compiler::config::Config;
use agent_surface_compiler::discover::discover;
use agent_surface_compiler::prefilter::mentions_core;
use agent_surface_compiler::project::ChangeTracking;
use rayon::prelude::*;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_agent-surface");

// The binary's allocator, so in-process baselines and the spawned compiler allocate alike.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Clone)]
struct Options {
    bench: bool,
    files: usize,
    seed: u64,
    runs: usize,
    /// Iterations of the cheap measurements (warm recompile, single-file check).
    iterations: usize,
    dir: Option<PathBuf>,
    generate_only: Option<PathBuf>,
    /// `--inject N`: the tree without contracts, N of its files given one (gen.rs).
    inject: Option<usize>,
    /// `--corpus`: the real-shaped tree at several N (corpus.rs).
    corpus: bool,
    /// `--sizes 0,50,200,1000`: the N of `--corpus`.
    sizes: Vec<usize>,
    /// `--baseline-bin PATH`: another compiler measured in the same rounds (`--corpus`).
    baseline_bin: Option<PathBuf>,
    /// `--callgrind`: instruction counts too (`--corpus`; needs valgrind).
    callgrind: bool,
    /// `--profile warm|warm-rescan|warm-shared|cold|floor|check`: only loop that figure (for perf/callgrind), `iterations` times.
    profile: Option<String>,
}

fn parse_args() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let mut o = Options {
        bench,
        files: if bench { 3000 } else { 10 },
        seed: gen::GenOptions::default().seed,
        runs: if bench { 5 } else { 1 },
        iterations: if bench { 21 } else { 1 },
        dir: None,
        generate_only: None,
        inject: None,
        corpus: args.iter().any(|a| a == "--corpus"),
        sizes: vec![0, 50, 200, 1000],
        baseline_bin: None,
        callgrind: args.iter().any(|a| a == "--callgrind"),
        profile: None,
    };
    if o.corpus && bench {
        o.files = 3500;
    }
    let value = |i: usize| args.get(i + 1).cloned().unwrap_or_else(|| panic!("{} needs a value", args[i]));
    for (i, arg) in args.iter().enumerate() {
        match arg.as_str() {
            "--files" => o.files = value(i).parse().expect("--files N"),
            "--seed" => o.seed = parse_seed(&value(i)),
            "--runs" => o.runs = value(i).parse().expect("--runs N"),
            "--iterations" => o.iterations = value(i).parse().expect("--iterations N"),
            "--dir" => o.dir = Some(value(i).into()),
            "--generate" => o.generate_only = Some(value(i).into()),
            "--profile" => o.profile = Some(value(i)),
            "--inject" => o.inject = Some(value(i).parse().expect("--inject N")),
            "--sizes" => o.sizes = value(i).split(',').map(|n| n.trim().parse().expect("--sizes N,N,...")).collect(),
            "--baseline-bin" => o.baseline_bin = Some(value(i).into()),
            _ => {}
        }
    }
    o.runs = o.runs.max(1);
    o.iterations = o.iterations.max(1);
    o
}

fn parse_seed(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).expect("--seed 0xHEX"),
        None => s.parse().expect("--seed N"),
    }
}

/// The report: printed as it is produced, and kept for the smoke run's checks.
struct Report(String);

impl Report {
    fn line(&mut self, s: String) {
        println!("{s}");
        let _ = std::io::stdout().flush();
        self.0.push_str(&s);
        self.0.push('\n');
    }
}

fn median(xs: &[f64]) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

fn percentile(xs: &[f64], p: f64) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    s[(((s.len() as f64) * p) as usize).min(s.len() - 1)]
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "n/a".into())
}

// ---------------------------------------------------------------------------------------------
// Baselines: the same walk as the compiler, then read / prefilter / parse in parallel.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Floor {
    /// (a) walk + read all files
    Read,
    /// (b) (a) + the byte prefilter
    Prefilter,
    /// (c) (b) + swc parse of the files that pass the prefilter
    PrefilterParse,
    /// (d) walk + read + swc parse of every file
    ParseAll,
}

/// swc parse exactly as the compiler configures it (parse.rs), without its span bookkeeping.
fn swc_parse(path: &Path, text: &str) -> bool {
    use swc_common::BytePos;
    use swc_ecma_ast::EsVersion;
    use swc_ecma_parser::{lexer::Lexer, Parser, StringInput, Syntax, TsSyntax};
    let tsx = path.extension().is_some_and(|e| e == "tsx");
    let syntax = Syntax::Typescript(TsSyntax { tsx, decorators: true, ..Default::default() });
    let input = StringInput::new(text, BytePos(1), BytePos(1 + text.len() as u32));
    let mut parser = Parser::new_from(Lexer::new(syntax, EsVersion::latest(), input, None));
    let ok = parser.parse_module().is_ok();
    ok && parser.take_errors().is_empty()
}

struct FloorRun {
    ms: f64,
    files: usize,
    bytes: usize,
    passing: usize,
    parse_failures: usize,
}

fn floor(config: &Config, what: Floor) -> FloorRun {
    let t = Instant::now();
    let files = discover(config).expect("walk");
    let (bytes, passing, failures) = files
        .par_iter()
        .map(|p| {
            let text = String::from_utf8(std::fs::read(p).expect("read")).expect("UTF-8");
            let pass = what != Floor::Read && mentions_core(&text);
            let parse = match what {
                Floor::PrefilterParse => pass,
                Floor::ParseAll => true,
                _ => false,
            };
            let failed = parse && !swc_parse(p, &text);
            (text.len(), usize::from(pass), usize::from(failed))
        })
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    FloorRun { ms: ms_since(t), files: files.len(), bytes, passing, parse_failures: failures }
}

// ---------------------------------------------------------------------------------------------
// The compiler as a process
// ---------------------------------------------------------------------------------------------

fn run_compile(root: &Path) -> (f64, std::process::Output) {
    run_compile_with(root, &[])
}

fn run_compile_with(root: &Path, args: &[&std::ffi::OsStr]) -> (f64, std::process::Output) {
    let t = Instant::now();
    let out = Command::new(BIN)
        .arg("compile")
        .arg(root)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("spawn agent-surface");
    (ms_since(t), out)
}

fn run_check_stdin(root: &Path, file: &Path, text: &str) -> (f64, std::process::Output) {
    let t = Instant::now();
    let mut child = Command::new(BIN)
        .arg("check")
        .arg("--root")
        .arg(root)
        .arg("--stdin-filepath")
        .arg(file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agent-surface check");
    child.stdin.take().expect("stdin").write_all(text.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    (ms_since(t), out)
}

/// Peak resident memory (KiB) of a cold compile: GNU time's `%M` (ru_maxrss of the child).
fn peak_memory_kib(root: &Path) -> Option<u64> {
    peak_memory_kib_of(Path::new(BIN), root)
}

/// [`peak_memory_kib`] of another `agent-surface` binary.
fn peak_memory_kib_of(bin: &Path, root: &Path) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let out_file = std::env::temp_dir().join(format!("agent-surface-bench-maxrss-{}", std::process::id()));
    let status = Command::new(time)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&out_file)
        .arg(bin)
        .arg("compile")
        .arg(root)
        .output()
        .ok()?;
    let text = std::fs::read_to_string(&out_file).ok();
    let _ = std::fs::remove_file(&out_file);
    if !status.status.success() {
        return None;
    }
    text?.trim().lines().last()?.trim().parse().ok()
}

/// `agent-surface lsp` over stdio: open `file`, then edit and save it `iterations` times, as an
/// editor does (`didChange` to a new version, then `didSave` with the text); each figure is the
/// wall time from that pair to the `publishDiagnostics` of that file (the save compiles at once,
/// without the debounce; a save alone publishes nothing new). The first publish (the project's
/// first compile) is the cold figure.
fn lsp_latency(root: &Path, file: &Path, text: &str, iterations: usize) -> Result<(f64, Vec<f64>), String> {
    lsp_latency_with(Path::new(BIN), root, file, text, iterations)
}

/// [`lsp_latency`] of another `agent-surface` binary.
fn lsp_latency_with(
    bin: &Path,
    root: &Path,
    file: &Path,
    text: &str,
    iterations: usize,
) -> Result<(f64, Vec<f64>), String> {
    use std::io::{BufRead, BufReader, Read};
    use std::sync::mpsc;
    let mut child = Command::new(bin)
        .arg("lsp")
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel::<(Instant, serde_json::Value)>();
    let reader = std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        loop {
            let mut len = None;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length:") {
                    len = v.trim().parse::<usize>().ok();
                }
            }
            let Some(len) = len else { return };
            let mut body = vec![0; len];
            if r.read_exact(&mut body).is_err() {
                return;
            }
            let at = Instant::now();
            if let Ok(v) = serde_json::from_slice(&body) {
                if tx.send((at, v)).is_err() {
                    return;
                }
            }
        }
    });
    let send = |stdin: &mut std::process::ChildStdin, v: serde_json::Value| -> Result<Instant, String> {
        let body = v.to_string();
        let t = Instant::now();
        stdin
            .write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
            .map_err(|e| e.to_string())?;
        stdin.flush().map_err(|e| e.to_string())?;
        Ok(t)
    };
    let uri = format!("file://{}", file.display());
    let root_uri = format!("file://{}", root.display());
    let wait = |pred: &dyn Fn(&serde_json::Value) -> bool| -> Result<Instant, String> {
        loop {
            match rx.recv_timeout(std::time::Duration::from_secs(120)) {
                Ok((at, v)) if pred(&v) => return Ok(at),
                Ok(_) => {}
                Err(e) => return Err(format!("no answer from agent-surface lsp: {e}")),
            }
        }
    };
    let published =
        |v: &serde_json::Value| v["method"] == "textDocument/publishDiagnostics" && v["params"]["uri"] == uri.as_str();
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": null, "rootUri": root_uri, "capabilities": {},
            "workspaceFolders": [{"uri": root_uri, "name": "bench"}]
        }}),
    )?;
    wait(&|v| v["id"] == 1)?;
    send(&mut stdin, serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}))?;
    let t = send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "typescriptreact", "version": 1, "text": text}
        }}),
    )?;
    let cold = wait(&published)?.duration_since(t).as_secs_f64() * 1e3;
    let mut times = Vec::new();
    for i in 0..iterations {
        let edited = format!("{text}// edit {i}\n");
        let t = send(
            &mut stdin,
            serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": i + 2}, "contentChanges": [{"text": edited}]
            }}),
        )?;
        send(
            &mut stdin,
            serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {
                "textDocument": {"uri": uri}, "text": edited
            }}),
        )?;
        times.push(wait(&published)?.duration_since(t).as_secs_f64() * 1e3);
    }
    send(&mut stdin, serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))?;
    let _ = wait(&|v| v["id"] == 2);
    send(&mut stdin, serde_json::json!({"jsonrpc": "2.0", "method": "exit"}))?;
    drop(stdin);
    let _ = child.wait();
    let _ = reader.join();
    Ok((cold, times))
}

fn check_manifest(root: &Path, expected_contracts: usize) -> Result<(), String> {
    let text = std::fs::read_to_string(root.join("agent-surface.manifest.json")).map_err(|e| e.to_string())?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let status = value["completeness"]["status"].as_str().unwrap_or("");
    if status != "complete" {
        return Err(format!("manifest completeness is {status:?}"));
    }
    let found = value["contracts"].as_array().map_or(0, |a| a.len());
    if found != expected_contracts {
        return Err(format!("{found} contracts in the manifest, {expected_contracts} generated"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------

fn main() {
    let o = parse_args();
    let gen_opts = gen::GenOptions { files: o.files, seed: o.seed, inject: o.inject, ..Default::default() };
    if let Some(dir) = &o.generate_only {
        let s = gen::generate(dir, &gen_opts).expect("generate");
        println!(
            "generated {} files, {:.1} MB, {} contract files ({} contracts) in {} ({})",
            s.files,
            s.bytes as f64 / 1e6,
            s.contract_files,
            s.contracts,
            s.root.display(),
            s.hash
        );
        return;
    }
    let pool = rayon::ThreadPoolBuilder::new().stack_size(64 << 20).build().expect("thread pool");
    if let Some(what) = &o.profile {
        pool.install(|| profile_loop(&o, &gen_opts, what));
        return;
    }
    if o.corpus {
        let mut r = Report(String::new());
        pool.install(|| corpus::run(&o, &mut r));
        if !o.bench {
            corpus_checks(&r.0);
        }
        return;
    }
    let report = pool.install(|| run(&o, &gen_opts));
    if !o.bench {
        smoke_checks(&report.0);
        // The corpus mode too, on a tree small enough for a smoke run.
        let tiny = Options { files: 150, sizes: vec![0, 6], runs: 1, iterations: 1, dir: None, ..o.clone() };
        let mut r = Report(String::new());
        pool.install(|| corpus::run(&tiny, &mut r));
        corpus_checks(&r.0);
        println!("compiler bench smoke run: ok");
    }
}

/// Loops one figure for a profiler: `perf record -g -- <bench binary> --profile warm --bench`.
fn profile_loop(o: &Options, gen_opts: &gen::GenOptions, what: &str) {
    let root = o
        .dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("agent-surface-bench-{}-{:x}", o.files, o.seed)));
    // Written once: the profile then holds the compiler only.
    let exists = root.join("agent-surface.config.json").exists();
    let s = gen::generate_with(&root, gen_opts, !exists).expect("generate");
    let t = Instant::now();
    match what {
        "cold" => {
            for _ in 0..o.iterations {
                agent_surface_compiler::compile::compile(project_at(&root).expect("project")).expect("compile");
            }
        }
        "floor" => {
            let config = Config::load(&root).expect("config");
            for _ in 0..o.iterations {
                floor(&config, Floor::PrefilterParse);
            }
        }
        "warm" | "warm-rescan" | "warm-shared" => {
            // One contract file's buffer edited per compile, as in an editor (`warm-shared`: the
            // shared module every barrel lookup passes through).
            let project = Arc::new(project_at(&root).expect("project"));
            if what != "warm-rescan" {
                project.set_change_tracking(ChangeTracking::Reported);
            }
            compile_shared(project.clone()).expect("prime");
            let file = if what == "warm-shared" { &s.shared_file } else { &s.contract_file };
            let text = std::fs::read_to_string(file).expect("read");
            let t = Instant::now();
            for i in 0..o.iterations {
                project.set_overlay(file.clone(), Arc::from(format!("{text}// edit {i}\n").as_str()));
                compile_shared(project.clone()).expect("compile");
            }
            println!("{what}: {:.2} ms per compile", ms_since(t) / o.iterations as f64);
        }
        "check" => {
            let text: Arc<str> = Arc::from(std::fs::read_to_string(&s.check_file).expect("read").as_str());
            for _ in 0..o.iterations {
                let project = Arc::new(project_at(&root).expect("project"));
                project.set_overlay(s.check_file.clone(), text.clone());
                compile_files(project, std::slice::from_ref(&s.check_file));
            }
        }
        other => panic!("--profile warm|warm-rescan|warm-shared|cold|floor|check, not {other}"),
    }
    println!("{what}: {} iterations in {:.0} ms", o.iterations, ms_since(t));
}

/// What the smoke run (under `cargo test`) insists on.
fn smoke_checks(report: &str) {
    for needle in [
        "compile/floor ratio: ",
        "baseline (a) walk + read",
        "baseline (b)",
        "baseline (c)",
        "baseline (d)",
        "compile (process, cold)",
        "compile --cache-dir, empty cache",
        "cache warm/cold ratio: ",
        "warm recompile (reported), one contract file changed",
        "warm recompile (rescan), one contract file changed",
        "single-file check (process",
        "single-file check (in-process",
        "peak memory",
        "LSP didSave -> publishDiagnostics (",
        "deterministic: yes",
    ] {
        assert!(report.contains(needle), "the compiler bench report lacks {needle:?}:\n{report}");
    }
    let line = report.lines().find(|l| l.starts_with("compile/floor ratio: ")).expect("ratio line");
    let ratio: f64 = line["compile/floor ratio: ".len()..].split_whitespace().next().unwrap().parse().expect("a ratio");
    assert!(ratio.is_finite() && ratio > 0.0, "{line}");
}

/// What the corpus mode's smoke run insists on.
fn corpus_checks(report: &str) {
    for needle in [
        "corpus N=0: compile/floor ratio: ",
        "corpus N=6: compile/floor ratio: ",
        "corpus N=6: peak memory",
        "corpus LSP: didSave of a contract file",
        "corpus LSP: didSave of the shared module",
        "corpus marginal cost per contract file",
    ] {
        assert!(report.contains(needle), "the corpus report lacks {needle:?}:\n{report}");
    }
}

fn run(o: &Options, gen_opts: &gen::GenOptions) -> Report {
    let mut r = Report(String::new());
    let root = o.dir.clone().unwrap_or_else(|| {
        let name = if o.bench {
            format!("agent-surface-bench-{}-{:x}", o.files, o.seed)
        } else {
            format!("agent-surface-bench-smoke-{}", std::process::id())
        };
        std::env::temp_dir().join(name)
    });
    let load_start = loadavg();

    let t = Instant::now();
    let s = gen::generate(&root, gen_opts).expect("generate the project");
    let gen_ms = ms_since(t);
    // Same seed, same bytes: generate again elsewhere and compare.
    let again_dir = root.with_file_name(format!("{}-again", root.file_name().unwrap().to_string_lossy()));
    let again = gen::generate(&again_dir, gen_opts).expect("generate again");
    let _ = std::fs::remove_dir_all(&again_dir);
    let deterministic = again.hash == s.hash;
    assert!(deterministic, "the generator is not deterministic: {} vs {}", s.hash, again.hash);

    r.line(format!("agent-surface compiler bench ({} mode)", if o.bench { "bench" } else { "smoke" }));
    r.line(format!("binary: {BIN}"));
    r.line(format!(
        "machine: {} cores, load average {load_start} (start)",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    ));
    r.line(format!(
        "project: {} files, {:.1} MB, {} contract files ({} contracts), seed {:#x}, generated in {:.0} ms at {}",
        s.files,
        s.bytes as f64 / 1e6,
        s.contract_files,
        s.contracts,
        o.seed,
        gen_ms,
        root.display()
    ));
    r.line(format!("project hash: {} (deterministic: yes)", s.hash));
    r.line(format!("runs: {} (medians), iterations of the cheap figures: {}", o.runs, o.iterations));

    // Warm the page cache and prove the project compiles clean: exit 0, complete manifest,
    // every generated contract in it.
    let (_, out) = run_compile(&root);
    assert!(
        out.status.success(),
        "agent-surface compile failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if let Err(e) = check_manifest(&root, s.contracts) {
        panic!("the generated project does not compile clean: {e}\n{}", String::from_utf8_lossy(&out.stderr));
    }
    let summary = String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("").to_string();
    r.line(format!("compile output: {summary}"));

    let config = Config::load(&root).expect("config");
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut c = Vec::new();
    let mut d = Vec::new();
    let mut cold = Vec::new();
    let mut inproc = Vec::new();
    // `--cache-dir`: a compile into an empty cache, then one from it (nothing changed).
    let cache_dir = std::env::temp_dir().join(format!("agent-surface-bench-cache-{}", std::process::id()));
    let cache_args = [std::ffi::OsStr::new("--cache-dir"), cache_dir.as_os_str()];
    let (mut cache_cold, mut cache_warm) = (Vec::new(), Vec::new());
    let mut cache_summary = String::new();
    let (mut passing, mut bytes, mut nfiles) = (0, 0, 0);
    let mut diagnostics = 0;
    for _ in 0..o.runs {
        // Interleaved, so drift in the machine's load hits every figure alike.
        a.push(floor(&config, Floor::Read).ms);
        b.push(floor(&config, Floor::Prefilter).ms);
        let fc = floor(&config, Floor::PrefilterParse);
        assert_eq!(fc.parse_failures, 0, "generated files that pass the prefilter must parse");
        passing = fc.passing;
        c.push(fc.ms);
        let fd = floor(&config, Floor::ParseAll);
        assert_eq!(fd.parse_failures, 0, "every generated file must parse");
        (bytes, nfiles) = (fd.bytes, fd.files);
        d.push(fd.ms);
        let (ms, out) = run_compile(&root);
        assert!(out.status.success());
        cold.push(ms);
        let _ = std::fs::remove_dir_all(&cache_dir);
        let (ms, out) = run_compile_with(&root, &cache_args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        cache_cold.push(ms);
        let (ms, out) = run_compile_with(&root, &cache_args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let all = format!("; {0} of {0} contract file", s.contract_files);
        assert!(
            out.status.success() && stderr.contains(&all) && stderr.contains(" from the cache"),
            "a warm run compiled something: {stderr}"
        );
        cache_warm.push(ms);
        cache_summary = stderr.lines().last().unwrap_or("").to_string();
        let t = Instant::now();
        let comp = compile_shared(Arc::new(project_at(&root).expect("project"))).expect("compile");
        inproc.push(ms_since(t));
        diagnostics = comp.diagnostics.len();
        assert_eq!(comp.manifest().contracts.len(), s.contracts);
    }
    let (ma, mb, mc, md, mcold, minproc) =
        (median(&a), median(&b), median(&c), median(&d), median(&cold), median(&inproc));
    r.line(format!(
        "baseline (a) walk + read all files:                {ma:8.1} ms  ({nfiles} files, {:.1} MB)",
        bytes as f64 / 1e6
    ));
    r.line(format!("baseline (b) (a) + byte prefilter:                 {mb:8.1} ms  ({passing} files pass)"));
    r.line(format!("baseline (c) (b) + swc parse of passing files:     {mc:8.1} ms  (the floor)"));
    r.line(format!(
        "baseline (d) walk + read + swc parse of all files: {md:8.1} ms  ({:.0} MB/s)",
        bytes as f64 / 1e6 / (md / 1e3)
    ));
    r.line(format!(
        "compile (process, cold):                           {mcold:8.1} ms  (min {:.1}, max {:.1})",
        percentile(&cold, 0.0),
        percentile(&cold, 1.0)
    ));
    r.line(format!("compile (in-process, fresh Project):               {minproc:8.1} ms  ({diagnostics} diagnostics)"));
    r.line(format!("compile/floor ratio: {:.2} (compile {:.0} ms, floor {:.0} ms)", mcold / mc, mcold, mc));
    r.line(format!(
        "compile/parse-everything ratio: {:.2} (compile {:.0} ms, parse all {:.0} ms)",
        mcold / md,
        mcold,
        md
    ));
    r.line(format!("in-process compile/floor ratio: {:.2}", minproc / mc));
    let cache_bytes: u64 = std::fs::read_dir(&cache_dir)
        .map(|d| d.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(0);
    let _ = std::fs::remove_dir_all(&cache_dir);
    let (mcc, mcw) = (median(&cache_cold), median(&cache_warm));
    r.line(format!(
        "compile --cache-dir, empty cache (process):        {mcc:8.1} ms  ({:.2}x the compile without one)",
        mcc / mcold
    ));
    r.line(format!(
        "compile --cache-dir, warm (nothing changed):       {mcw:8.1} ms  (cache {:.1} MB; {cache_summary})",
        cache_bytes as f64 / 1e6
    ));
    r.line(format!(
        "cache warm/cold ratio: {:.2} (warm {mcw:.0} ms, cold compile {mcold:.0} ms); warm/(b) ratio: {:.2}",
        mcw / mcold,
        mcw / mb
    ));

    // Warm recompile: a long-lived Project, one file changed. Reported: the change is reported
    // to the project, as `--watch` and the language server (which watch the files) do. Rescan:
    // nobody reports changes (`serve`'s scan), so every file is read again.
    for tracking in [ChangeTracking::Reported, ChangeTracking::Rescan] {
        let project = Arc::new(project_at(&root).expect("project"));
        project.set_change_tracking(tracking);
        compile_shared(project.clone()).expect("prime");
        let mode = match tracking {
            ChangeTracking::Reported => "reported",
            ChangeTracking::Rescan => "rescan",
        };
        let warm = |file: &Path, label: &str, r: &mut Report, expect_parses: usize| {
            let original = std::fs::read_to_string(file).expect("read");
            let mut times = Vec::new();
            let mut reused = 0;
            for i in 0..o.iterations {
                std::fs::write(file, format!("{original}// touched {i}\n")).expect("touch");
                let before = project.parse_count();
                let t = Instant::now();
                project.file_changed(file);
                let comp = compile_shared(project.clone()).expect("recompile");
                times.push(ms_since(t));
                assert_eq!(project.parse_count() - before, expect_parses, "{label}: files parsed again");
                assert_eq!(comp.manifest().contracts.len(), s.contracts);
                reused = comp.reused;
            }
            std::fs::write(file, &original).expect("restore");
            project.file_changed(file);
            compile_shared(project.clone()).expect("settle");
            r.line(format!(
                "warm recompile ({mode}), {label}: median {:.1} ms (p90 {:.1} ms, n={}; {expect_parses} file parsed again, {reused} results reused)",
                median(&times),
                percentile(&times, 0.9),
                times.len()
            ));
        };
        warm(&s.contract_file, "one contract file changed", &mut r, 1);
        warm(&s.plain_file, "one plain component changed", &mut r, 0);
        let mut unchanged = Vec::new();
        for _ in 0..o.iterations {
            let t = Instant::now();
            compile_shared(project.clone()).expect("recompile");
            unchanged.push(ms_since(t));
        }
        r.line(format!("warm recompile ({mode}), nothing changed: median {:.1} ms", median(&unchanged)));
    }

    // Single-file check of the ~500-line contract file.
    let text = std::fs::read_to_string(&s.check_file).expect("read");
    let lines = text.lines().count();
    let rel = s.check_file.strip_prefix(&root).unwrap_or(&s.check_file).display().to_string();
    let mut proc_times = Vec::new();
    for _ in 0..o.iterations {
        let (ms, out) = run_check_stdin(&root, &s.check_file, &text);
        assert!(out.status.success(), "check --stdin-filepath failed:\n{}", String::from_utf8_lossy(&out.stderr));
        proc_times.push(ms);
    }
    // The same spawn, pipes and wait for a process that does nothing: what starting any
    // process costs this harness.
    let mut start_times = Vec::new();
    for _ in 0..o.iterations {
        let t = Instant::now();
        let out = Command::new(BIN)
            .arg("--version")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .expect("spawn --version");
        assert!(out.status.success());
        start_times.push(ms_since(t));
    }
    r.line(format!(
        "single-file check (process, check --stdin-filepath, {lines} lines, {rel}): median {:.1} ms (p90 {:.1} ms; `agent-surface --version` by the same harness: {:.1} ms)",
        median(&proc_times),
        percentile(&proc_times, 0.9),
        median(&start_times)
    ));
    let mut fresh = Vec::new();
    for _ in 0..o.iterations {
        let t = Instant::now();
        let project = Arc::new(project_at(&root).expect("project"));
        project.set_overlay(s.check_file.clone(), Arc::from(text.as_str()));
        let comp = compile_files(project, std::slice::from_ref(&s.check_file));
        fresh.push(ms_since(t));
        assert_eq!(comp.manifest().contracts.len(), 1);
        assert_eq!(comp.error_count(), 0);
    }
    r.line(format!("single-file check (in-process compile_files, fresh Project): median {:.2} ms", median(&fresh)));
    let project = Arc::new(project_at(&root).expect("project"));
    compile_shared(project.clone()).expect("prime");
    let mut edits = Vec::new();
    for i in 0..o.iterations {
        project.set_overlay(s.check_file.clone(), Arc::from(format!("{text}// edit {i}\n").as_str()));
        let before = project.parse_count();
        let t = Instant::now();
        let comp = compile_files(project.clone(), std::slice::from_ref(&s.check_file));
        edits.push(ms_since(t));
        assert_eq!(project.parse_count() - before, 1);
        assert_eq!(comp.error_count(), 0);
    }
    r.line(format!(
        "single-file check (in-process compile_files, warm Project, buffer edited): median {:.2} ms (p90 {:.2} ms)",
        median(&edits),
        percentile(&edits, 0.9)
    ));

    match lsp_latency(&root, &s.check_file, &text, o.iterations) {
        Ok((cold, times)) => r.line(format!(
            "LSP didSave -> publishDiagnostics ({lines}-line file, warm): median {:.1} ms (p90 {:.1} ms; first publish after didOpen {:.0} ms)",
            median(&times),
            percentile(&times, 0.9),
            cold
        )),
        Err(e) => r.line(format!("LSP didSave -> publishDiagnostics: failed ({e})")),
    }

    match peak_memory_kib(&root) {
        Some(kib) => r.line(format!("peak memory (cold compile, maxrss): {:.1} MB", kib as f64 / 1024.0)),
        None => r.line("peak memory (cold compile): n/a (no /usr/bin/time)".into()),
    }
    r.line(format!("load average {} (end)", loadavg()));
    if !o.bench && o.dir.is_none() {
        let _ = std::fs::remove_dir_all(&root);
    }
    r
}
