//! The command line: `agent-surface compile | check | verify`. Exit codes: 0 no errors (warnings
//! allowed) or a verified manifest, 1 errors or too many warnings or a stale manifest under
//! `--check` or a manifest `verify` refuses, 2 usage or configuration errors or an unreadable file.

use agent_surface_compiler::compile::{compile, compile_cached, manifest_text, project_at, Compilation};
use agent_surface_compiler::diagnostics::Diagnostic;
use agent_surface_compiler::disk_cache::DiskCache;
use agent_surface_compiler::emit::{
    freshness, locations_path, write_if_changed, write_locations, Freshness, WriteOutcome,
};
use agent_surface_compiler::render::{self, pretty::PrettyOptions};
use clap::{Args, Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "agent-surface", version, about = "Compile a TypeScript/React app's agent contracts into a verified capability manifest", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Compile the project's contracts and write the manifest
    Compile(CompileArgs),
    /// Report diagnostics without writing anything
    Check(CheckArgs),
    /// Verify a manifest as the runtime's CapabilityAuthority would (hashes, completeness, format)
    Verify(VerifyArgs),
    /// Run a long-lived compiler for tools (the Vite plugin) over newline-delimited JSON
    Serve(ServeArgs),
    /// Show the exact tool block a model would receive for a manifest
    Tools(ToolsArgs),
    /// Run the language server for editors (LSP over stdin/stdout; docs/editors.md)
    Lsp(LspArgs),
    /// Serve live pages to an MCP client: MCP over stdin/stdout, pages over a loopback WebSocket
    /// (docs/bridge.md)
    Bridge(BridgeArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
}

#[derive(Args, Debug)]
pub struct LspArgs {
    /// Speak LSP on stdin/stdout (the default and only transport; accepted because editor
    /// clients pass it)
    #[arg(long)]
    pub stdio: bool,
}

#[derive(Args, Debug)]
pub struct BridgeArgs {
    /// Serve MCP over Streamable HTTP at http://HOST:PORT/mcp (the pages' port) instead of
    /// stdio; clients send the bridge's token as `Authorization: Bearer <token>`
    #[arg(long)]
    pub http: bool,
    /// The port pages connect to, and with --http MCP clients too (0 picks a free one; the
    /// stderr lines say which)
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The address to listen on (keep it loopback)
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// A page origin allowed to connect, matched exactly (repeatable). Without it only
    /// http://localhost:* and http://127.0.0.1:* pages are accepted
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct ToolsArgs {
    /// The manifest file (verified first)
    pub manifest: PathBuf,
    /// One tool per capability, or the three meta tools (experimental)
    #[arg(long, value_enum, default_value_t = ToolMode::Direct)]
    pub mode: ToolMode,
    /// Adapt to a provider's tool format (default: the neutral AgentTool shape)
    #[arg(long, value_enum)]
    pub provider: Option<ProviderArg>,
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
}

/// `--format` of `verify` and `tools`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Source frames with labels (miette).
    Pretty,
    /// One JSON document: `{"schemaVersion":1,"diagnostics":[...]}`.
    Json,
}

/// `--format` of `check` and `compile`: the compiler's [`render::DiagnosticFormat`], as a flag.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiagnosticFormat {
    /// Source frames with labels (miette), on stderr.
    Pretty,
    /// One JSON document on stdout.
    Json,
    /// GitHub Actions annotations on stdout.
    Github,
    /// SARIF 2.1.0 on stdout.
    Sarif,
}

impl From<DiagnosticFormat> for render::DiagnosticFormat {
    fn from(f: DiagnosticFormat) -> Self {
        match f {
            DiagnosticFormat::Pretty => render::DiagnosticFormat::Pretty,
            DiagnosticFormat::Json => render::DiagnosticFormat::Json,
            DiagnosticFormat::Github => render::DiagnosticFormat::Github,
            DiagnosticFormat::Sarif => render::DiagnosticFormat::Sarif,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ToolMode {
    Direct,
    Meta,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProviderArg {
    Openai,
    Anthropic,
    Gemini,
    Mcp,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Speak the protocol on stdin/stdout (docs/serve-protocol.md)
    #[arg(long, required = true)]
    pub stdio: bool,
    /// Project root
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Worker threads of the scans (default: one per core; a bundler's plugin asks for fewer:
    /// the bundler wants the cores, and idle workers spin on them)
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// Output format of diagnostics
    #[arg(long, value_enum, default_value_t = DiagnosticFormat::Pretty)]
    pub format: DiagnosticFormat,
    /// Fail (exit 1) when there are more than N warnings
    #[arg(long, value_name = "N")]
    pub max_warnings: Option<usize>,
    /// Worker threads (default: one per core)
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

#[derive(Args, Debug)]
pub struct CompileArgs {
    /// Project root (holds agent-surface.config.json or package.json; a folder inside a project
    /// compiles that project). Default: the project of the working directory
    pub root: Option<PathBuf>,
    /// Manifest path (default: the config's `output`, else agent-surface.manifest.json at ROOT).
    /// Where each contract is written goes beside it, to agent-surface.manifest.locations.json
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write nothing; exit 1 if the manifest on disk is missing or stale (the locations sidecar,
    /// FILE's name with `.locations.json`, is not compared)
    #[arg(long, conflicts_with = "watch")]
    pub check: bool,
    /// Recompile on every change; rewrite the manifest only when it changed
    #[arg(long)]
    pub watch: bool,
    /// Keep each contract file's result in DIR, keyed by the content hash of every file it read:
    /// the next run parses and evaluates only what changed (for CI caches; docs/ci.md)
    #[arg(long, value_name = "DIR", conflicts_with = "watch")]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or folders to report on (default: the whole project). Without --root, their
    /// project is found by walking up to the nearest agent-surface.config.json, package.json with
    /// an "agentSurface" key, or else package.json
    pub paths: Vec<PathBuf>,
    /// Lint the text on stdin as if it were this file (imports resolve from disk)
    #[arg(long, value_name = "PATH", conflicts_with = "paths")]
    pub stdin_filepath: Option<PathBuf>,
    /// Project root (default: the project of PATHS, or of the working directory; with
    /// --stdin-filepath, the working directory)
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// As `compile --cache-dir`: reuse and keep each contract file's result in DIR
    #[arg(long, value_name = "DIR", conflicts_with = "stdin_filepath")]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The manifest file to verify
    pub manifest: PathBuf,
    /// Output format: one summary line, or one JSON document on stdout
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
}

/// Runs the CLI; returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    let threads = match &cli.command {
        Command::Compile(a) => Some(a.common.threads),
        Command::Check(a) if a.stdin_filepath.is_none() => Some(a.common.threads),
        Command::Lsp(_) => Some(None),
        // Its reader and its scan thread both hand their compiles to a pool of its own (below).
        Command::Serve(_) => None,
        // The bridge runs its own (tokio) threads and parses nothing.
        Command::Bridge(args) => {
            // A token kept in a client's configuration comes from the environment, never from
            // the command line (argv is visible to every user of the machine).
            let token = std::env::var(agent_surface_bridge::TOKEN_ENV).ok().filter(|t| !t.is_empty());
            let options = agent_surface_bridge::BridgeOptions {
                host: args.host.clone(),
                port: args.port,
                allow_origins: args.allow_origin.clone(),
                token,
            };
            return if args.http {
                agent_surface_bridge::run_http(options)
            } else {
                agent_surface_bridge::run_stdio(options)
            };
        }
        // One file, one manifest, one completion script: nothing to do in parallel, and a pool
        // of workers costs more to start (about 1.4 ms) than `check --stdin-filepath` takes.
        Command::Check(_) | Command::Verify(_) | Command::Tools(_) | Command::Completions(_) => None,
    };
    let Some(threads) = threads else {
        return on_big_stack(move || run_command(cli.command));
    };
    let pool = match worker_pool(threads) {
        Ok(p) => p,
        Err(e) => return usage_error(&e),
    };
    pool.install(|| run_command(cli.command))
}

/// The workers that parse: `threads` of them (default: one per core), each with a parser-sized stack.
fn worker_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .stack_size(WORKER_STACK)
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))
}

/// Deeply nested sources recurse deeply in the parser: every thread that parses gets room.
const WORKER_STACK: usize = 64 << 20;

/// Runs `f` on one thread with a parser-sized stack.
fn on_big_stack(f: impl FnOnce() -> ExitCode + Send + 'static) -> ExitCode {
    match std::thread::Builder::new().name("agent-surface".into()).stack_size(WORKER_STACK).spawn(f) {
        Ok(worker) => worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(e) => usage_error(&format!("cannot start a worker thread: {e}")),
    }
}

fn run_command(command: Command) -> ExitCode {
    match command {
        Command::Compile(args) => run_compile(args),
        Command::Check(args) => run_check(args),
        Command::Verify(args) => run_verify(args),
        Command::Serve(args) => run_serve(args),
        Command::Tools(args) => run_tools(args),
        Command::Lsp(_) => ExitCode::from(agent_surface_lsp::run_stdio()),
        Command::Bridge(_) => unreachable!("run() serves the bridge itself"),
        Command::Completions(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut out = Vec::new();
            clap_complete::generate(args.shell, &mut cmd, "agent-surface", &mut out);
            write_quietly(&mut std::io::stdout(), &String::from_utf8_lossy(&out));
            ExitCode::SUCCESS
        }
    }
}

/// The man pages: `agent-surface.1` and one page per subcommand (`agent-surface-compile.1`...),
/// generated from the clap definitions. `tests/it/man.rs` checks that `man/` is current.
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    let cmd = <Cli as clap::CommandFactory>::command().version(env!("CARGO_PKG_VERSION"));
    let mut pages = Vec::new();
    let mut render = |c: clap::Command, name: String| {
        let mut buf = Vec::new();
        clap_mangen::Man::new(c).render(&mut buf).expect("render to memory");
        pages.push((format!("{name}.1"), buf));
    };
    render(cmd.clone(), "agent-surface".into());
    for sub in cmd.get_subcommands() {
        let name = format!("agent-surface-{}", sub.get_name());
        render(sub.clone().name(name.clone()), name);
    }
    pages
}

fn run_tools(args: ToolsArgs) -> ExitCode {
    use agent_surface_engine::providers::{tool_block, Provider};
    use agent_surface_engine::toolset::{catalog_from_manifest, ToolsetMode};
    let text = match std::fs::read_to_string(&args.manifest) {
        Ok(t) => t,
        Err(e) => return usage_error(&format!("cannot read the manifest {}: {e}", args.manifest.display())),
    };
    let authority = match agent_surface_engine::authority::CapabilityAuthority::from_json_str(&text) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {}: {e}", args.manifest.display());
            return ExitCode::from(1);
        }
    };
    let mode = match args.mode {
        ToolMode::Direct => ToolsetMode::Direct,
        ToolMode::Meta => ToolsetMode::Meta,
    };
    let tools = catalog_from_manifest(&authority, mode);
    let provider = args.provider.map(|p| match p {
        ProviderArg::Openai => Provider::OpenAi,
        ProviderArg::Anthropic => Provider::Anthropic,
        ProviderArg::Gemini => Provider::Gemini,
        ProviderArg::Mcp => Provider::Mcp,
    });
    let entries: Vec<serde_json::Value> = match provider {
        Some(p) => match tool_block(&tools, p) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("error: {}: {e}", p.as_str());
                return ExitCode::from(1);
            }
        },
        None => tools.iter().map(|t| serde_json::to_value(t).expect("tool serializes")).collect(),
    };
    let sizes: Vec<usize> = entries.iter().map(|e| serde_json::to_string(e).map(|s| s.len()).unwrap_or(0)).collect();
    let total: usize = sizes.iter().sum();
    let out = match args.format {
        Format::Json => {
            let doc = serde_json::json!({ "provider": provider.map(|p| p.as_str()), "mode": if mode == ToolsetMode::Meta { "meta" } else { "direct" }, "tools": entries, "totalBytes": total });
            format!("{doc}\n")
        }
        Format::Pretty => {
            let mut s = String::new();
            for (e, size) in entries.iter().zip(&sizes) {
                s.push_str(&format!(
                    "── {} ({size} bytes)\n{}\n",
                    tool_name(e),
                    serde_json::to_string_pretty(e).unwrap_or_default()
                ));
            }
            s.push_str(&format!(
                "{} tool{}, {total} bytes ({}, {} mode)\n",
                entries.len(),
                plural(entries.len()),
                provider.map(|p| p.as_str()).unwrap_or("neutral"),
                if mode == ToolsetMode::Meta { "meta" } else { "direct" }
            ));
            s
        }
    };
    write_quietly(&mut std::io::stdout(), &out);
    ExitCode::SUCCESS
}

fn tool_name(e: &serde_json::Value) -> String {
    e.get("name")
        .or_else(|| e.get("function").and_then(|f| f.get("name")))
        .and_then(|n| n.as_str())
        .unwrap_or("?")
        .to_string()
}

fn run_serve(args: ServeArgs) -> ExitCode {
    if !args.root.is_dir() {
        return usage_error(&format!("the project root {} is not a folder", args.root.display()));
    }
    let project = match project_at(&args.root) {
        Ok(p) => p,
        Err(e) => return usage_error(&e.to_string()),
    };
    // One pool for every compile of the session: a scan on the scan thread outside any pool would
    // otherwise start rayon's global pool beside this one (twice the idle workers, spinning on
    // the cores a bundler is using, and without the parser-sized stacks).
    let pool = match worker_pool(args.threads) {
        Ok(p) => p,
        Err(e) => return usage_error(&e),
    };
    match crate::serve::run_stdio(crate::serve::Server::new(project), pool) {
        Ok(()) => ExitCode::SUCCESS,
        // The client went away mid-write: nothing left to tell anyone.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: serve: {e}");
            ExitCode::from(2)
        }
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// An absolute, normalized path (relative to the working directory).
fn absolute(p: &Path) -> PathBuf {
    agent_surface_compiler::paths::normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

/// A root given on the command line must be a folder.
fn given_root(root: &Path) -> Result<PathBuf, ExitCode> {
    if !root.exists() {
        return Err(usage_error(&format!("the project root {} does not exist", root.display())));
    }
    if !root.is_dir() {
        return Err(usage_error(&format!("the project root {} is not a folder", root.display())));
    }
    Ok(absolute(root))
}

/// Walks up from `start` to its project (see [`find_root`]); none is a usage error, never a
/// compile of whatever folder we happen to be in (from `/`, the whole file system).
///
/// [`find_root`]: agent_surface_compiler::config::find_root
fn project_of(start: &Path) -> Result<PathBuf, ExitCode> {
    agent_surface_compiler::config::find_root(start).ok_or_else(|| {
        usage_error(&format!(
            "no project found for {}: no {} or package.json in it or any folder above it; pass --root DIR, or add a package.json",
            start.display(),
            agent_surface_compiler::config::CONFIG_FILE
        ))
    })
}

/// The root of `compile [ROOT]`: ROOT's project (ROOT itself when it holds the configuration or
/// a package.json, or when no folder above it does), else the working directory's project.
fn compile_root(root: Option<&Path>) -> Result<PathBuf, ExitCode> {
    match root {
        Some(root) => {
            let root = given_root(root)?;
            Ok(agent_surface_compiler::config::find_root(&root).unwrap_or(root))
        }
        None => project_of(&absolute(Path::new("."))),
    }
}

/// The root of `check [PATHS] [--root DIR]`: DIR, which must hold every PATH; else the one
/// project every PATH (or the working directory) belongs to.
fn check_root(root: Option<&Path>, paths: &[PathBuf]) -> Result<PathBuf, ExitCode> {
    for p in paths {
        if !p.exists() {
            return Err(usage_error(&format!("{} does not exist", absolute(p).display())));
        }
    }
    if let Some(root) = root {
        let root = given_root(root)?;
        if let Some(outside) = paths.iter().map(|p| absolute(p)).find(|p| !p.starts_with(&root)) {
            return Err(usage_error(&format!(
                "{} is outside the project root {} given with --root",
                outside.display(),
                root.display()
            )));
        }
        return Ok(root);
    }
    let starts =
        if paths.is_empty() { vec![absolute(Path::new("."))] } else { paths.iter().map(|p| absolute(p)).collect() };
    let mut found: Vec<(PathBuf, PathBuf)> = Vec::new();
    for start in starts {
        let root = project_of(&start)?;
        if let Some((other_root, other)) = found.iter().find(|(r, _)| *r != root) {
            return Err(usage_error(&format!(
                "{} belongs to the project {} but {} to {}: check one project at a time, or pass --root DIR",
                other.display(),
                other_root.display(),
                start.display(),
                root.display()
            )));
        }
        found.push((root, start));
    }
    Ok(found.swap_remove(0).0)
}

/// Compiles the project at `root`, with the results kept in `cache_dir` when one is given
/// (saved before returning: a cache that cannot be read or written is a warning, never a
/// failure, since it only saves work).
fn load(root: &Path, cache_dir: Option<&Path>) -> Result<Compilation, ExitCode> {
    let project = project_at(root).map_err(|e| usage_error(&e.to_string()))?;
    let opened = cache_dir.map(|dir| DiskCache::open(&absolute(dir), &project));
    let cache = match opened {
        Some(Ok((cache, note))) => {
            if let Some(note) = note {
                eprintln!("warning: {note}");
            }
            cache
        }
        Some(Err(e)) => {
            eprintln!("warning: {e}; compiling without a cache");
            return compile(project).map_err(|e| usage_error(&e.to_string()));
        }
        None => return compile(project).map_err(|e| usage_error(&e.to_string())),
    };
    let c = compile_cached(project, &cache).map_err(|e| usage_error(&e.to_string()))?;
    if let Err(e) = cache.save() {
        eprintln!("warning: {e}");
    }
    Ok(c.with_cache_stats(cache.stats()))
}

/// Prints diagnostics in the chosen format; returns whether they fail the run.
fn report(c: &Compilation, diags: &[Diagnostic], common: &CommonArgs) -> bool {
    for s in &c.skipped {
        eprintln!("warning: skipped {s}");
    }
    let db = &c.project.db;
    let text = render::render(common.format.into(), diags, db, || {
        let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        PrettyOptions { color, width: terminal_width() }
    });
    match common.format {
        DiagnosticFormat::Pretty => write_quietly(&mut std::io::stderr(), &text),
        _ => write_quietly(&mut std::io::stdout(), &text),
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    errors > 0 || common.max_warnings.is_some_and(|max| warnings > max)
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(100)
}

/// Writes, ignoring a closed pipe (`| head`).
fn write_quietly(w: &mut dyn Write, text: &str) {
    let _ = w.write_all(text.as_bytes());
    let _ = w.flush();
}

fn summary(c: &Compilation) -> String {
    let errors = c.error_count();
    let warnings = c.warning_count();
    let mut s = format!(
        "{} contract{} from {} file{} ({} scanned) in {} ms",
        c.contracts.len(),
        if c.contracts.len() == 1 { "" } else { "s" },
        c.candidates,
        if c.candidates == 1 { "" } else { "s" },
        c.files.len(),
        c.elapsed.as_millis()
    );
    if errors + warnings > 0 {
        s.push_str(&format!("; {errors} error{}, {warnings} warning{}", plural(errors), plural(warnings)));
    }
    if let Some(cache) = c.cache_stats {
        let files = cache.hits + cache.misses;
        s.push_str(&format!("; {} of {files} contract file{} from the cache", cache.hits, plural(files)));
    }
    s
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn run_compile(args: CompileArgs) -> ExitCode {
    let root = match compile_root(args.root.as_deref()) {
        Ok(r) => r,
        Err(code) => return code,
    };
    if args.watch {
        return crate::watch::run(&crate::watch::WatchOptions { root, out: args.out.clone() });
    }
    let c = match load(&root, args.cache_dir.as_deref()) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let failed = report(&c, &c.diagnostics, &args.common);
    let out = match &args.out {
        Some(p) => std::path::absolute(p).unwrap_or_else(|_| p.clone()),
        None => c.project.config.output.clone(),
    };
    let text = manifest_text(&c);
    let shown = display_path(&out);
    let status = c.completeness().status;
    if args.check {
        let fresh = freshness(&out, &text);
        let line = match fresh {
            Freshness::Fresh => format!("{shown} is up to date: {}", summary(&c)),
            Freshness::Missing => format!("{shown} is missing: run `agent-surface compile`"),
            Freshness::Stale => format!("{shown} is stale: run `agent-surface compile` and commit the result"),
        };
        eprintln!("{line}");
        return if failed || fresh != Freshness::Fresh { ExitCode::from(1) } else { ExitCode::SUCCESS };
    }
    match write_if_changed(&out, &text) {
        Ok(outcome) => {
            let what = match outcome {
                WriteOutcome::Written => "written",
                WriteOutcome::Unchanged => "unchanged",
            };
            eprintln!("{} → {shown} ({what}, {})", summary(&c), status_word(status));
        }
        Err(e) => {
            eprintln!("error: cannot write the manifest {shown}: {e}");
            return ExitCode::from(2);
        }
    }
    // Where each contract is written, beside the manifest but outside it: a hint for tools, so
    // a failure to write it does not fail the compile.
    if let Err(e) = write_locations(&out, &c.locations()) {
        eprintln!("warning: cannot write the contract locations {}: {e}", display_path(&locations_path(&out)));
    }
    // The process ends now: freeing every module and syntax tree one by one would only delay
    // that (it was a fifth of a cold compile's time).
    std::mem::forget(c);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn status_word(s: agent_surface_model::manifest::CompletenessStatus) -> &'static str {
    match s {
        agent_surface_model::manifest::CompletenessStatus::Complete => "complete",
        agent_surface_model::manifest::CompletenessStatus::Incomplete => "incomplete",
    }
}

fn display_path(p: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    match cwd.as_deref().and_then(|c| p.strip_prefix(c).ok()) {
        Some(rel) => rel.display().to_string(),
        None => p.display().to_string(),
    }
}

fn run_check(args: CheckArgs) -> ExitCode {
    if let Some(path) = &args.stdin_filepath {
        return run_check_stdin(&args, path);
    }
    let root = match check_root(args.root.as_deref(), &args.paths) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let c = match load(&root, args.cache_dir.as_deref()) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let selected: Vec<PathBuf> = args.paths.iter().map(|p| absolute(p)).collect();
    let diags: Vec<Diagnostic> = c
        .diagnostics
        .iter()
        .filter(|d| {
            selected.is_empty() || selected.iter().any(|s| c.project.db.get(d.primary.span.file).path.starts_with(s))
        })
        .cloned()
        .collect();
    let failed = report(&c, &diags, &args.common);
    if args.common.format == DiagnosticFormat::Pretty {
        eprintln!("{}", summary(&c));
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `{"ok":true,...}` / `{"ok":false,...}` of `verify --format json` (fields in this order).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct VerifyOk<'a> {
    ok: bool,
    contracts: usize,
    manifest_hash: &'a str,
}

#[derive(serde::Serialize)]
struct VerifyRefused<'a> {
    ok: bool,
    error: VerifyError<'a>,
}

#[derive(serde::Serialize)]
struct VerifyError<'a> {
    kind: &'static str,
    message: String,
    contract: Option<&'a str>,
}

/// `check --stdin-filepath PATH`: the buffer on stdin stands for PATH; the rest of the
/// project is read from disk. Only PATH's diagnostics are reported.
fn run_check_stdin(args: &CheckArgs, path: &Path) -> ExitCode {
    use std::io::Read;
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        return usage_error(&format!("cannot read stdin as UTF-8 text: {e}"));
    }
    // As before: the root given, or the working directory (editors run it from the project).
    let root = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    if !root.is_dir() {
        return usage_error(&format!("the project root {} is not a folder", root.display()));
    }
    let project = match project_at(&root) {
        Ok(p) => p,
        Err(e) => return usage_error(&e.to_string()),
    };
    let abs =
        agent_surface_compiler::paths::normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    project.set_overlay(abs.clone(), std::sync::Arc::from(text.as_str()));
    let c = agent_surface_compiler::compile::compile_files(std::sync::Arc::new(project), std::slice::from_ref(&abs));
    let diags: Vec<Diagnostic> =
        c.diagnostics.iter().filter(|d| c.project.db.get(d.primary.span.file).path == abs).cloned().collect();
    if report(&c, &diags, &args.common) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn run_verify(args: VerifyArgs) -> ExitCode {
    use agent_surface_engine::authority::{AuthorityError, CapabilityAuthority};
    use agent_surface_model::manifest::ManifestContract;
    let shown = args.manifest.display();
    let bytes = match std::fs::read(&args.manifest) {
        Ok(b) => b,
        Err(e) => return usage_error(&format!("cannot read the manifest {shown}: {e}")),
    };
    // Bytes that are not UTF-8 are a refused manifest (exit 1), not an unreadable file.
    let verified = String::from_utf8(bytes)
        .map_err(|e| AuthorityError::NotJson(format!("not UTF-8: {e}")))
        .and_then(|text| CapabilityAuthority::from_json_str(&text));
    match verified {
        Ok(authority) => {
            let m = authority.manifest();
            let count = |f: fn(&ManifestContract) -> bool| m.contracts.iter().filter(|c| f(c)).count();
            let components = count(|c| matches!(c, ManifestContract::Component(_)));
            let procedures = count(|c| matches!(c, ManifestContract::Procedure(_)));
            let tools = count(|c| matches!(c, ManifestContract::ExternalTool(_)));
            let text = match args.format {
                Format::Json => {
                    let doc = VerifyOk { ok: true, contracts: m.contracts.len(), manifest_hash: authority.manifest_hash() };
                    format!("{}\n", serde_json::to_string(&doc).expect("serializable"))
                }
                Format::Pretty => format!(
                    "verified {shown}: {} contract{} ({components} component{}, {procedures} procedure{}, {tools} external tool{}), manifestHash {}\n",
                    m.contracts.len(),
                    plural(m.contracts.len()),
                    plural(components),
                    plural(procedures),
                    plural(tools),
                    authority.manifest_hash()
                ),
            };
            write_quietly(&mut std::io::stdout(), &text);
            ExitCode::SUCCESS
        }
        Err(e) => {
            match args.format {
                Format::Json => {
                    let doc = VerifyRefused {
                        ok: false,
                        error: VerifyError { kind: e.kind(), message: e.to_string(), contract: e.contract() },
                    };
                    write_quietly(
                        &mut std::io::stdout(),
                        &format!("{}\n", serde_json::to_string(&doc).expect("serializable")),
                    );
                }
                Format::Pretty => write_quietly(&mut std::io::stderr(), &format!("error: {shown}: {e}\n")),
            }
            ExitCode::from(1)
        }
    }
}
