//! A game's setup from the command line (`--game`, `--players`,
//! `--battleplan`, `--setup`), built as a typed [`GameSetup`] and checked
//! by the referee that will play it.

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use arbiter::games::enprise;
use arbiter::games::enprise::parse_battleplan;
use arbiter::replay::referee_for;
use arbiter::script::Script;
use arbiter::setup::{GameKind, GameSetup};
use arbiter::table::Colour;
use arbiter::tui::setup::SetupForm;

use crate::args::PlayArgs;

/// The game `--game` names (En Prise when left out). Whether this build
/// referees it is the referee's to say (`referee_for`), when it is set up.
pub fn game_of(args: &PlayArgs) -> Result<GameKind> {
    let Some(name) = &args.game else {
        return Ok(GameKind::EnPrise);
    };
    GameKind::parse(name.trim()).ok_or_else(|| {
        anyhow!("--game {name}: unknown game (one of enprise, doublecross, twelve, enochian)")
    })
}

/// A script or setup file names its game: `--game`, if given too, must
/// agree.
pub fn same_game(args: &PlayArgs, file: &Path, script: &Script) -> Result<()> {
    if args.game.is_some() {
        let named = game_of(args)?;
        if named != script.game() {
            bail!(
                "--game {} but {} is set up for {}: leave --game out, or name another file",
                named.name(),
                file.display(),
                script.game().name()
            );
        }
    }
    Ok(())
}

/// The setup from `--setup`, or `--players` and `--battleplan`, with the
/// setup screen for any Battleplan not given.
pub fn from_args(args: &PlayArgs, seed: u64) -> Result<Script> {
    if let Some(path) = &args.setup {
        return from_file(args, path).context("--setup");
    }
    let setup = match game_of(args)? {
        GameKind::EnPrise => en_prise(args, seed)?,
        GameKind::DoubleCross => doublecross(args)?,
        other => {
            let setup = plain(args, other)?;
            // A game this build does not referee is the --game's fault.
            setup
                .referee()
                .map_err(|e| anyhow!("--game {}: {e}", other.name()))?;
            setup
        }
    };
    let script = Script::of_setup("the command line", setup);
    referee_for(&script)?;
    Ok(script)
}

/// The setup in `path`, a setup file or a table script (its steps are not
/// used), checked against the command line's `--game`.
pub fn from_file(args: &PlayArgs, path: &Path) -> Result<Script> {
    let mut script = Script::load(path)?;
    same_game(args, path, &script)?;
    script.steps.clear();
    // Checked now, with the file's own name in any message.
    referee_for(&script)?;
    Ok(script)
}

/// The colours `names` name, in order; `option` names the option in the
/// message for a name that is no colour.
pub fn colours(names: &[String], option: &str) -> Result<Vec<Colour>> {
    names
        .iter()
        .map(|n| {
            Colour::from_name(n.trim())
                .ok_or_else(|| anyhow!("{option}: unknown colour {n:?} (white, black, red, blue)"))
        })
        .collect()
}

/// Checks the setup the command line gives, with nothing opened: the
/// game, the players, the Battleplans, the `--setup` file. A mistyped
/// option is said as such before the view is needed.
pub fn check_args(args: &PlayArgs) -> Result<()> {
    if let Some(path) = &args.setup {
        return from_file(args, path).context("--setup").map(drop);
    }
    match game_of(args)? {
        GameKind::EnPrise => given_battleplans(args).map(drop),
        GameKind::DoubleCross => doublecross(args).map(drop),
        other => plain(args, other).map(drop),
    }
}

fn en_prise(args: &PlayArgs, seed: u64) -> Result<GameSetup> {
    let (players, known) = given_battleplans(args)?;
    let plans = if players.iter().all(|c| known.iter().any(|(k, _)| k == c)) {
        known
    } else {
        let mut screen = arbiter::tui::Screen::open()?;
        arbiter::tui::setup::run(SetupForm::new(players.clone(), &known, seed), &mut screen)
            .context("the terminal")?
            .ok_or(Cancelled)?
    };
    Ok(GameSetup::EnPrise(enprise::Setup {
        players: Some(players),
        battleplans: plans
            .into_iter()
            .map(|(c, p)| (c, p.trim().to_string()))
            .collect(),
        ..Default::default()
    }))
}

/// Each colour's Battleplan, as typed.
type Battleplans = Vec<(Colour, String)>;

/// En Prise's players (`--players`, white and black when left out) and the
/// Battleplans `--battleplan` gives, each checked.
fn given_battleplans(args: &PlayArgs) -> Result<(Vec<Colour>, Battleplans)> {
    let names = args
        .players
        .clone()
        .unwrap_or_else(|| vec!["white".into(), "black".into()]);
    let players = colours(&names, "--players")?;
    let mut known = Vec::new();
    for b in &args.battleplans {
        let (name, cards) = b.split_once('=').ok_or_else(|| {
            anyhow!("--battleplan {b}: write COLOUR=CARDS, such as white=NPPBQRPPNPBPRPP")
        })?;
        let c = Colour::from_name(name.trim())
            .filter(|c| players.contains(c))
            .ok_or_else(|| anyhow!("--battleplan {b}: {name} is not playing"))?;
        parse_battleplan(cards, c).map_err(|e| anyhow!("--battleplan {b}: {e}"))?;
        known.push((c, cards.trim().to_string()));
    }
    Ok((players, known))
}

/// DoubleCross from the command line: the standard start and deck; its
/// options (joust, ...) come from a --setup file.
fn doublecross(args: &PlayArgs) -> Result<GameSetup> {
    if !args.battleplans.is_empty() {
        bail!("--battleplan: DoubleCross has no Battleplans (its cards are drawn during the game)");
    }
    if let Some(p) = &args.players {
        let names: Vec<&str> = p.iter().map(|n| n.trim()).collect();
        if names != ["white", "black"] {
            bail!(
                "--players {}: DoubleCross is played by white and black, white first",
                p.join(",")
            );
        }
    }
    Ok(GameKind::DoubleCross.default_setup())
}

/// Another game from the command line: its defaults (its options come
/// from a --setup file).
fn plain(args: &PlayArgs, game: GameKind) -> Result<GameSetup> {
    if args.players.is_some() || !args.battleplans.is_empty() {
        bail!(
            "--players and --battleplan set up En Prise; set up {} with --setup FILE",
            game.name()
        );
    }
    Ok(game.default_setup())
}

/// The players left the Battleplan screen (Esc): a choice, not an error.
#[derive(Debug, thiserror::Error)]
#[error("no game started: the Battleplan screen was left")]
pub struct Cancelled;
