//! The `arbiter` command: parse the command line, wire an input to the
//! referee, print the events. Everything else lives in the library.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};

use std::time::Duration;

use arbiter::deck::tags::Registry;
use arbiter::games::enprise::parse_battleplan;
use arbiter::headless::{HeadlessError, Start, run_live, run_script};
use arbiter::input::mat::{self, MatConfig};
use arbiter::input::matsim;
use arbiter::input::mock::MockTable;
use arbiter::input::script::ScriptInput;
use arbiter::input::vision::{self, VisionConfig, is_vision};
use arbiter::journal::Journal;
use arbiter::replay::referee_for;
use arbiter::script::{GameKind, Script};
use arbiter::table::Colour;
use arbiter::tui::setup::SetupForm;
use arbiter::tui::{App, Source};

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
        /// a device with --setup.
        #[arg(long)]
        input: String,
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
        /// Where to write the calibration.
        #[arg(long, value_name = "FILE", default_value = "calibration/camera.toml")]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum DeckCommand {
    /// Write the printable deck: one PNG per card face and the back, at
    /// 63x88 mm and 300 dpi, and A4 sheets of the whole deck to print.
    Export {
        /// The folder to write into (created if missing).
        dir: PathBuf,
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
enum MatCommand {
    /// Learn which tag each card carries: lay each card on the mat once,
    /// alone, as asked. Writes the deck registry.
    Register {
        /// The mat's serial port.
        #[arg(long)]
        port: PathBuf,
        /// Where to write the registry.
        #[arg(long, default_value = "calibration/deck.toml")]
        deck: PathBuf,
        /// The colours of the deck, in the order to register them.
        #[arg(long, value_delimiter = ',', default_value = "white,black,red,blue")]
        colours: Vec<String>,
        /// How long a card must lie still before it counts.
        #[arg(long, value_name = "MS", default_value_t = 300)]
        settle_ms: u64,
    },
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

/// How to read a device: a card-reader mat (`--input serial:PATH`) or a
/// camera (`frames:DIR`, `camera:N`).
#[derive(clap::Args, Clone)]
struct MatArgs {
    /// The game's setup for a device: a setup file or a table script (its
    /// steps are not used).
    #[arg(long, value_name = "FILE")]
    setup: Option<PathBuf>,
    /// The deck: for a mat, the tag registry (default
    /// calibration/deck.toml); for a camera, a deck learned with `arbiter
    /// deck learn` (default: the bundled printable deck).
    #[arg(long, value_name = "FILE")]
    deck: Option<PathBuf>,
    /// How long the table must be still before it is judged (default:
    /// 300, for a mat or a camera).
    #[arg(long, value_name = "MS")]
    settle_ms: Option<u64>,
    /// End when the port closes instead of waiting for it to come back.
    #[arg(long)]
    no_reconnect: bool,
    /// A camera's calibration, written by `arbiter calibrate`.
    #[arg(long, value_name = "FILE")]
    calibration: Option<PathBuf>,
    /// Frames per second of a frames:DIR recording.
    #[arg(long, default_value_t = 10.0)]
    fps: f32,
    /// Replay a frames:DIR recording at its own pace.
    #[arg(long)]
    realtime: bool,
}

impl MatArgs {
    fn config(&self, port: &str) -> Result<MatConfig, BadInput> {
        let registry = Registry::load(self.deck.as_deref().unwrap_or(Path::new(REGISTRY)))
            .map_err(|e| BadInput(e.into()))?;
        let mut cfg = MatConfig::new(PathBuf::from(port), registry);
        cfg.settle = Duration::from_millis(self.settle_ms.unwrap_or(300));
        cfg.reconnect = !self.no_reconnect;
        Ok(cfg)
    }

    fn vision(&self) -> VisionConfig {
        let default = VisionConfig::default();
        VisionConfig {
            deck: self.deck.clone(),
            calibration: self.calibration.clone(),
            settle: self
                .settle_ms
                .map(Duration::from_millis)
                .unwrap_or(default.settle),
            fps: self.fps,
            realtime: self.realtime,
            ..default
        }
    }
}

/// The mat's deck registry when none is named.
const REGISTRY: &str = "calibration/deck.toml";

#[derive(clap::Args)]
struct PlayArgs {
    /// The game: enprise (the default), doublecross, twelve or enochian. A
    /// script input or a --setup file names its own game (an Enochian setup
    /// file sets its mode and divination: `options = { mode = "two-player",
    /// divination = true }`).
    #[arg(long)]
    game: Option<String>,
    /// Players in turn order, such as white,black.
    #[arg(long, value_delimiter = ',')]
    players: Option<Vec<String>>,
    /// A player's Battleplan, such as white=NPPBQRPPNPBPRPP (repeat per
    /// player); players without one type theirs on the setup screen.
    #[arg(long = "battleplan", value_name = "COLOUR=CARDS")]
    battleplans: Vec<String>,
    /// A setup file: a table script's header (game, players, options,
    /// [battleplan], [start]) with no steps.
    #[arg(long, value_name = "FILE")]
    setup: Option<PathBuf>,
    /// Where observations come from: `mock` (the keyboard), `script:FILE`
    /// (its game and setup too), `serial:PORT` (a card-reader mat),
    /// `frames:DIR` (a camera recording, replayed at 10 frames a second)
    /// or `camera:N` (a webcam).
    #[arg(long)]
    input: Option<String>,
    /// Step a script input on a timer, every SECS seconds (otherwise space
    /// steps it).
    #[arg(long, value_name = "SECS")]
    step_delay: Option<f64>,
    /// The journal to write (default: a new file under the user's data
    /// directory).
    #[arg(long, value_name = "PATH")]
    journal: Option<PathBuf>,
    /// Continue a game from its journal (default: the latest journal).
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    resume: Option<Option<PathBuf>>,
    /// No terminal bell on flags and checks.
    #[arg(long)]
    quiet: bool,
    /// The deck: for a serial input, the tag registry (default
    /// calibration/deck.toml); for a camera, a deck learned with `arbiter
    /// deck learn` (default: the bundled printable deck).
    #[arg(long, value_name = "FILE")]
    deck: Option<PathBuf>,
    /// A camera's calibration, written by `arbiter calibrate`.
    #[arg(long, value_name = "FILE")]
    calibration: Option<PathBuf>,
    /// Seed the mock device's random draws (DoubleCross: the `n` key) and
    /// die rolls (Enochian: the `r` key), to deal and roll the same again;
    /// default: from the clock.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
}

/// The game `--game` names (En Prise when left out). Whether this build
/// referees it is the referee's to say (`referee_for`), when it is set up.
fn game_of(args: &PlayArgs) -> Result<GameKind, BadInput> {
    let Some(name) = &args.game else {
        return Ok(GameKind::EnPrise);
    };
    GameKind::parse(name.trim()).ok_or_else(|| {
        BadInput(anyhow::anyhow!(
            "--game {name}: unknown game (one of enprise, doublecross, twelve, enochian)"
        ))
    })
}

/// A script or setup file names its game: `--game`, if given too, must
/// agree.
fn same_game(args: &PlayArgs, file: &Path, script: &Script) -> Result<(), BadInput> {
    if args.game.is_some() {
        let named = game_of(args)?;
        if named != script.game {
            return Err(BadInput(anyhow::anyhow!(
                "--game {} but {} is set up for {}: leave --game out, or name another file",
                named.name(),
                file.display(),
                script.game.name()
            )));
        }
    }
    Ok(())
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
        Command::Replay { script, json, pgn } => {
            let script = match script {
                Some(path) => Script::load(&path).map_err(|e| BadInput(e.into()))?,
                None => Script::parse(DEMO_NAME, DEMO).map_err(|e| BadInput(e.into()))?,
            };
            if pgn {
                let record = arbiter::replay::record(&script).map_err(|e| BadInput(e.into()))?;
                print!("{record}");
                return Ok(());
            }
            referee_script(&script, json)
        }
        Command::Watch {
            input,
            json,
            journal,
            resume,
            step_delay,
            mat,
        } => {
            let delay = step_delay_of(step_delay)?;
            let device = matches!(input.split_once(':'), Some(("serial", _))) || is_vision(&input);
            if device {
                let setup_path = mat.setup.clone().ok_or_else(|| {
                    BadInput(anyhow::anyhow!(
                        "--input {input}: name the game with --setup FILE"
                    ))
                })?;
                let setup = Script::load(&setup_path).map_err(|e| BadInput(e.into()))?;
                let journal = match journal {
                    Some(p) => Some(
                        Journal::create(&p, &setup.setup_toml()).map_err(|e| BadInput(e.into()))?,
                    ),
                    None => None,
                };
                let live = match input.split_once(':') {
                    Some(("serial", port)) => mat::spawn(mat.config(port)?),
                    _ => vision::open(&input, &mat.vision()).map_err(BadInput)?,
                };
                return headless(|out| {
                    run_live(&setup, live, out, &mut io::stderr(), json, journal)
                });
            }
            if input == "mock" {
                return Err(BadInput(anyhow::anyhow!(
                    "--input mock is played with keys: use arbiter play --input mock"
                )));
            }
            let path = script_input(&input).map_err(BadInput)?;
            let script = Script::load(path).map_err(|e| BadInput(e.into()))?;
            let start = match (journal, resume) {
                (_, Some(p)) => {
                    let r = Journal::resume(&p).map_err(|e| BadInput(e.into()))?;
                    for w in &r.resumed.warnings {
                        eprintln!("arbiter: {w}");
                    }
                    if r.resumed.finished() {
                        return Ok(());
                    }
                    let from = r.resumed.next_step;
                    Start::Resumed {
                        referee: r.referee,
                        journal: r.journal,
                        from,
                    }
                }
                (Some(p), None) => {
                    let j = Journal::create(&p, &script.setup_toml())
                        .map_err(|e| BadInput(e.into()))?;
                    Start::New { journal: Some(j) }
                }
                (None, None) => Start::New { journal: None },
            };
            headless(|out| run_script(&script, out, json, start, delay))
        }
        Command::Export { journal } => {
            let record = arbiter::journal::export(&journal).map_err(|e| BadInput(e.into()))?;
            print!("{record}");
            Ok(())
        }
        Command::Play(args) => play(args),
        Command::Mat { command } => mat_command(command),
        Command::Recognise {
            images,
            deck,
            calibration,
            json,
        } => recognise(&images, deck.as_deref(), calibration.as_deref(), json),
        Command::Calibrate {
            image,
            camera,
            deck,
            out,
        } => calibrate(image.as_deref(), camera, deck.as_deref(), &out),
        Command::Deck {
            command: DeckCommand::Learn { faces, out },
        } => {
            use arbiter::vision::photo::CardPicture;
            // Each picture as it was taken: a photo whose card was not
            // found is learned whole, and is worth taking again.
            let mut say = |path: &std::path::Path, p: &CardPicture| {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                match p {
                    CardPicture::OnSurface(_) => {
                        println!("{name}: card found on the surface, straightened and cropped")
                    }
                    CardPicture::Cropped => {
                        println!("{name}: used as it is (the card to its edge)")
                    }
                    CardPicture::NoCard => {}
                }
            };
            let model = arbiter::vision::templates::DeckModel::learn_dir_saying(&faces, &mut say)
                .map_err(|e| BadInput(e.into()))?;
            model
                .save(&out)
                .map_err(|e| BadInput(anyhow::anyhow!("{}: cannot write: {e}", out.display())))?;
            println!(
                "{} card kinds learned from {} into {}{}",
                model.kinds(),
                faces.display(),
                out.display(),
                if model.has_corner_code() {
                    " (the faces carry arbiter's corner code: read too)"
                } else {
                    ""
                }
            );
            Ok(())
        }
        Command::Deck {
            command: DeckCommand::Export { dir },
        } => {
            let files = arbiter::deck::print::export(&dir).map_err(|e| {
                BadInput(anyhow::anyhow!(
                    "{}: cannot write the deck: {e}",
                    dir.display()
                ))
            })?;
            println!("{} files written in {}", files.len(), dir.display());
            Ok(())
        }
    }
}

/// `arbiter recognise`: each image read on its own, in order. An image
/// that cannot be read is named on stderr and the others still are; the
/// exit status is then 2.
fn recognise(
    images: &[PathBuf],
    deck: Option<&Path>,
    calibration: Option<&Path>,
    json: bool,
) -> Result<(), BadInput> {
    let r = vision::recogniser(deck, calibration).map_err(BadInput)?;
    let mut out = io::stdout().lock();
    let mut failed = 0;
    for path in images {
        let img = match image::open(path) {
            Ok(i) => i.to_rgb8(),
            Err(e) => {
                eprintln!("arbiter: {}: cannot read the image: {e}", path.display());
                failed += 1;
                continue;
            }
        };
        let rec = r.recognise(&img);
        if let Some(note) = &rec.note {
            eprintln!("arbiter: {}: {note}", path.display());
        }
        let name = path.display().to_string();
        let text = if json {
            rec.to_json(&name) + "\n"
        } else {
            let (origin, grid) = rec.table().to_grid();
            format!(
                "# {name}{}\norigin = [{}, {}]\ntable = \"\"\"\n{grid}\"\"\"\n",
                if rec.busy {
                    " (busy: hands over the table)"
                } else {
                    ""
                },
                origin.col,
                origin.row
            )
        };
        if out.write_all(text.as_bytes()).is_err() {
            return Ok(());
        }
    }
    if failed > 0 {
        return Err(BadInput(anyhow::anyhow!(
            "{failed} of {} images could not be read",
            images.len()
        )));
    }
    Ok(())
}

/// `arbiter calibrate`: one frame of cards laid out, fitted and saved.
fn calibrate(
    image: Option<&Path>,
    camera: Option<u32>,
    deck: Option<&Path>,
    out: &Path,
) -> Result<(), BadInput> {
    let bad = |e: anyhow::Error| BadInput(e);
    let (frame, source) = match (image, camera) {
        (Some(p), _) => (
            image::open(p)
                .map_err(|e| {
                    bad(anyhow::anyhow!(
                        "{}: cannot read the image: {e}",
                        p.display()
                    ))
                })?
                .to_rgb8(),
            p.display().to_string(),
        ),
        (None, Some(n)) => (camera_frame(n).map_err(bad)?, format!("camera:{n}")),
        (None, None) => {
            return Err(bad(anyhow::anyhow!(
                "name the picture: --image FILE, or --camera N"
            )));
        }
    };
    let model = match deck {
        Some(p) => Some(arbiter::vision::templates::DeckModel::load(p).map_err(|e| bad(e.into()))?),
        None => None,
    };
    let id: &dyn arbiter::vision::cards::Identify = match &model {
        Some(m) => m,
        None => arbiter::vision::templates::DeckModel::bundled(),
    };
    let dets = arbiter::vision::cards::detect_with(&frame, id);
    let cal = arbiter::vision::calibration::Calibration::from_detections(
        &dets,
        frame.dimensions(),
        &source,
    )
    .map_err(|e| bad(anyhow::anyhow!("{source}: {e}")))?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| bad(anyhow::anyhow!("{}: cannot create: {e}", dir.display())))?;
    }
    cal.save(out)
        .map_err(|e| bad(anyhow::anyhow!("{}: cannot write: {e}", out.display())))?;
    let placed = cal.place(&dets).cells.len();
    println!(
        "calibrated from {source}: {placed} cards on the grid, a card {:.0} px wide; written to {} (pass it as --calibration {})",
        cal.card_px,
        out.display(),
        out.display()
    );
    Ok(())
}

/// One frame from a camera, after a moment for its exposure to settle.
#[cfg(feature = "camera")]
fn camera_frame(n: u32) -> anyhow::Result<image::RgbImage> {
    use arbiter::input::frames::FrameSource;
    let mut cam = arbiter::input::camera::CameraSource::open(n, (1280, 720), 30)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut last = None;
    for _ in 0..15 {
        match cam.next_frame() {
            Ok(Some(f)) => last = Some(f.image),
            Ok(None) => break,
            Err(e) => anyhow::bail!("{e}"),
        }
    }
    last.ok_or_else(|| anyhow::anyhow!("camera:{n}: no frame came"))
}

#[cfg(not(feature = "camera"))]
fn camera_frame(n: u32) -> anyhow::Result<image::RgbImage> {
    bail!(
        "--camera {n}: this build has no camera support; build it with `cargo build --release --features camera`, or calibrate from a photograph with --image FILE"
    )
}

fn mat_command(command: MatCommand) -> Result<(), BadInput> {
    let bad = |e: String| BadInput(anyhow::anyhow!(e));
    match command {
        MatCommand::Simulate {
            script,
            transients,
            gap_ms,
            link,
            seed,
        } => {
            let s = Script::load(&script).map_err(|e| BadInput(e.into()))?;
            let (plan_t, wire) = matsim::parse_transients(&transients)
                .map_err(|e| bad(format!("--transients: {e}")))?;
            let plan = arbiter::input::matplan::plan(&s, plan_t, seed)
                .map_err(|e| bad(format!("{}: {e}", script.display())))?;
            let mut cfg = matsim::SimConfig {
                wire,
                seed,
                gap: Duration::from_millis(gap_ms),
                ..Default::default()
            };
            if let Some(l) = link {
                cfg.link = l;
            }
            let report = matsim::run(&plan, &cfg, |path| {
                println!("{}", path.display());
                let _ = io::stdout().flush();
            })
            .map_err(|e| bad(format!("the simulated mat: {e}")))?;
            eprintln!(
                "arbiter: simulated mat done: {} frames ({} corrupted), {} noise bursts, {} scans, {} unplugs",
                report.frames_sent,
                report.frames_corrupted,
                report.noise_bursts,
                report.scans,
                report.unplugs
            );
            Ok(())
        }
        MatCommand::Register {
            port,
            deck,
            colours,
            settle_ms,
        } => {
            let mut cs = Vec::new();
            for c in &colours {
                cs.push(
                    Colour::from_name(c.trim())
                        .ok_or_else(|| bad(format!("--colours: unknown colour {c:?}")))?,
                );
            }
            let mut cfg = MatConfig::new(port, Registry::new());
            cfg.settle = Duration::from_millis(settle_ms);
            let mut link = mat::MatLink::open(&cfg).map_err(bad)?;
            let registry = arbiter::deck::register::register(&mut link, &cs, &mut io::stdout())
                .map_err(bad)?;
            registry
                .save(&deck)
                .map_err(|e| bad(format!("{}: cannot write: {e}", deck.display())))?;
            println!("{} cards registered in {}", registry.len(), deck.display());
            Ok(())
        }
    }
}

/// The bundled demo steps itself at this pace when no input is named.
const DEMO_STEP_SECS: f64 = 1.5;

fn play(args: PlayArgs) -> Result<(), BadInput> {
    let bad = |e: anyhow::Error| BadInput(e);
    let delay = step_delay_of(args.step_delay)?;
    let named_setup = args.game.is_some()
        || args.players.is_some()
        || !args.battleplans.is_empty()
        || args.setup.is_some();

    // Where the game comes from: a journal, a script, or the setup given.
    let (setup, source, source_name, resumed) = if let Some(resume) = &args.resume {
        let path = match resume {
            Some(p) => p.clone(),
            None => arbiter::journal::latest_journal().ok_or_else(|| {
                bad(anyhow::anyhow!(
                    "no journal to resume: name one with --resume PATH"
                ))
            })?,
        };
        let (journal, resumed) = Journal::open_for_resume(&path).map_err(|e| bad(e.into()))?;
        (
            resumed.setup.clone(),
            None,
            format!("resumed {}", path.display()),
            Some((journal, resumed)),
        )
    } else {
        match args.input.as_deref() {
            Some(i) if i.starts_with("script:") => {
                let path = script_input(i).map_err(bad)?;
                let script = Script::load(path).map_err(|e| bad(e.into()))?;
                same_game(&args, path, &script)?;
                let name = path.display().to_string();
                (
                    script.setup_toml(),
                    Some(Src::Script(Box::new(script))),
                    name,
                    None,
                )
            }
            None if !named_setup => {
                let script = Script::parse(DEMO_NAME, DEMO).map_err(|e| bad(e.into()))?;
                let delay = delay.or(Some(Duration::from_secs_f64(DEMO_STEP_SECS)));
                return start_view(
                    script.setup_toml(),
                    Src::Script(Box::new(script)),
                    DEMO_NAME.into(),
                    delay,
                    &args,
                    None,
                );
            }
            Some("mock") | None => (
                setup_from_args(&args)?,
                Some(Src::Mock),
                "mock".into(),
                None,
            ),
            Some(i) if i.starts_with("serial:") => {
                let port = &i["serial:".len()..];
                let registry = Registry::load(args.deck.as_deref().unwrap_or(Path::new(REGISTRY)))
                    .map_err(|e| bad(e.into()))?;
                let cfg = MatConfig::new(PathBuf::from(port), registry);
                (
                    setup_from_args(&args)?,
                    Some(Src::Mat(cfg)),
                    format!("mat {port}"),
                    None,
                )
            }
            Some(i) if is_vision(i) => {
                let cfg = VisionConfig {
                    deck: args.deck.clone(),
                    calibration: args.calibration.clone(),
                    realtime: true,
                    ..VisionConfig::default()
                };
                let live = vision::open(i, &cfg).map_err(bad)?;
                (
                    setup_from_args(&args)?,
                    Some(Src::Live(live)),
                    i.to_string(),
                    None,
                )
            }
            Some(other) => {
                return Err(bad(anyhow::anyhow!(
                    "--input {other}: this build reads mock, script:FILE, serial:PORT, frames:DIR or camera:N"
                )));
            }
        }
    };
    let source = match (source, &args.input) {
        (Some(s), _) => s,
        // A resumed game goes on with the input named now, else the mock.
        (None, Some(i)) if i.starts_with("script:") => {
            let script = Script::load(script_input(i).map_err(bad)?).map_err(|e| bad(e.into()))?;
            Src::Script(Box::new(script))
        }
        (None, _) => Src::Mock,
    };
    start_view(setup, source, source_name, delay, &args, resumed)
}

/// What `play` observes, before it is wired to the game.
enum Src {
    Script(Box<Script>),
    Mock,
    Mat(MatConfig),
    Live(arbiter::input::live::Live),
}

fn start_view(
    setup: String,
    source: Src,
    source_name: String,
    delay: Option<Duration>,
    args: &PlayArgs,
    resumed: Option<(Journal, arbiter::journal::Resumed)>,
) -> Result<(), BadInput> {
    let bad = |e: anyhow::Error| BadInput(e);
    let setup_script = Script::parse("setup", &setup).map_err(|e| bad(e.into()))?;
    let referee = referee_for(&setup_script).map_err(|e| bad(e.into()))?;
    let source = match source {
        Src::Script(s) => Source::Script(ScriptInput::new(*s, delay)),
        Src::Mock => {
            let start = referee.expected_table().clone();
            let panel = referee.panel();
            if panel.armies.is_some() {
                // Enochian: a chessboard whose thrones hold pairs.
                Source::Mock(MockTable::enochian(&start))
            } else if panel.chessboard {
                Source::Mock(MockTable::chessboard(&start))
            } else {
                Source::Mock(MockTable::new(&start).with_colours(&colours_of(&setup_script)))
            }
        }
        Src::Mat(cfg) => Source::Live(mat::spawn(cfg)),
        Src::Live(live) => Source::Live(live),
    };
    let (journal, observations) = match resumed {
        Some((journal, resumed)) => (journal, resumed.records),
        None => {
            let path = args.journal.clone().unwrap_or_else(|| {
                arbiter::journal::default_journal_path(setup_script.game.name())
            });
            (
                Journal::create(&path, &setup).map_err(|e| bad(e.into()))?,
                Vec::new(),
            )
        }
    };
    let journal_path = journal.path().display().to_string();
    let seed = args.seed.unwrap_or_else(clock_seed);
    let mut app = App::new(referee, source, source_name, Some(journal), args.quiet).with_seed(seed);
    app.restore(&observations);
    arbiter::tui::run(app)
        .context("the terminal")
        .map_err(bad)?;
    eprintln!("arbiter: the game is kept in {journal_path}");
    Ok(())
}

fn colours_of(script: &Script) -> Vec<arbiter::table::Colour> {
    match &script.players {
        Some(p) => p.value.clone(),
        None => script.battleplan.keys().copied().collect(),
    }
}

/// The setup TOML from `--setup`, or `--players` and `--battleplan`, with
/// the setup screen for any Battleplan not given.
fn setup_from_args(args: &PlayArgs) -> Result<String, BadInput> {
    let bad = |e: anyhow::Error| BadInput(e);
    if let Some(path) = &args.setup {
        // A table script serves as a setup file too: its steps are not used.
        let script = Script::load(path).map_err(|e| bad(e.into()))?;
        same_game(args, path, &script)?;
        // Validate now, with the file's own name in any message.
        referee_for(&script).map_err(|e| bad(e.into()))?;
        return Ok(script.setup_toml());
    }
    match game_of(args)? {
        GameKind::EnPrise => {}
        GameKind::DoubleCross => return doublecross_setup(args),
        other => return plain_setup(args, other),
    }
    let names = args
        .players
        .clone()
        .unwrap_or_else(|| vec!["white".into(), "black".into()]);
    let mut players = Vec::new();
    for n in &names {
        let c = Colour::from_name(n.trim()).ok_or_else(|| {
            bad(anyhow::anyhow!(
                "--players: unknown colour {n:?} (white, black, red, blue)"
            ))
        })?;
        players.push(c);
    }
    let mut known = Vec::new();
    for b in &args.battleplans {
        let (name, cards) = b.split_once('=').ok_or_else(|| {
            bad(anyhow::anyhow!(
                "--battleplan {b}: write COLOUR=CARDS, such as white=NPPBQRPPNPBPRPP"
            ))
        })?;
        let c = Colour::from_name(name.trim())
            .filter(|c| players.contains(c))
            .ok_or_else(|| bad(anyhow::anyhow!("--battleplan {b}: {name} is not playing")))?;
        parse_battleplan(cards, c).map_err(|e| bad(anyhow::anyhow!("--battleplan {b}: {e}")))?;
        known.push((c, cards.to_string()));
    }
    let plans = if players.iter().all(|c| known.iter().any(|(k, _)| k == c)) {
        known
    } else {
        let seed = clock_seed();
        match arbiter::tui::setup::run(SetupForm::new(players.clone(), &known, seed))
            .context("the terminal")
            .map_err(bad)?
        {
            Some(p) => p,
            None => return Err(bad(anyhow::anyhow!("setup cancelled: no game started"))),
        }
    };
    let mut text = format!(
        "game = \"enprise\"\nplayers = [{}]\n\n[battleplan]\n",
        players
            .iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (c, p) in plans {
        text += &format!("{c} = \"{}\"\n", p.trim());
    }
    // Validate through the same path as every script.
    let script = Script::parse("setup", &text).map_err(|e| bad(e.into()))?;
    referee_for(&script).map_err(|e| bad(e.into()))?;
    Ok(text)
}

/// The setup of a DoubleCross game from the command line: the standard
/// start and deck; its options (joust, ...) come from a --setup file.
fn doublecross_setup(args: &PlayArgs) -> Result<String, BadInput> {
    let bad = |e: anyhow::Error| BadInput(e);
    if !args.battleplans.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "--battleplan: DoubleCross has no Battleplans (its cards are drawn during the game)"
        )));
    }
    if let Some(p) = &args.players {
        let names: Vec<&str> = p.iter().map(|n| n.trim()).collect();
        if names != ["white", "black"] {
            return Err(bad(anyhow::anyhow!(
                "--players {}: DoubleCross is played by white and black, white first",
                p.join(",")
            )));
        }
    }
    let text = "game = \"doublecross\"\n".to_string();
    let script = Script::parse("setup", &text).map_err(|e| bad(e.into()))?;
    referee_for(&script).map_err(|e| bad(e.into()))?;
    Ok(text)
}

/// The setup of another game from the command line: its defaults, if
/// this build referees it (its options come from a --setup file).
fn plain_setup(args: &PlayArgs, game: GameKind) -> Result<String, BadInput> {
    if args.players.is_some() || !args.battleplans.is_empty() {
        return Err(BadInput(anyhow::anyhow!(
            "--players and --battleplan set up En Prise; set up {} with --setup FILE",
            game.name()
        )));
    }
    let text = format!("game = \"{}\"\n", game.name());
    let script = Script::parse("setup", &text).map_err(|e| BadInput(e.into()))?;
    referee_for(&script)
        .map_err(|e| BadInput(anyhow::anyhow!("--game {}: {}", game.name(), e.message)))?;
    Ok(text)
}

/// A seed that differs from run to run.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

fn script_input(input: &str) -> anyhow::Result<&Path> {
    match input.split_once(':') {
        Some(("script", file)) if !file.is_empty() => Ok(Path::new(file)),
        Some((kind, _)) => {
            bail!(
                "--input {input}: unknown input kind {kind:?} (this build reads script:FILE, serial:PORT, frames:DIR or camera:N)"
            )
        }
        None => bail!("--input {input}: write the input as KIND:WHERE, such as script:game.toml"),
    }
}

fn referee_script(script: &Script, json: bool) -> Result<(), BadInput> {
    headless(|out| run_script(script, out, json, Start::New { journal: None }, None))
}

fn step_delay_of(secs: Option<f64>) -> Result<Option<Duration>, BadInput> {
    match secs {
        Some(s) if !(s.is_finite() && s > 0.0 && s < 3600.0) => Err(BadInput(anyhow::anyhow!(
            "--step-delay {s}: give seconds between 0 and 3600"
        ))),
        Some(s) => Ok(Some(Duration::from_secs_f64(s))),
        None => Ok(None),
    }
}

/// A headless loop on standard output; its failures are bad input.
fn headless(
    f: impl FnOnce(&mut io::BufWriter<io::StdoutLock<'static>>) -> Result<(), HeadlessError>,
) -> Result<(), BadInput> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    f(&mut out).map_err(|e| BadInput(e.into()))
}
