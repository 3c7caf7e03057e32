//! The `arbiter` command: parse the command line, wire an input to the
//! referee, print the events. Everything else lives in the library.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};

use arbiter::event::Event;
use arbiter::replay::referee_for;
use arbiter::script::Script;

/// The bundled demo game, replayed when no script is given.
const DEMO: &str = include_str!("../fixtures/scenarios/enprise/demo.toml");
const DEMO_NAME: &str = "fixtures/scenarios/enprise/demo.toml (bundled)";

#[derive(Parser)]
#[command(
    name = "arbiter",
    version,
    about = "A referee for chess card games played on a real table"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a table script through the referee and print its events.
    Replay {
        /// The table script (TOML); the bundled demo game when left out.
        script: Option<PathBuf>,
        /// Print the JSON Lines event stream instead of readable lines.
        #[arg(long)]
        json: bool,
    },
    /// Referee a live input with no screen, printing events as they happen.
    Watch {
        /// Where observations come from: `script:FILE`.
        #[arg(long)]
        input: String,
        /// Print the JSON Lines event stream instead of readable lines.
        #[arg(long)]
        json: bool,
    },
}

/// Bad input: exit status 2, per the README.
struct BadInput(anyhow::Error);

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(BadInput(e)) => {
            eprintln!("arbiter: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<(), BadInput> {
    match cli.command {
        Command::Replay { script, json } => {
            let script = match script {
                Some(path) => Script::load(&path).map_err(|e| BadInput(e.into()))?,
                None => Script::parse(DEMO_NAME, DEMO).map_err(|e| BadInput(e.into()))?,
            };
            referee_script(&script, json)
        }
        Command::Watch { input, json } => {
            let path = script_input(&input).map_err(BadInput)?;
            let script = Script::load(path).map_err(|e| BadInput(e.into()))?;
            referee_script(&script, json)
        }
    }
}

fn script_input(input: &str) -> anyhow::Result<&Path> {
    match input.split_once(':') {
        Some(("script", file)) if !file.is_empty() => Ok(Path::new(file)),
        Some((kind, _)) => {
            bail!("--input {input}: unknown input kind {kind:?} (this build reads script:FILE)")
        }
        None => bail!("--input {input}: write the input as KIND:WHERE, such as script:game.toml"),
    }
}

fn referee_script(script: &Script, json: bool) -> Result<(), BadInput> {
    let mut referee = referee_for(script).map_err(|e| BadInput(e.into()))?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut print = |events: Vec<Event>| -> io::Result<()> {
        for e in events {
            if json {
                writeln!(out, "{}", e.to_json_line())?;
            } else {
                writeln!(out, "{e}")?;
            }
        }
        out.flush()
    };
    let result = (|| {
        print(referee.start())?;
        for (i, obs) in script.observations().enumerate() {
            print(referee.observe(i, obs))?;
        }
        print(referee.finish(script.steps.len().saturating_sub(1)))?;
        io::Result::Ok(())
    })();
    match result {
        // A reader that stops early (`| head`) is no error of ours.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing the events").map_err(BadInput),
    }
}
