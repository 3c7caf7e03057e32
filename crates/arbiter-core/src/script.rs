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
use toml::Spanned;

use crate::observation::Observation;
use crate::table::{Cell, Colour, Table, Token};

/// A problem in a script (or any TOML input), located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct ScriptError {
    pub file: String,
    /// 1-based; 0 when the problem has no single line.
    pub line: usize,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameKind {
    EnPrise,
    DoubleCross,
    Twelve,
    Enochian,
}

impl GameKind {
    pub fn parse(s: &str) -> Option<GameKind> {
        match s {
            "enprise" => Some(GameKind::EnPrise),
            "doublecross" => Some(GameKind::DoubleCross),
            "twelve" => Some(GameKind::Twelve),
            "enochian" => Some(GameKind::Enochian),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            GameKind::EnPrise => "enprise",
            GameKind::DoubleCross => "doublecross",
            GameKind::Twelve => "twelve",
            GameKind::Enochian => "enochian",
        }
    }
}

/// A value with the line it was written on, for errors found after parsing.
#[derive(Clone, Debug, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub line: usize,
}

#[derive(Clone, Debug)]
pub struct Script {
    /// The file name used in messages.
    pub file: String,
    pub game: GameKind,
    pub players: Option<Located<Vec<Colour>>>,
    pub options: Located<toml::Table>,
    /// Each player's Battleplan text, by colour (En Prise).
    pub battleplan: BTreeMap<Colour, Located<String>>,
    pub start: Option<Start>,
    pub steps: Vec<Step>,
}

#[derive(Clone, Debug)]
pub struct Start {
    pub table: Table,
    pub to_move: Option<Colour>,
    pub state: Located<toml::Table>,
    pub line: usize,
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

    /// The `options` table as a game's typed options (`deny_unknown_fields`
    /// there makes a typo an error naming the line).
    pub fn options_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, ScriptError> {
        self.options
            .value
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| {
                self.error(self.options.line, format!("options: {}", e.message()))
            })
    }

    /// For the two-player games of White against Black: `players`, if
    /// given, must be exactly that (`wrong_players` says so), and there
    /// are no Battleplans.
    pub fn white_against_black(&self, game: &str, wrong_players: &str) -> Result<(), ScriptError> {
        if let Some(p) = &self.players
            && p.value != [Colour::White, Colour::Black]
        {
            return Err(self.error(p.line, wrong_players));
        }
        if let Some((_, bp)) = self.battleplan.iter().next() {
            return Err(self.error(
                bp.line,
                format!("[battleplan] belongs to En Prise, not {game}"),
            ));
        }
        Ok(())
    }

    /// A setup with nothing but its game (no players, options, Battleplans
    /// or start: the game's defaults), to fill in as typed values.
    pub fn setup_of(game: GameKind) -> Script {
        Script {
            file: "setup".into(),
            game,
            players: None,
            options: Located {
                value: toml::Table::new(),
                line: 0,
            },
            battleplan: BTreeMap::new(),
            start: None,
            steps: Vec::new(),
        }
    }

    pub fn load(path: &Path) -> Result<Script, ScriptError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScriptError {
            file: file.clone(),
            line: 0,
            message: format!("cannot read the script: {e}"),
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

        let players =
            match raw.players {
                None => None,
                Some(p) => {
                    let line = lines.line_of(p.span().start);
                    let mut colours = Vec::new();
                    for name in p.get_ref() {
                        let c = Colour::from_name(name).ok_or_else(|| {
                        err(line, format!(
                            "unknown player colour {name:?} (white, black, red, blue or yellow)"
                        ))
                    })?;
                        if colours.contains(&c) {
                            return Err(err(line, format!("player {name:?} is listed twice")));
                        }
                        colours.push(c);
                    }
                    Some(Located {
                        value: colours,
                        line,
                    })
                }
            };

        let options = match raw.options {
            None => Located {
                value: toml::Table::new(),
                line: 0,
            },
            Some(o) => Located {
                line: lines.line_of(o.span().start),
                value: o.into_inner(),
            },
        };

        let mut battleplan = BTreeMap::new();
        if let Some(bp) = raw.battleplan {
            for (name, plan) in bp.into_inner() {
                let line = lines.line_of(plan.span().start);
                let c = Colour::from_name(&name).ok_or_else(|| {
                    err(
                        line,
                        format!("[battleplan] names an unknown colour {name:?}"),
                    )
                })?;
                battleplan.insert(
                    c,
                    Located {
                        value: plan.into_inner(),
                        line,
                    },
                );
            }
        }

        let start = match raw.start {
            None => None,
            Some(s) => {
                let line = lines.line_of(s.span().start);
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
                    None => Located {
                        value: toml::Table::new(),
                        line,
                    },
                    Some(st) => Located {
                        line: lines.line_of(st.span().start),
                        value: st.into_inner(),
                    },
                };
                Some(Start {
                    table,
                    to_move,
                    state,
                    line,
                })
            }
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
            game,
            players,
            options,
            battleplan,
            start,
            steps,
        })
    }

    /// The script's setup (game, players, options, Battleplans, start) as a
    /// table script without steps: what a journal keeps to rebuild the game.
    pub fn setup_toml(&self) -> String {
        use toml::Value;
        let mut t = toml::Table::new();
        t.insert("game".into(), Value::from(self.game.name()));
        if let Some(p) = &self.players {
            t.insert(
                "players".into(),
                Value::from(p.value.iter().map(|c| c.name()).collect::<Vec<_>>()),
            );
        }
        if !self.options.value.is_empty() {
            t.insert("options".into(), Value::Table(self.options.value.clone()));
        }
        if !self.battleplan.is_empty() {
            let bp = self
                .battleplan
                .iter()
                .map(|(c, p)| (c.name().to_string(), Value::from(p.value.clone())));
            t.insert("battleplan".into(), Value::Table(bp.collect()));
        }
        if let Some(start) = &self.start {
            let (origin, grid) = start.table.to_grid();
            let mut st = toml::Table::new();
            st.insert("table".into(), Value::from(grid));
            st.insert("origin".into(), Value::from(vec![origin.col, origin.row]));
            let pairs: toml::Table = start
                .table
                .pairs()
                .map(|(cell, t)| {
                    let key = cell
                        .square()
                        .unwrap_or_else(|| format!("{},{}", cell.col, cell.row));
                    (key, Value::from(t.to_string()))
                })
                .collect();
            if !pairs.is_empty() {
                st.insert("thrones".into(), Value::Table(pairs));
            }
            if let Some(c) = start.to_move {
                st.insert("to_move".into(), Value::from(c.name()));
            }
            if !start.state.value.is_empty() {
                st.insert("state".into(), Value::Table(start.state.value.clone()));
            }
            t.insert("start".into(), Value::Table(st));
        }
        toml::to_string(&t).expect("a TOML table always serialises")
    }

    /// The observations in order, for inputs that replay the script.
    pub fn observations(&self) -> impl Iterator<Item = &Observation> {
        self.steps.iter().map(|s| &s.observation)
    }
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
            lay_thrones(&mut table, th).map_err(|m| (line, m))?;
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

/// Lays a `thrones` table (`{ e1 = "uK+uN" }`) over a grid: each named
/// cell holds both cards, and the grid must show one of them there.
fn lay_thrones(table: &mut Table, thrones: &toml::Table) -> Result<(), String> {
    for (key, value) in thrones {
        let cell = cell_key(key).ok_or_else(|| {
            format!("thrones: {key:?} is not a square (such as e1) or a cell (such as \"4,7\")")
        })?;
        let text = value
            .as_str()
            .ok_or_else(|| format!("thrones: {key} must be a pair such as \"uK+uN\""))?;
        let pair = Token::parse_pair(text).map_err(|e| format!("thrones: {key}: {e}"))?;
        let shown = table.get(cell);
        if !shown
            .and_then(Token::card)
            .is_some_and(|c| pair.cards().any(|p| p == c))
        {
            let shown = shown.map_or("..".to_string(), |t| t.to_string());
            return Err(format!(
                "thrones: {key} = {text:?}, but the grid shows {shown} there (it shows one of the pair)"
            ));
        }
        table.set(cell, Some(pair));
    }
    Ok(())
}

/// A `thrones` key: an algebraic square of the 8x8 board, or `"col,row"`.
fn cell_key(key: &str) -> Option<Cell> {
    if let Some((c, r)) = key.split_once(',') {
        let cell = Cell::new(c.trim().parse().ok()?, r.trim().parse().ok()?);
        return cell.in_range().then_some(cell);
    }
    let b = key.as_bytes();
    match b {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            Some(Cell::new(i32::from(f - b'a'), 8 - i32::from(r - b'0')))
        }
        _ => None,
    }
}

/// The `thrones = { ... }` line for a table's pairs, if it has any.
pub fn thrones_toml(table: &Table) -> Option<String> {
    let items: Vec<String> = table
        .pairs()
        .map(|(cell, t)| {
            let key = cell
                .square()
                .unwrap_or_else(|| format!("\"{},{}\"", cell.col, cell.row));
            format!("{key} = \"{t}\"")
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

/// Byte offset to 1-based line number.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{Card, Piece};

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
        assert_eq!(s.game, GameKind::EnPrise);
        assert_eq!(s.players.unwrap().value, vec![Colour::White, Colour::Black]);
        assert_eq!(s.battleplan[&Colour::Black].line, 6);
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
        assert!(s.start.is_some());
        let back = Script::parse("setup.toml", &s.setup_toml()).unwrap();
        assert!(back.steps.is_empty());
        assert_eq!(back.game, s.game);
        assert_eq!(
            back.players.as_ref().unwrap().value,
            s.players.as_ref().unwrap().value
        );
        let plans = |x: &Script| {
            x.battleplan
                .iter()
                .map(|(c, p)| (*c, p.value.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(plans(&back), plans(&s));
        let (a, b) = (back.start.unwrap(), s.start.unwrap());
        assert_eq!(
            (a.table, a.to_move, a.state.value),
            (b.table, b.to_move, b.state.value)
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
