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

use crate::args::{Command, DeckCommand};

pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Replay { script, json, pgn } => replay::run(script.as_deref(), json, pgn),
        Command::Watch {
            input,
            json,
            journal,
            resume,
            step_delay,
            mat,
        } => watch::run(&input, json, journal, resume, step_delay, &mat),
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
