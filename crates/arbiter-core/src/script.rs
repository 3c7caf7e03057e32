//! Table scripts (`spec/table-script.md`): a game's setup and the settled
//! observations an input would report, in TOML.
//!
//! Loading validates everything a player or test author can get wrong and
//! names the file and line of the first problem; a script that loads is
//! well-formed, so replaying it cannot fail for reasons of form.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use toml::Spanned;

use crate::games::{doublecross, enochian, enprise, twelve};
use crate::observation::Observation;
use crate::referee::AnyReferee;
pub use crate::setup::GameKind;
use crate::setup::{BadThrone, GameSetup, Part, SetupError, Start, cell_key, lay_throne};
use crate::table::{Cell, Colour, Table};
pub use crate::toml_text::LineIndex;
use crate::toml_text::TomlError;

/// A problem in a script, located: the file, and the line where there is
/// one (the same as any TOML file's, [`TomlError`]).
pub type ScriptError = TomlError;

/// A table script: a game's setup, and the observations to replay.
#[derive(Clone, Debug)]
pub struct Script {
    /// The file name used in messages.
    pub file: String,
    pub setup: GameSetup,
    /// Where each part of the setup was written, to locate its errors.
    pub lines: SetupLines,
    pub steps: Vec<Step>,
}

/// The line of each part of a script's setup (0 where the part is not
/// written).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetupLines {
    pub players: usize,
    pub battleplans: BTreeMap<Colour, usize>,
    pub options: usize,
    pub start: usize,
    pub state: usize,
}

impl SetupLines {
    /// The line to name for a problem in `part`.
    pub fn of(&self, part: Part) -> usize {
        let or_first = |line: usize| if line == 0 { 1 } else { line };
        match part {
            Part::Players => or_first(self.players),
            Part::Battleplan(c) => self
                .battleplans
                .get(&c)
                .copied()
                .unwrap_or_else(|| or_first(self.players)),
            Part::Options => or_first(self.options),
            Part::Start => self.start,
            Part::State => {
                if self.state == 0 {
                    self.start
                } else {
                    self.state
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct Step {
    /// 1-based line of the step's `[[step]]` header.
    pub line: usize,
    pub observation: Observation,
    /// Expected events (subset match), as JSON objects.
    pub expect: Vec<serde_json::Value>,
}

impl Script {
    pub fn error(&self, line: usize, message: impl fmt::Display) -> ScriptError {
        ScriptError {
            file: self.file.clone(),
            line,
            message: message.to_string(),
        }
    }

    pub fn game(&self) -> GameKind {
        self.setup.kind()
    }

    /// A script of a setup alone, with no steps (for a setup built as
    /// typed values, such as the command line's).
    pub fn of_setup(file: &str, setup: GameSetup) -> Script {
        Script {
            file: file.into(),
            setup,
            lines: SetupLines::default(),
            steps: Vec::new(),
        }
    }

    /// A setup problem, at the line of the part it lies in.
    pub fn locate(&self, e: &SetupError) -> ScriptError {
        self.error(self.lines.of(e.part), e)
    }

    /// Builds something from the setup (a game, a referee), locating a
    /// setup problem in the file.
    pub fn build<T>(
        &self,
        build: impl FnOnce(&GameSetup) -> Result<T, SetupError>,
    ) -> Result<T, ScriptError> {
        build(&self.setup).map_err(|e| self.locate(&e))
    }

    /// The referee of the script's game and setup.
    pub fn referee(&self) -> Result<Box<dyn AnyReferee>, ScriptError> {
        self.build(GameSetup::referee)
    }

    pub fn load(path: &Path) -> Result<Script, ScriptError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScriptError {
            file: file.clone(),
            line: 0,
            // A script, or a setup file: the caller says which.
            message: format!("cannot read: {e}"),
        })?;
        Script::parse(&file, &text)
    }

    pub fn parse(file: &str, text: &str) -> Result<Script, ScriptError> {
        let lines = LineIndex::new(text);
        let err = |line: usize, message: String| ScriptError {
            file: file.to_string(),
            line,
            message,
        };
        let raw: RawScript = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| lines.line_of(s.start)).unwrap_or(0);
            err(line, e.message().trim().to_string())
        })?;

        let game = GameKind::parse(raw.game.get_ref()).ok_or_else(|| {
            err(
                lines.line_of(raw.game.span().start),
                format!(
                    "unknown game {:?} (one of enprise, doublecross, twelve, enochian)",
                    raw.game.get_ref()
                ),
            )
        })?;
        let mut at = SetupLines::default();

        let players = match raw.players {
            None => None,
            Some(p) => {
                let line = lines.line_of(p.span().start);
                at.players = line;
                let mut colours = Vec::new();
                for name in p.get_ref() {
                    let c = Colour::from_name(name).ok_or_else(|| {
                        err(
                            line,
                            format!(
                                "unknown player colour {name:?} (white, black, red, blue or yellow)"
                            ),
                        )
                    })?;
                    if colours.contains(&c) {
                        return Err(err(line, format!("player {name:?} is listed twice")));
                    }
                    colours.push(c);
                }
                Some(colours)
            }
        };

        let options = match raw.options {
            None => toml::Table::new(),
            Some(o) => {
                at.options = lines.line_of(o.span().start);
                o.into_inner()
            }
        };

        let mut battleplans = BTreeMap::new();
        if let Some(bp) = raw.battleplan {
            for (name, plan) in bp.into_inner() {
                let line = lines.line_of(plan.span().start);
                if game != GameKind::EnPrise {
                    return Err(err(
                        line,
                        format!("[battleplan] belongs to En Prise, not {}", game.title()),
                    ));
                }
                let c = Colour::from_name(&name).ok_or_else(|| {
                    err(
                        line,
                        format!("[battleplan] names an unknown colour {name:?}"),
                    )
                })?;
                at.battleplans.insert(c, line);
                battleplans.insert(c, plan.into_inner());
            }
        }

        let start = match raw.start {
            None => None,
            Some(s) => {
                let line = lines.line_of(s.span().start);
                at.start = line;
                let s = s.into_inner();
                let origin = s.origin.map(|[c, r]| Cell::new(c, r)).unwrap_or_default();
                let mut table = grid(&lines, text, &s.table, origin).map_err(|(l, m)| err(l, m))?;
                if let Some(th) = &s.thrones {
                    lay_thrones(&mut table, th).map_err(|m| err(line, format!("[start] {m}")))?;
                }
                let to_move = match s.to_move {
                    None => None,
                    Some(name) => Some(Colour::from_name(&name).ok_or_else(|| {
                        err(
                            line,
                            format!("[start] to_move names an unknown colour {name:?}"),
                        )
                    })?),
                };
                let state = match s.state {
                    None => toml::Table::new(),
                    Some(st) => {
                        at.state = lines.line_of(st.span().start);
                        st.into_inner()
                    }
                };
                Some((table, to_move, state))
            }
        };
        let state_line = at.state.max(at.start);
        let state_err = |m: &str| err(state_line, format!("[start] state: {m}"));
        let options_line = at.options;
        let options_err = |m: &str| err(options_line, format!("options: {m}"));
        let setup = match game {
            GameKind::EnPrise => GameSetup::EnPrise(enprise::Setup {
                players,
                battleplans,
                options: typed(options.clone(), &options_err)?,
                start: start_of(&start, &state_err)?,
            }),
            GameKind::DoubleCross => GameSetup::DoubleCross(doublecross::Setup {
                players,
                options: typed(options.clone(), &options_err)?,
                start: start_of(&start, &state_err)?,
            }),
            GameKind::Twelve => GameSetup::Twelve(twelve::Setup {
                players,
                options: typed(options.clone(), &options_err)?,
                start: start_of(&start, &state_err)?,
            }),
            GameKind::Enochian => GameSetup::Enochian(enochian::Setup {
                players,
                options: typed(options.clone(), &options_err)?,
                start: start_of(&start, &state_err)?,
            }),
        };

        let mut steps = Vec::with_capacity(raw.step.len());
        for (i, s) in raw.step.into_iter().enumerate() {
            let line = lines.line_of(s.span().start);
            steps.push(
                step(&lines, text, s.into_inner(), line)
                    .map_err(|(l, m)| err(l, format!("step {i}: {m}")))?,
            );
        }

        Ok(Script {
            file: file.to_string(),
            setup,
            lines: at,
            steps,
        })
    }

    /// The script's setup as a table script without steps: what a journal
    /// keeps to rebuild the game.
    pub fn setup_toml(&self) -> String {
        self.setup.to_toml()
    }

    /// The observations in order, for inputs that replay the script.
    pub fn observations(&self) -> impl Iterator<Item = &Observation> {
        self.steps.iter().map(|s| &s.observation)
    }
}

/// The start position with the game's typed state.
type RawStartParts = (Table, Option<Colour>, toml::Table);

fn start_of<S: DeserializeOwned>(
    start: &Option<RawStartParts>,
    err: &dyn Fn(&str) -> ScriptError,
) -> Result<Option<Start<S>>, ScriptError> {
    start
        .as_ref()
        .map(|(table, to_move, state)| {
            Ok(Start {
                table: table.clone(),
                to_move: *to_move,
                state: typed(state.clone(), err)?,
            })
        })
        .transpose()
}

/// A TOML table as a game's typed part (its options, its start state):
/// `deny_unknown_fields` there makes a typo an error.
fn typed<T: DeserializeOwned>(
    table: toml::Table,
    err: &dyn Fn(&str) -> ScriptError,
) -> Result<T, ScriptError> {
    table
        .try_into()
        .map_err(|e: toml::de::Error| err(e.message().trim()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScript {
    game: Spanned<String>,
    players: Option<Spanned<Vec<String>>>,
    options: Option<Spanned<toml::Table>>,
    battleplan: Option<Spanned<BTreeMap<String, Spanned<String>>>>,
    start: Option<Spanned<RawStart>>,
    #[serde(default)]
    step: Vec<Spanned<RawStep>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStart {
    table: Spanned<String>,
    origin: Option<[i32; 2]>,
    to_move: Option<String>,
    state: Option<Spanned<toml::Table>>,
    thrones: Option<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    table: Option<Spanned<String>>,
    origin: Option<[i32; 2]>,
    busy: Option<bool>,
    draw: Option<String>,
    call: Option<String>,
    by: Option<String>,
    roll: Option<i64>,
    thrones: Option<toml::Table>,
    expect: Option<Vec<toml::Value>>,
}

const EVENT_NAMES: [&str; 9] = [
    "game_started",
    "action",
    "flag",
    "cleared",
    "check",
    "checkmate",
    "eliminated",
    "game_over",
    "notice",
];

type Located2<T> = Result<T, (usize, String)>;

fn step(lines: &LineIndex, text: &str, s: RawStep, line: usize) -> Located2<Step> {
    let kinds = [
        s.table.is_some(),
        s.busy.is_some(),
        s.draw.is_some(),
        s.call.is_some(),
        s.roll.is_some(),
    ];
    match kinds.iter().filter(|k| **k).count() {
        0 => {
            return Err((
                line,
                "a step needs one of table, busy, draw, call or roll".into(),
            ));
        }
        1 => {}
        _ => {
            return Err((
                line,
                "a step has exactly one of table, busy, draw, call or roll".into(),
            ));
        }
    }
    if s.origin.is_some() && s.table.is_none() {
        return Err((line, "origin belongs with a table".into()));
    }
    if s.by.is_some() && s.call.is_none() {
        return Err((line, "by belongs with a call".into()));
    }
    if s.thrones.is_some() && s.table.is_none() {
        return Err((line, "thrones belongs with a table".into()));
    }
    let observation = if let Some(t) = &s.table {
        let origin = s.origin.map(|[c, r]| Cell::new(c, r)).unwrap_or_default();
        let mut table = grid(lines, text, t, origin)?;
        if let Some(th) = &s.thrones {
            lay_thrones(&mut table, th).map_err(|m| (line, m.to_string()))?;
        }
        Observation::Table(table)
    } else if let Some(b) = s.busy {
        if !b {
            return Err((line, "busy = false says nothing; leave the step out".into()));
        }
        Observation::Busy
    } else if let Some(d) = s.draw {
        Observation::Draw(d)
    } else if let Some(c) = s.call {
        Observation::Call { call: c, by: s.by }
    } else {
        let r = s.roll.unwrap_or_default();
        let r = u8::try_from(r)
            .ok()
            .filter(|r| (1..=6).contains(r))
            .ok_or((line, format!("roll = {r}: a die shows 1 to 6")))?;
        Observation::Roll(r)
    };
    let mut expect = Vec::new();
    for v in s.expect.unwrap_or_default() {
        let json = serde_json::to_value(&v).map_err(|e| (line, format!("expect: {e}")))?;
        let name = json.get("event").and_then(|e| e.as_str());
        match name {
            Some(n) if EVENT_NAMES.contains(&n) => {}
            Some(n) => return Err((line, format!("expect names an unknown event {n:?}"))),
            None => return Err((line, "each expect entry needs an \"event\"".into())),
        }
        expect.push(json);
    }
    Ok(Step {
        line,
        observation,
        expect,
    })
}

/// Lays a `thrones` table (`{ e1 = "uK+uN" }`) over a grid.
fn lay_thrones(table: &mut Table, thrones: &toml::Table) -> Result<(), BadThrone> {
    for (key, value) in thrones {
        let text = value
            .as_str()
            .ok_or_else(|| BadThrone::NotText(key.clone()))?;
        lay_throne(table, key, text)?;
    }
    Ok(())
}

/// The `thrones = { ... }` line for a table's pairs, if it has any.
pub fn thrones_toml(table: &Table) -> Option<String> {
    let items: Vec<String> = table
        .pairs()
        .map(|(cell, t)| match cell.square() {
            Some(square) => format!("{square} = \"{t}\""),
            None => format!("\"{}\" = \"{t}\"", cell_key(cell)),
        })
        .collect();
    (!items.is_empty()).then(|| format!("thrones = {{ {} }}\n", items.join(", ")))
}

/// Parses a grid string, mapping errors to the file line of the offending row.
fn grid(lines: &LineIndex, text: &str, s: &Spanned<String>, origin: Cell) -> Located2<Table> {
    Table::parse_grid(s.get_ref(), origin).map_err(|e| {
        let first = content_first_line(lines, text, s.span());
        // Escapes (`\n`, a line-ending backslash) break the one-to-one
        // mapping of grid rows to file lines; stay within the string.
        let last = lines.line_of(s.span().end.saturating_sub(1));
        ((first + e.line).min(last), e.message)
    })
}

/// The file line of the first line of a string's content: a multi-line
/// string drops the newline right after its opening quotes.
fn content_first_line(lines: &LineIndex, text: &str, span: Range<usize>) -> usize {
    let line = lines.line_of(span.start);
    let raw = text.get(span).unwrap_or("");
    let after_quotes = raw
        .strip_prefix("\"\"\"")
        .or_else(|| raw.strip_prefix("'''"));
    match after_quotes {
        Some(rest) if rest.starts_with('\n') || rest.starts_with("\r\n") => line + 1,
        _ => line,
    }
}

/// Writes a table as the grid text of a script step, with its origin.
pub fn step_toml(table: &Table) -> String {
    let (origin, grid) = table.to_grid();
    format!(
        "[[step]]\norigin = [{}, {}]\ntable = \"\"\"\n{grid}\"\"\"\n{}",
        origin.col,
        origin.row,
        thrones_toml(table).unwrap_or_default()
    )
}

/// Writes a table of a chessboard game as a script step: all 8 rows, rank
/// 8 first, `..` for an empty square, as players read a board.
pub fn board_step_toml(table: &Table) -> String {
    format!(
        "[[step]]\ntable = \"\"\"\n{}\"\"\"\n{}",
        table.grid_over(Cell::new(0, 0), Cell::new(7, 7)),
        thrones_toml(table).unwrap_or_default()
    )
}

/// Writes one observation as a script step; `chessboard` writes tables
/// as whole boards.
pub fn observation_toml(observation: &Observation, chessboard: bool) -> String {
    match observation {
        Observation::Table(t) if chessboard => board_step_toml(t),
        Observation::Table(t) => step_toml(t),
        Observation::Busy => "[[step]]\nbusy = true\n".into(),
        Observation::Draw(card) => format!("[[step]]\ndraw = \"{card}\"\n"),
        Observation::Call { call, by } => match by {
            Some(by) => format!("[[step]]\ncall = \"{call}\"\nby = \"{by}\"\n"),
            None => format!("[[step]]\ncall = \"{call}\"\n"),
        },
        Observation::Roll(n) => format!("[[step]]\nroll = {n}\n"),
    }
}

/// A setup and the observations that follow it, as a table script
/// ([`Script::parse`] reads it back).
pub fn write<'a>(
    setup: &GameSetup,
    observations: impl IntoIterator<Item = &'a Observation>,
) -> String {
    let chessboard = setup.kind().chessboard();
    let mut out = setup.to_toml();
    for o in observations {
        out.push('\n');
        out.push_str(&observation_toml(o, chessboard));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{Card, Piece, Token};

    const GOOD: &str = r#"game = "enprise"
players = ["white", "black"]

[battleplan]
white = "N P P B Q R P P N P B P R P P"
black = "P N P P B Q P R P N P B P R P"

[[step]]
table = """
wN
"""
expect = [{ event = "action", to = [0, 0] }]

[[step]]
origin = [-1, 0]
table = """
bP wN
"""
"#;

    #[test]
    fn loads_setup_steps_and_expectations() {
        let s = Script::parse("t.toml", GOOD).unwrap();
        assert_eq!(s.game(), GameKind::EnPrise);
        assert_eq!(s.setup.players(), Some(&[Colour::White, Colour::Black][..]));
        assert_eq!(s.lines.battleplans[&Colour::Black], 6);
        assert_eq!(s.steps.len(), 2);
        assert_eq!(s.steps[0].line, 8);
        assert_eq!(s.steps[0].expect[0]["to"], serde_json::json!([0, 0]));
        let Observation::Table(t) = &s.steps[1].observation else {
            panic!()
        };
        assert!(t.get(Cell::new(-1, 0)).is_some());
    }

    fn error_of(text: &str) -> ScriptError {
        Script::parse("bad.toml", text).unwrap_err()
    }

    #[test]
    fn a_bad_token_names_the_line_of_its_row() {
        let text = GOOD.replace("bP wN", "bP wX");
        let e = error_of(&text);
        assert_eq!(e.line, 17, "{e}");
        assert!(e.to_string().starts_with("bad.toml:17: step 1:"), "{e}");
    }

    #[test]
    fn unknown_keys_and_games_are_rejected_with_their_line() {
        let e = error_of(&GOOD.replace("[[step]]\norigin", "[[step]]\norign"));
        assert_eq!(e.line, 15, "{e}");
        assert!(e.message.contains("orign"), "{e}");
        let e = error_of(&GOOD.replace("\"enprise\"", "\"chess\""));
        assert_eq!(e.line, 1);
        assert!(e.message.contains("unknown game"), "{e}");
    }

    #[test]
    fn ragged_grids_and_double_steps_are_rejected() {
        let e = error_of(&GOOD.replace("bP wN\n", "bP wN\n##\n"));
        assert_eq!(e.line, 18, "{e}");
        assert!(e.message.contains("ragged"));
        let e = error_of(&GOOD.replace("[[step]]\norigin = [-1, 0]", "[[step]]\nbusy = true"));
        assert!(e.message.contains("exactly one"), "{e}");
        let e = error_of(&GOOD.replace("event = \"action\"", "event = \"acton\""));
        assert!(e.message.contains("acton"), "{e}");
    }

    #[test]
    fn the_setup_round_trips_without_its_steps() {
        let text = GOOD.replace(
            "[[step]]\ntable = \"\"\"\nwN",
            "[start]\ntable = \"\"\"\nwN ##\n\"\"\"\nto_move = \"black\"\nstate = { played = { white = 1 } }\n\n[[step]]\ntable = \"\"\"\nwN",
        );
        let s = Script::parse("t.toml", &text).unwrap();
        assert!(s.setup.start_table().is_some());
        let back = Script::parse("setup.toml", &s.setup_toml()).unwrap();
        assert!(back.steps.is_empty());
        assert_eq!(back.setup, s.setup, "{}", s.setup_toml());
    }

    #[test]
    fn a_setup_problem_names_the_line_of_its_part() {
        let text = GOOD.replace(
            "white = \"N P P B Q R P P N P B P R P P\"",
            "white = \"N P P\"",
        );
        let e = Script::parse("t.toml", &text)
            .unwrap()
            .referee()
            .err()
            .expect("a short Battleplan");
        assert_eq!(e.line, 5, "{e}");
        assert!(e.message.starts_with("white's Battleplan: "), "{e}");
        let e = Script::parse(
            "t.toml",
            &GOOD.replace(
                "[battleplan]",
                "options = { pawns_atack = true }\n[battleplan]",
            ),
        )
        .unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("pawns_atack"), "{e}");
        let e = Script::parse("t.toml", &GOOD.replace("\"enprise\"", "\"twelve\"")).unwrap_err();
        assert!(e.message.contains("belongs to En Prise"), "{e}");
    }

    #[test]
    fn a_written_script_reads_back_as_the_same_setup_and_steps() {
        let s = Script::parse("t.toml", GOOD).unwrap();
        let mut observations: Vec<Observation> = s.observations().cloned().collect();
        observations.push(Observation::Busy);
        observations.push(Observation::Call {
            call: "check".into(),
            by: Some("white".into()),
        });
        let text = write(&s.setup, &observations);
        let back = Script::parse("w.toml", &text).unwrap();
        assert_eq!(back.setup, s.setup, "{text}");
        assert_eq!(
            back.observations().cloned().collect::<Vec<_>>(),
            observations
        );
    }

    #[test]
    fn not_toml_at_all_is_an_error_not_a_panic() {
        let e = error_of("game = \"enprise\"\n[[step]\n");
        assert_eq!(e.line, 2, "{e}");
    }

    #[test]
    fn thrones_lay_a_pair_over_the_grid_and_round_trip() {
        let text = "game = \"enochian\"\n[[step]]\ntable = \"\"\"\n.. .. .. .. uN .. .. ..\n\"\"\"\norigin = [0, 7]\nthrones = { e1 = \"uN+uK\" }\n";
        let s = Script::parse("t.toml", text).unwrap();
        let Observation::Table(t) = &s.steps[0].observation else {
            panic!("a table step");
        };
        let king = Card::new(Colour::Blue, Piece::King);
        let knight = Card::new(Colour::Blue, Piece::Knight);
        assert_eq!(t.get(Cell::new(4, 7)), Some(Token::Pair(king, knight)));
        let again =
            Script::parse("u.toml", &format!("game = \"enochian\"\n{}", step_toml(t))).unwrap();
        assert_eq!(again.steps[0].observation, Observation::Table(t.clone()));
    }

    #[test]
    fn thrones_that_disagree_with_the_grid_name_the_square() {
        let text = "game = \"enochian\"\n[[step]]\ntable = \"\"\"\nrQ\n\"\"\"\norigin = [4, 7]\nthrones = { e1 = \"uK+uN\" }\n";
        let e = Script::parse("t.toml", text).unwrap_err();
        assert!(e.message.contains("e1") && e.message.contains("rQ"), "{e}");
        let text = text.replace("uK+uN", "uK");
        let e = Script::parse("t.toml", &text).unwrap_err();
        assert!(e.message.contains("pair"), "{e}");
    }
}
