use clap::Parser;

fn main() -> std::process::ExitCode {
    // clap exits 2 on usage errors, as the exit-code contract wants.
    let cli = agent_surface::cli::Cli::parse();
    agent_surface::cli::run(cli)
}
