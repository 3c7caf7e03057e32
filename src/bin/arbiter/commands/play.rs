//! `arbiter play`: the referee view at the table.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use arbiter::input::mat::{self, MatConfig};
use arbiter::input::mock::MockTable;
use arbiter::input::script::ScriptInput;
use arbiter::journal::{Journal, Resumed};
use arbiter::replay::referee_for;
use arbiter::script::Script;
use arbiter::table::Colour;
use arbiter::tui::{App, Screen, Source};

use super::device::{self, Device, DeviceSettings};
use super::replay::{DEMO_NAME, demo, step_delay};
use super::setup::{self, same_game};
use crate::args::PlayArgs;
use crate::input_spec::InputSpec;

/// The bundled demo steps itself at this pace when no input is named.
const DEMO_STEP_SECS: f64 = 1.5;

/// What the view observes, before it is wired to the game.
enum Src {
    Script(Box<Script>),
    Mock,
    Mat(MatConfig),
    Live(Device),
}

/// Where the game comes from (a journal, a script, the demo or the setup
/// given) and what it observes.
struct Plan {
    setup: Script,
    source: Src,
    name: String,
    resumed: Option<(Journal, Resumed)>,
}

pub fn run(args: PlayArgs) -> Result<()> {
    // The command line first, with nothing opened: a mistyped option is
    // said as such, terminal or not.
    let mut delay = step_delay(args.step_delay)?;
    if args.resume.is_none() {
        setup::check_args(&args)?;
    }
    // Before anything is opened or written: with no terminal there is no
    // game to keep.
    Screen::check()?;
    let seed = args.seed.unwrap_or_else(clock_seed);
    let plan = match &args.resume {
        Some(path) => resumed(&args, path.clone())?,
        None => match fresh(&args, seed, &mut delay) {
            Ok(plan) => plan,
            Err(e) if e.is::<setup::Cancelled>() => {
                eprintln!("arbiter: {e}");
                return Ok(());
            }
            Err(e) => return Err(e),
        },
    };
    start_view(plan, delay, &args, seed)
}

/// A game continued from its journal, with the input named now (a script),
/// else the mock table.
fn resumed(args: &PlayArgs, path: Option<PathBuf>) -> Result<Plan> {
    let path = match path {
        Some(p) => p,
        None => arbiter::journal::latest_journal()
            .context("no journal to resume: name one with --resume PATH")?,
    };
    let (journal, resumed) = Journal::open_for_resume(&path)?;
    let setup = Script::parse("setup", &resumed.setup)?;
    let source = match &args.input {
        Some(InputSpec::Script(p)) => Src::Script(Box::new(Script::load(p)?)),
        _ => Src::Mock,
    };
    Ok(Plan {
        setup,
        source,
        name: format!("resumed {}", path.display()),
        resumed: Some((journal, resumed)),
    })
}

/// A new game.
fn fresh(args: &PlayArgs, seed: u64, delay: &mut Option<Duration>) -> Result<Plan> {
    let named_setup = args.game.is_some()
        || args.players.is_some()
        || !args.battleplans.is_empty()
        || args.setup.is_some();
    let plan = |setup, source, name: String| Plan {
        setup,
        source,
        name,
        resumed: None,
    };
    Ok(match &args.input {
        Some(InputSpec::Script(path)) => {
            let script = Script::load(path)?;
            same_game(args, path, &script)?;
            let name = path.display().to_string();
            plan(script.clone(), Src::Script(Box::new(script)), name)
        }
        None if !named_setup => {
            *delay = delay.or(Some(Duration::from_secs_f64(DEMO_STEP_SECS)));
            plan(demo(), Src::Script(Box::new(demo())), DEMO_NAME.into())
        }
        Some(InputSpec::Mock) | None => {
            plan(setup::from_args(args, seed)?, Src::Mock, "mock".into())
        }
        Some(input @ (InputSpec::Serial(_) | InputSpec::Camera(_))) => {
            let settings = DeviceSettings {
                deck: args.files.deck.clone(),
                calibration: args.files.calibration.clone(),
                reconnect: true,
                realtime: true,
                ..DeviceSettings::default()
            };
            let source = match input {
                // The mat's thread starts with the view.
                InputSpec::Serial(port) => Src::Mat(device::mat_config(port, &settings)?),
                _ => Src::Live(device::open_with(input, &settings)?),
            };
            // A recording that carries its game is played as it was set up.
            let setup = match device::recorded_setup(input) {
                Some(path) if !named_setup => setup::from_file(args, &path)?,
                _ => setup::from_args(args, seed)?,
            };
            plan(setup, source, input.to_string())
        }
    })
}

fn start_view(plan: Plan, delay: Option<Duration>, args: &PlayArgs, seed: u64) -> Result<()> {
    let Plan {
        setup,
        source,
        name,
        resumed,
    } = plan;
    let referee = referee_for(&setup)?;
    let mut outputs = Vec::new();
    // The page starts before the screen: an address that cannot be served
    // is said plainly, and the game not begun.
    let mut serving = None;
    if let Some(page) = super::spectators(&args.outputs.serve)? {
        serving = Some(page.short);
        outputs.push(page.output);
    }
    // Said before the screen opens: a missing voice is read when the view
    // closes, and is in the log.
    outputs.extend(super::speaker(&args.outputs.speak));
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
                Source::Mock(MockTable::new(&start).with_colours(&colours_of(&setup)))
            }
        }
        Src::Mat(cfg) => live(mat::spawn(cfg)?.into(), &mut outputs),
        Src::Live(device) => live(device, &mut outputs),
    };
    // The screen opens before the journal is made: a terminal that cannot
    // be used leaves no empty game for `--resume` to find.
    let mut screen = Screen::open()?;
    let fresh = resumed.is_none();
    let (journal, observations) = match resumed {
        Some((journal, resumed)) => (journal, resumed.records),
        None => {
            let path = args
                .journal
                .clone()
                .unwrap_or_else(|| arbiter::journal::default_journal_path(setup.game().name()));
            (Journal::create(&path, &setup.setup_toml())?, Vec::new())
        }
    };
    let journal_path = journal.path().display().to_string();
    tracing::info!(source = %name, journal = %journal_path, "the view starts");
    let mut app = App::with_outputs(referee, source, name, Some(journal), outputs, args.quiet)
        .with_seed(seed);
    if let Some(url) = serving {
        app = app.serving(url);
    }
    app.restore(&observations);
    crate::log::stderr_to_log();
    let ran = arbiter::tui::run(app, &mut screen);
    drop(screen);
    crate::log::give_back_stderr();
    ran.context("the terminal")?;
    // A game quit before anything happened leaves nothing for `--resume`
    // to pick up in its place.
    if fresh && nothing_happened(&journal_path) {
        let _ = std::fs::remove_file(&journal_path);
        eprintln!("arbiter: nothing was played, so no journal was kept");
    } else {
        eprintln!("arbiter: the game is kept in {journal_path}");
    }
    Ok(())
}

/// Whether the journal at `path` holds nothing but the game's start: no
/// action, flag or notice.
fn nothing_happened(path: &str) -> bool {
    arbiter::journal::read(path).is_ok_and(|j| {
        j.events
            .iter()
            .all(|e| matches!(e.body, arbiter::event::EventBody::GameStarted { .. }))
    })
}

/// A device's input, its outputs (a mat's lights) put with the others.
fn live(device: Device, outputs: &mut Vec<Box<dyn arbiter::session::Output>>) -> Source {
    outputs.extend(device.outputs);
    Source::Live(device.live)
}

fn colours_of(script: &Script) -> Vec<Colour> {
    match (script.setup.players(), script.setup.battleplans()) {
        (Some(p), _) => p.to_vec(),
        (None, Some(plans)) => plans.keys().copied().collect(),
        (None, None) => Vec::new(),
    }
}

/// A seed that differs from run to run.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}
