//! The script parser and replay never panic, whatever the text.
//!
//! Inputs: arbitrary strings, TOML-flavoured noise, and the project's valid
//! scenario scripts (`fixtures/scenarios/`, plus a
//! short random game) after a few random edits: a character deleted,
//! inserted or replaced, a line duplicated or dropped.
//!
//! Properties:
//! - `Script::parse` and `replay` never panic;
//! - every error names the file first (`x.toml:LINE: message`) and its line
//!   lies within the text (at most one past its last line, for errors at
//!   the end of the input);
//! - a script that loads and replays starts with `game_started` at step 0.

mod common;

use std::sync::OnceLock;

use arbiter::event::EventBody;
use arbiter::replay::replay;
use arbiter::script::{Script, ScriptError};
use arbiter_testkit::Played;
use arbiter_testkit::games::enprise::random::random_game;
use proptest::prelude::*;
use proptest::sample::{Index, select};

const FILE: &str = "x.toml";

/// The texts of every scenario script that loads and replays, and of a
/// short random game (so there is always a base with moves and captures).
fn valid_scripts() -> &'static [String] {
    static SCRIPTS: OnceLock<Vec<String>> = OnceLock::new();
    SCRIPTS.get_or_init(|| {
        let paths = common::all_scenario_scripts();
        let mut texts: Vec<String> = paths
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .filter(|t| Script::parse(FILE, t).is_ok_and(|s| replay(&s).is_ok()))
            .collect();
        texts.sort();
        texts.dedup();
        texts.push(random_game(3, 2, 40).script());
        texts
    })
}

/// Parses and, when the script loads, replays `text`, checking every
/// property; a panic inside fails the case too.
fn check(text: &str) -> Result<(), TestCaseError> {
    let lines = text.lines().count();
    let check_error = |e: &ScriptError| -> Result<(), TestCaseError> {
        let shown = e.to_string();
        prop_assert!(
            shown.starts_with("x.toml:"),
            "error does not name the file: {shown}"
        );
        prop_assert_eq!(&e.file, FILE);
        prop_assert_eq!(&shown, &format!("{FILE}:{}: {}", e.line, e.message));
        prop_assert!(
            e.line <= lines + 1,
            "error on line {} of a {lines}-line text: {shown}",
            e.line
        );
        Ok(())
    };
    let script = match Script::parse(FILE, text) {
        Ok(s) => s,
        Err(e) => return check_error(&e),
    };
    match replay(&script) {
        Err(e) => check_error(&e),
        Ok(events) => {
            let first = events.first();
            prop_assert!(
                first.is_some_and(|e| e.step == 0 && matches!(e.body, EventBody::GameStarted { .. })),
                "replay does not start with game_started: {first:?}"
            );
            Ok(())
        }
    }
}

/// One edit of a script's text.
#[derive(Clone, Debug)]
enum Edit {
    DeleteChar(Index),
    InsertChar(Index, char),
    ReplaceChar(Index, char),
    DuplicateLine(Index),
    DropLine(Index),
}

/// Characters that matter to TOML and to grids, and now and then any.
fn edit_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => select(vec![
            '"', '\'', '[', ']', '{', '}', '=', ',', '#', '\n', '\r', ' ', '\t', '\\', '.', '-',
            '+', '0', '1', '9', 'w', 'b', 'r', 'u', 'K', 'Q', 'N', 'P', '?', 'é', '\u{0}',
        ]),
        1 => any::<char>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<Index>().prop_map(Edit::DeleteChar),
        (any::<Index>(), edit_char()).prop_map(|(i, c)| Edit::InsertChar(i, c)),
        (any::<Index>(), edit_char()).prop_map(|(i, c)| Edit::ReplaceChar(i, c)),
        any::<Index>().prop_map(Edit::DuplicateLine),
        any::<Index>().prop_map(Edit::DropLine),
    ]
}

fn apply(text: &str, edit: &Edit) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    match edit {
        Edit::DeleteChar(i) if !chars.is_empty() => {
            chars.remove(i.index(chars.len()));
        }
        Edit::InsertChar(i, c) => chars.insert(i.index(chars.len() + 1), *c),
        Edit::ReplaceChar(i, c) if !chars.is_empty() => {
            let i = i.index(chars.len());
            chars[i] = *c;
        }
        Edit::DuplicateLine(i) if !lines.is_empty() => {
            let i = i.index(lines.len());
            lines.insert(i, lines[i]);
            return lines.concat();
        }
        Edit::DropLine(i) if !lines.is_empty() => {
            lines.remove(i.index(lines.len()));
            return lines.concat();
        }
        _ => {}
    }
    chars.into_iter().collect()
}

/// A valid script with one to four edits.
fn mutated_script() -> impl Strategy<Value = String> {
    (
        select(valid_scripts()),
        prop::collection::vec(edit(), 1..=4),
    )
        .prop_map(|(text, edits)| edits.iter().fold(text, |t, e| apply(&t, e)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        check(&text)?;
    }

    #[test]
    fn toml_like_noise_never_panics(
        text in "(game = \"enprise\"\n)?([\\[\\]{}=,\"'# .\n\\-0-9a-z_wbruKQRBNP]|\\[\\[step\\]\\]|table|origin|\"\"\"){0,80}"
    ) {
        check(&text)?;
    }

    #[test]
    fn edited_valid_scripts_never_panic(text in mutated_script()) {
        check(&text)?;
    }
}

#[test]
fn the_valid_bases_load_and_replay() {
    assert!(valid_scripts().len() >= 2);
    for text in valid_scripts() {
        check(text).unwrap();
    }
}

/// Regression: a grid given as a one-line string with `\n` escapes reports
/// its bad row at the grid's line counted from the string's line, past the
/// end of the file (here line 11 of a 7-line script).
#[test]
fn grid_errors_in_escaped_strings_stay_in_the_file() {
    check(&format!(
        "{HEAD}[[step]]\ntable = \"wN\\n..\\n..\\n..\\nwX\"\n"
    ))
    .unwrap();
}

/// Two players, no steps yet: the head of the overflow reproducers.
const HEAD: &str = "game = \"enprise\"\nplayers = [\"white\", \"black\"]\n[battleplan]\n\
    white = \"N P P B Q R P P N P B P R P P\"\nblack = \"P N P P B Q P R P N P B P R P\"\n";

/// Regression: cell arithmetic overflowed (a panic in debug builds, wrapped
/// coordinates in release) for an origin near the edge of `i32`. Here in
/// the grid parser (`Cell::offset` in `Table::parse_grid`).
#[test]
fn a_grid_near_the_edge_of_i32_does_not_overflow() {
    check(&format!(
        "{HEAD}[[step]]\norigin = [2147483647, 0]\ntable = \"wN ##\"\n"
    ))
    .unwrap();
}

/// The same in the board's growth (`Grid::grow_to`) for a `[start]` card.
#[test]
fn a_start_card_near_the_edge_of_i32_does_not_overflow() {
    check(&format!(
        "{HEAD}[start]\norigin = [2147483647, 0]\ntable = \"wN\"\n"
    ))
    .unwrap();
}

/// The same in the referee's alignment (`Cell::minus` in
/// `candidate_offsets`) for a whole-table shift to the edge of `i32`.
#[test]
fn a_shift_to_the_edge_of_i32_does_not_overflow() {
    check(&format!(
        "{HEAD}[[step]]\ntable = \"wN\"\n[[step]]\norigin = [-2147483648, 0]\ntable = \"wN\"\n"
    ))
    .unwrap();
}
