use clap::Parser;

// The compiler allocates (and frees) an AST node at a time: mimalloc is markedly faster than
// the system allocator here (docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // clap exits 2 on usage errors, as the exit-code contract wants.
    let cli = agent_surface::cli::Cli::parse();
    agent_surface::cli::run(cli)
}
