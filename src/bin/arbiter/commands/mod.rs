//! One module per command; `run` sends the command line to its module.
//! Every failure comes back as an `anyhow::Error` for `main` to report.

mod device;
mod images;
mod mat;
mod play;
mod replay;
mod setup;
mod watch;

use anyhow::Result;

use crate::args::{Command, DeckCommand, ServeArgs, SpeakArgs};

/// Starts the spectator page if `--serve` asks for it: its output for the
/// game's session, and a line saying where to look.
pub fn spectators(serve: &ServeArgs) -> Result<Option<Spectators>> {
    let Some(addr) = &serve.serve else {
        return Ok(None);
    };
    let (page, output) = arbiter_web::serve(addr)?;
    let mut said = format!("spectators can watch at {}", page.url());
    let mut short = page.url();
    if page.on_the_network() {
        said += &format!(
            " (served on the network, {}: anyone who can reach this machine can watch)",
            page.addr
        );
        short += " (on the network)";
    }
    tracing::info!("{said}");
    Ok(Some(Spectators {
        said,
        short,
        output: Box::new(output),
    }))
}

/// The voice if `--speak` asks for it. Where the machine has none, that
/// is said once, and the game goes on unspoken: a missing voice is no
/// reason to stop a game.
pub fn speaker(speak: &SpeakArgs) -> Option<Box<dyn arbiter::session::Output>> {
    if !speak.speak {
        return None;
    }
    match arbiter::speak::Speaker::system() {
        Ok(s) => Some(Box::new(s)),
        Err(e) => {
            let said = format!("--speak: {e}; the game goes on without speech");
            // Once on stderr, whatever the log's level or file; the log
            // (info: a file's, not stderr's) keeps it beside the game.
            tracing::info!("{said}");
            eprintln!("arbiter: {said}");
            None
        }
    }
}

/// The spectator page started: what to tell the players, at length and
/// for a status line, and the session's output.
pub struct Spectators {
    pub said: String,
    pub short: String,
    pub output: Box<dyn arbiter::session::Output>,
}

pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Replay { script, json, pgn } => replay::run(script.as_deref(), json, pgn),
        Command::Watch {
            input,
            json,
            journal,
            resume,
            step_delay,
            outputs,
            mat,
        } => watch::run(&input, json, journal, resume, step_delay, &outputs, &mat),
        Command::Export { journal } => {
            print!("{}", arbiter::journal::export(&journal)?);
            Ok(())
        }
        Command::Play(args) => play::run(args),
        Command::Mat { command } => mat::run(command),
        Command::Recognise {
            images,
            deck,
            calibration,
            json,
        } => images::recognise(&images, deck.as_deref(), calibration.as_deref(), json),
        Command::Calibrate {
            image,
            camera,
            deck,
            out,
        } => images::calibrate(image.as_deref(), camera, deck.as_deref(), out),
        Command::Deck {
            command: DeckCommand::Learn { faces, out },
        } => images::learn_deck(&faces, &out),
        Command::Deck {
            command: DeckCommand::Export { dir },
        } => images::export_deck(&dir),
        Command::Deck {
            command:
                DeckCommand::Print {
                    paper,
                    enochian,
                    out,
                },
        } => images::print_deck(paper, enochian, out),
    }
}
