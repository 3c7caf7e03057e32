//! The command line: clap's types, and nothing else.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::input_spec::InputSpec;
#[cfg(feature = "simulator")]
use arbiter::input::matsim;

#[derive(Parser)]
#[command(
    name = "arbiter",
    version,
    about = "A referee for chess card games played on a real table"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Write the log here (default: stderr for the commands that print,
    /// and arbiter.log in the user's data folder while the full-screen
    /// view runs).
    #[arg(long, global = true, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// How much to log: error, warn, info, debug or trace (default: info
    /// in a file, warn on stderr).
    #[arg(long, global = true, value_name = "LEVEL")]
    pub log_level: Option<tracing::Level>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Replay a table script through the referee and print its events.
    Replay {
        /// The table script (TOML); the bundled demo game when left out.
        script: Option<PathBuf>,
        /// Print the JSON Lines event stream instead of readable lines.
        #[arg(long)]
        json: bool,
        /// Print the game record instead of the events: PGN for
        /// DoubleCross (moves in SAN, each turn's card as a comment).
        #[arg(long, conflicts_with = "json")]
        pgn: bool,
    },
    /// Referee a live input with no screen, printing events as they happen.
    Watch {
        /// Where observations come from: `script:FILE`, `serial:PORT` (a
        /// card-reader mat), `frames:DIR` (a camera recording: one image per
        /// frame, in name order) or `camera:N` (a webcam); name the game of
        /// a device with --setup (a recording's DIR/game.toml names its own).
        #[arg(long)]
        input: InputSpec,
        /// Print the JSON Lines event stream instead of readable lines.
        #[arg(long)]
        json: bool,
        /// Also append every observation and event to this journal.
        #[arg(long)]
        journal: Option<PathBuf>,
        /// Continue the game of this journal (written by an earlier run that
        /// was stopped), from the first step it has not judged.
        #[arg(long, value_name = "PATH", conflicts_with = "journal")]
        resume: Option<PathBuf>,
        /// Pace a script input: one step every SECS seconds.
        #[arg(long, value_name = "SECS")]
        step_delay: Option<f64>,
        #[command(flatten)]
        outputs: OutputArgs,
        #[command(flatten)]
        mat: MatArgs,
    },
    /// The referee view at the table: a full-screen board, each game's
    /// panel (En Prise Battleplans, DoubleCross cards and piles, Twelve
    /// supplies, Enochian armies and die), flags and checks. With no
    /// options: the bundled demo game, stepping itself; `--game
    /// doublecross`, `twelve` or `enochian`: a new game on the mock board.
    Play(PlayArgs),
    /// The printable deck.
    Deck {
        #[command(subcommand)]
        command: DeckCommand,
    },
    /// The card-reader mat: register a deck's tags, or simulate a mat.
    Mat {
        #[command(subcommand)]
        command: MatCommand,
    },
    /// Write the game record of a journal: the actions, numbered per turn,
    /// and a diagram of the final board.
    Export {
        /// A journal written by `arbiter play` or `arbiter watch --journal`.
        journal: PathBuf,
    },
    /// Read the cards in photographs of the table: for each image, the
    /// grid as table-script text, or one JSON line.
    Recognise {
        /// The images (PNG or JPEG).
        #[arg(required = true)]
        images: Vec<PathBuf>,
        /// A deck learned with `arbiter deck learn` (default: the bundled
        /// printable deck).
        #[arg(long, value_name = "FILE")]
        deck: Option<PathBuf>,
        /// A calibration written by `arbiter calibrate`: fixes the cells.
        #[arg(long, value_name = "FILE")]
        calibration: Option<PathBuf>,
        /// One JSON line per image: {"image", "busy", "cells": [{"cell",
        /// "token", "confidence"}]}.
        #[arg(long)]
        json: bool,
    },
    /// Fix the table plane and the grid pitch from a photograph (or a
    /// camera frame) of cards laid out on the table: at least 4 cards in 2
    /// rows and 2 columns.
    Calibrate {
        /// A photograph from the camera in its place.
        #[arg(long, value_name = "FILE", conflicts_with = "camera")]
        image: Option<PathBuf>,
        /// Take a frame from this camera (builds with the camera feature).
        #[arg(long, value_name = "N")]
        camera: Option<u32>,
        /// A deck learned with `arbiter deck learn` (default: the bundled
        /// deck).
        #[arg(long, value_name = "FILE")]
        deck: Option<PathBuf>,
        /// Where to write the calibration (default: camera.toml in the
        /// user's configuration folder, where camera inputs look for it).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

/// A paper size `deck print` lays the cards out on.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum PaperArg {
    A4,
    Letter,
}

#[derive(Subcommand)]
pub enum DeckCommand {
    /// Write the printable deck: one PNG per card face and the back, at
    /// 63x88 mm and 300 dpi, and A4 sheets of the whole deck to print.
    Export {
        /// The folder to write into (created if missing).
        dir: PathBuf,
    },
    /// Write the printable deck as a PDF at true card size (63x88 mm) on A4
    /// or US Letter, with crop marks and a sheet of backs. Print it at 100%
    /// ("Actual size"), then check the 50 mm bar with a ruler.
    Print {
        /// The paper: a4 (3x3 cards a sheet) or letter (4x2, landscape).
        #[arg(long, value_enum, default_value_t = PaperArg::A4)]
        paper: PaperArg,
        /// The four Enochian armies (60 cards, Yellow among them) instead of
        /// the En Prise deck (64 cards, which DoubleCross and Twelve use
        /// too).
        #[arg(long)]
        enochian: bool,
        /// The file to write (default: arbiter-deck-a4.pdf, or -letter,
        /// -enochian, in the current folder).
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Learn a deck from one picture per card kind, named by token: wK.png,
    /// ..., uP.png and back.png. A picture is a scan or a crop of the card,
    /// or a photo of it lying on a surface, taken from above (the card is
    /// found, straightened and cropped).
    Learn {
        /// The folder of pictures.
        #[arg(long, value_name = "DIR")]
        faces: PathBuf,
        /// Where to write the learned deck (pass it as --deck FILE).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
pub enum MatCommand {
    /// Learn which tag each card carries: lay each card on the mat once,
    /// alone, as asked. Writes the deck registry.
    Register {
        /// The mat's serial port.
        #[arg(long)]
        port: PathBuf,
        /// Where to write the registry (default: deck.toml in the user's
        /// configuration folder, where mat inputs look for it).
        #[arg(long)]
        deck: Option<PathBuf>,
        /// The colours of the deck, in the order to register them.
        #[arg(long, value_delimiter = ',', default_value = "white,black,red,blue")]
        colours: Vec<String>,
        /// How long a card must lie still before it counts.
        #[arg(long, value_name = "MS", default_value_t = 300)]
        settle_ms: u64,
    },
    #[cfg(feature = "simulator")]
    /// Play a table script as a mat would, on a pseudo-terminal: prints the
    /// port's path on the first line, then plays once a host has connected,
    /// and closes the port when the script is played out.
    Simulate {
        /// The table script to play.
        script: PathBuf,
        /// The transients to add: none, all, or a list of lift, swaps,
        /// corrupt, noise, unplug.
        #[arg(long, default_value = matsim::DEFAULT_TRANSIENTS)]
        transients: String,
        /// The pause after each settled step, longer than the host's settle
        /// time.
        #[arg(long, value_name = "MS", default_value_t = 600)]
        gap_ms: u64,
        /// The path to announce (a symlink to the pseudo-terminal, kept
        /// through an unplug).
        #[arg(long, value_name = "PATH")]
        link: Option<PathBuf>,
        /// Seed for the transients.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// The files a device is read with, for `watch` and `play` alike.
#[derive(clap::Args, Clone)]
pub struct DeviceFiles {
    /// The deck: for a mat, the tag registry (default: the one `arbiter
    /// mat register` wrote, else the bundled one); for a camera, a deck
    /// learned with `arbiter deck learn` (default: the bundled printable
    /// deck).
    #[arg(long, value_name = "FILE")]
    pub deck: Option<PathBuf>,
    /// A camera's calibration (default: the one `arbiter calibrate` wrote
    /// in the user's configuration folder, if any).
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,
}

/// How to read a device: a card-reader mat (`--input serial:PATH`) or a
/// camera (`frames:DIR`, `camera:N`).
#[derive(clap::Args, Clone)]
pub struct MatArgs {
    #[command(flatten)]
    pub files: DeviceFiles,
    /// The game's setup for a device: a setup file or a table script (its
    /// steps are not used).
    #[arg(long, value_name = "FILE")]
    pub setup: Option<PathBuf>,
    /// How long the table must be still before it is judged (default:
    /// 300, for a mat or a camera).
    #[arg(long, value_name = "MS")]
    pub settle_ms: Option<u64>,
    /// End when the port closes instead of waiting for it to come back.
    #[arg(long)]
    pub no_reconnect: bool,
    /// Frames per second of a frames:DIR recording.
    #[arg(long, default_value_t = 10.0)]
    pub fps: f32,
    /// Replay a frames:DIR recording at its own pace.
    #[arg(long)]
    pub realtime: bool,
}

/// The game's outputs beside its own screen or lines, shared by `watch`
/// and `play`: the spectator page and the voice.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct OutputArgs {
    #[command(flatten)]
    pub serve: ServeArgs,
    #[command(flatten)]
    pub speak: SpeakArgs,
}

/// `--speak`: the flags said aloud.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SpeakArgs {
    /// Say each flag aloud when it is raised ("mended" when it is), checks
    /// and the game's end, with the system's voice (espeak-ng, else
    /// speech-dispatcher's spd-say, else macOS's say). Without one, says so
    /// once and plays on.
    #[arg(long)]
    pub speak: bool,
}

/// `--serve`: the spectator page.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ServeArgs {
    /// Serve a live page of the game to browsers at ADDR (default
    /// 127.0.0.1:7979, this machine only; 0.0.0.0:PORT lets other machines
    /// on the network watch). Read-only.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = arbiter_web::DEFAULT_ADDR)]
    pub serve: Option<String>,
}

#[derive(clap::Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub files: DeviceFiles,
    /// The game: enprise (the default), doublecross, twelve or enochian. A
    /// script input or a --setup file names its own game (an Enochian setup
    /// file sets its mode and divination: `options = { mode = "two-player",
    /// divination = true }`).
    #[arg(long)]
    pub game: Option<String>,
    /// Players in turn order, such as white,black.
    #[arg(long, value_delimiter = ',')]
    pub players: Option<Vec<String>>,
    /// A player's Battleplan, such as white=NPPBQRPPNPBPRPP (repeat per
    /// player); players without one type theirs on the setup screen.
    #[arg(long = "battleplan", value_name = "COLOUR=CARDS")]
    pub battleplans: Vec<String>,
    /// A setup file: a table script's header (game, players, options,
    /// [battleplan], [start]) with no steps.
    #[arg(long, value_name = "FILE")]
    pub setup: Option<PathBuf>,
    /// Where observations come from: `mock` (the keyboard), `script:FILE`
    /// (its game and setup too), `serial:PORT` (a card-reader mat),
    /// `frames:DIR` (a camera recording, replayed at 10 frames a second)
    /// or `camera:N` (a webcam).
    #[arg(long)]
    pub input: Option<InputSpec>,
    /// Step a script input on a timer, every SECS seconds (otherwise space
    /// steps it).
    #[arg(long, value_name = "SECS")]
    pub step_delay: Option<f64>,
    /// The journal to write (default: a new file under the user's data
    /// directory).
    #[arg(long, value_name = "PATH")]
    pub journal: Option<PathBuf>,
    /// Continue a game from its journal (default: the latest journal).
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    pub resume: Option<Option<PathBuf>>,
    /// No terminal bell on flags and checks.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub outputs: OutputArgs,
    /// Seed the mock device's random draws (DoubleCross: the `n` key) and
    /// die rolls (Enochian: the `r` key), to deal and roll the same again;
    /// default: from the clock.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}
