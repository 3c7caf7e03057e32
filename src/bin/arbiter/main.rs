//! The `arbiter` command: parse the command line, start the log, run the
//! command. Each command lives in its own module under `commands/`; the
//! library holds everything else.
//!
//! Every failure is reported here, once: `arbiter: what went wrong` on
//! stderr and exit status 2 (bad input: a file, a port, an option). Clap
//! reports a malformed command line with the same status.

mod args;
mod commands;
mod input_spec;
mod log;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let mut to_file = false;
    let result = log::init(&cli).and_then(|file| {
        to_file = file;
        commands::run(cli.command)
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let line = one_line(&e);
            if to_file {
                tracing::error!("{line}");
            }
            log::give_back_stderr();
            eprintln!("arbiter: {line}");
            ExitCode::from(2)
        }
    }
}

/// The error and its causes on one line, each said once: a layer that
/// already put its cause's words in its own message (`cannot open the
/// journal: No such file or directory`) is not followed by the same words
/// again.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let said = cause.to_string();
        if line.contains(&said) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&said);
    }
    line
}
