//! The journal: a game written as it is played survives a kill at any byte,
//! resumes to the very referee an uninterrupted game has, refuses damage in
//! the middle with its line, and exports a game record.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use arbiter::event::Event;
use arbiter::journal::{self, Journal, JournalError, Resume};
use arbiter::replay::referee_for;
use arbiter::script::Script;
use arbiter::table::{Cell, Table};

/// A copy of the team's shared En Prise example (`enprise-basics.toml`).
const SHARED: &str = "fixtures/scenarios/enprise/basics.toml";
const DEMO: &str = "fixtures/scenarios/enprise/demo.toml";

fn load(rel: &str) -> Script {
    Script::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

fn temp(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "arbiter-journal-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    // The journal creates missing folders itself.
    dir.join("games").join(name)
}

/// An uninterrupted game: its journal, and after k observations the events
/// so far and the table the referee expects.
struct Played {
    path: PathBuf,
    events: Vec<Event>,
    events_after: Vec<usize>,
    tables_after: Vec<Table>,
}

impl Drop for Played {
    fn drop(&mut self) {
        if let Some(dir) = self.path.parent().and_then(Path::parent) {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

fn play(script: &Script, path: PathBuf) -> Played {
    let mut journal = Journal::create(&path, &script.setup_toml()).unwrap();
    let mut referee = referee_for(script).unwrap();
    let mut events = referee.start();
    let mut events_after = vec![events.len()];
    let mut tables_after = vec![referee.expected_table().clone()];
    for (i, obs) in script.observations().enumerate() {
        let ev = referee.observe(i, obs);
        journal.append(i, obs, &ev).unwrap();
        events.extend(ev);
        events_after.push(events.len());
        tables_after.push(referee.expected_table().clone());
    }
    let last = script.steps.len().saturating_sub(1);
    let ev = referee.finish(last);
    journal.finish(last, &ev).unwrap();
    events.extend(ev);
    Played {
        path,
        events,
        events_after,
        tables_after,
    }
}

/// Resumes a journal cut at `cut` bytes, checks the rebuilt game against the
/// uninterrupted one, plays the rest, and checks the journal is whole again.
fn resume_at(script: &Script, played: &Played, full: &[u8], cut: usize) {
    let path = temp("cut.jsonl");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, &full[..cut]).unwrap();
    let Resume {
        mut journal,
        resumed,
        mut referee,
    } = Journal::resume(&path).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
    let k = resumed.observations.len();
    assert_eq!(resumed.next_step, k, "cut at {cut}");
    assert_eq!(journal.next_step(), k);
    assert_eq!(
        referee.expected_table(),
        &played.tables_after[k],
        "cut at {cut}: the rebuilt referee expects another table"
    );
    let ended = resumed
        .records
        .last()
        .is_some_and(|r| matches!(r.input, journal::Input::Finish { .. }));
    if !ended {
        assert_eq!(
            resumed.events,
            played.events[..played.events_after[k]],
            "cut at {cut}"
        );
    }
    let mut events = resumed.events.clone();
    for (i, obs) in script.observations().enumerate().skip(k) {
        let ev = referee.observe(i, obs);
        journal.append(i, obs, &ev).unwrap();
        events.extend(ev);
    }
    if !ended {
        let last = script.steps.len().saturating_sub(1);
        let ev = referee.finish(last);
        journal.finish(last, &ev).unwrap();
        events.extend(ev);
    }
    assert_eq!(events, played.events, "cut at {cut}");
    assert_eq!(
        referee.expected_table(),
        played.tables_after.last().unwrap()
    );
    drop(journal);
    // Nothing lost, nothing doubled: the same bytes as the uninterrupted game.
    let again = fs::read(&path).unwrap();
    assert!(
        again == full,
        "cut at {cut}: the resumed journal differs:\n{}",
        String::from_utf8_lossy(&again)
    );
    let _ = fs::remove_dir_all(path.parent().unwrap().parent().unwrap());
}

fn cuts_resume_to_the_same_game(rel: &str) {
    let script = load(rel);
    let played = play(&script, temp("game.jsonl"));
    let full = fs::read(&played.path).unwrap();
    let header_end = full.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut cuts = vec![];
    let mut start = header_end;
    for (i, &b) in full.iter().enumerate().skip(header_end) {
        if b == b'\n' {
            // At the line's start, in its middle, just before its newline.
            cuts.extend([start, (start + i) / 2, i]);
            start = i + 1;
        }
    }
    cuts.push(full.len());
    for cut in cuts {
        resume_at(&script, &played, &full, cut);
    }
    // A cut inside the header leaves nothing to resume: an error, not a panic.
    let path = temp("header.jsonl");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, &full[..header_end / 2]).unwrap();
    let e = Journal::resume(&path).err().unwrap();
    assert_eq!(e.line(), Some(1), "{e}");
}

#[test]
fn the_shared_scenario_resumes_from_any_cut() {
    cuts_resume_to_the_same_game(SHARED);
}

#[test]
fn the_demo_resumes_from_any_cut() {
    cuts_resume_to_the_same_game(DEMO);
}

#[test]
fn every_scenario_journals_and_rebuilds_as_replayed() {
    let mut n = 0;
    for path in common::all_scenario_scripts() {
        let Ok(script) = Script::load(&path) else {
            continue;
        };
        if referee_for(&script).is_err() {
            continue;
        }
        let played = play(&script, temp("s.jsonl"));
        let r = journal::read(&played.path).unwrap();
        assert_eq!(r.events, played.events, "{}", path.display());
        let rebuilt = journal::rebuild(&r).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(rebuilt.missing.is_empty());
        assert_eq!(
            rebuilt.referee.expected_table(),
            played.tables_after.last().unwrap(),
            "{}",
            path.display()
        );
        n += 1;
    }
    assert!(n > 20, "only {n} scenarios journaled");
}

#[test]
fn garbage_in_the_middle_is_an_error_naming_the_file_and_line() {
    let played = play(&load(DEMO), temp("demo.jsonl"));
    let text = fs::read_to_string(&played.path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[9] = "{\"obs\": 4, \"table\": \"wP\\n\", \"orig";
    let damaged = lines.join("\n") + "\n";
    fs::write(&played.path, &damaged).unwrap();
    let e = Journal::resume(&played.path).err().unwrap();
    assert!(matches!(e, JournalError::Invalid { line: 10, .. }), "{e}");
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("{}:10: ", played.path.display())),
        "{shown}"
    );
    assert_eq!(
        fs::read_to_string(&played.path).unwrap(),
        damaged,
        "untouched"
    );

    // A bad token inside a grid names the line too.
    lines[9] = r#"{"obs":4,"table":"wX\n","origin":[0,0]}"#;
    fs::write(&played.path, lines.join("\n") + "\n").unwrap();
    let e = journal::read(&played.path).unwrap_err();
    assert!(e.to_string().contains(":10: table, grid row 1:"), "{e}");
    assert!(journal::export(&played.path).is_err());
}

#[test]
fn the_demo_exports_numbered_turns_the_mate_and_the_final_board() {
    let script = load(DEMO);
    let played = play(&script, temp("demo.jsonl"));
    let record = journal::export(&played.path).unwrap();
    assert!(record.contains("Game:        enprise"), "{record}");
    assert!(record.contains("Players:     white, black"), "{record}");
    assert!(
        record.contains("Battleplans: white  P P P B P R Q P P N P B N P R"),
        "{record}"
    );
    assert!(
        record.contains("  1. white  places wP at (0,0)"),
        "{record}"
    );
    assert!(
        record.contains("     black  places bP at (0,-1)"),
        "{record}"
    );
    assert!(
        record.contains("FLAG missed_swap [EP-MISSED-SWAP]"),
        "{record}"
    );
    assert!(record.contains("CHECKMATE: black"), "{record}");
    assert!(
        record.contains("Result:      game over: white wins"),
        "{record}"
    );

    // Turns count up one by one, each opened by white.
    let numbers: Vec<(usize, &str)> = record
        .lines()
        .filter_map(|l| {
            let (n, rest) = l.trim_start().split_once(". ")?;
            Some((n.parse().ok()?, rest.split_whitespace().next()?))
        })
        .collect();
    assert!(numbers.len() > 10, "{record}");
    for (i, (n, who)) in numbers.iter().enumerate() {
        assert_eq!((*n, *who), (i + 1, "white"), "{record}");
    }

    // The diagram: column numbers on top, row numbers down the left.
    let diagram: Vec<&str> = record
        .lines()
        .skip_while(|l| !l.starts_with("Final table"))
        .skip(2)
        .collect();
    let cols: Vec<i32> = diagram[0]
        .split_whitespace()
        .map(|c| c.parse().unwrap())
        .collect();
    let mut rows = vec![];
    let mut grid = String::new();
    for line in &diagram[1..] {
        let mut tokens = line.split_whitespace();
        rows.push(tokens.next().unwrap().parse::<i32>().unwrap());
        grid += &tokens.collect::<Vec<_>>().join(" ");
        grid.push('\n');
    }
    assert!(cols.windows(2).all(|w| w[1] == w[0] + 1), "{record}");
    assert!(rows.windows(2).all(|w| w[1] == w[0] + 1), "{record}");
    let drawn = Table::parse_grid(&grid, Cell::new(cols[0], rows[0])).unwrap();
    assert_eq!(&drawn, played.tables_after.last().unwrap(), "{record}");
}

mod damaged {
    use super::*;
    use proptest::prelude::*;
    use proptest::sample::{Index, select};
    use std::sync::OnceLock;

    /// The shared scenario's journal, written once.
    fn journal_bytes() -> &'static [u8] {
        static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
        BYTES.get_or_init(|| {
            let played = play(&load(SHARED), temp("fuzz-source.jsonl"));
            fs::read(&played.path).unwrap()
        })
    }

    #[derive(Debug, Clone)]
    enum Edit {
        Replace(Index, u8),
        Insert(Index, u8),
        Delete(Index),
        DropLine(Index),
        Cut(Index),
    }

    fn edit() -> impl Strategy<Value = Edit> {
        let byte = select(b"0123456789-,:\"[]{}\\\n wNbP#.?xe".to_vec());
        prop_oneof![
            (any::<Index>(), byte.clone()).prop_map(|(i, b)| Edit::Replace(i, b)),
            (any::<Index>(), byte).prop_map(|(i, b)| Edit::Insert(i, b)),
            any::<Index>().prop_map(Edit::Delete),
            any::<Index>().prop_map(Edit::DropLine),
            any::<Index>().prop_map(Edit::Cut),
        ]
    }

    fn apply(bytes: &mut Vec<u8>, e: &Edit) {
        if bytes.is_empty() {
            return;
        }
        match *e {
            Edit::Replace(i, b) => {
                let i = i.index(bytes.len());
                bytes[i] = b;
            }
            Edit::Insert(i, b) => bytes.insert(i.index(bytes.len() + 1), b),
            Edit::Delete(i) => {
                bytes.remove(i.index(bytes.len()));
            }
            Edit::DropLine(i) => {
                let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
                let k = i.index(lines.len());
                let kept: Vec<&[u8]> = lines
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != k)
                    .map(|(_, l)| *l)
                    .collect();
                *bytes = kept.join(&b'\n');
            }
            Edit::Cut(i) => bytes.truncate(i.index(bytes.len() + 1)),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Any damage is an error naming the file, or a journal that still
        /// resumes; never a panic.
        #[test]
        fn damaged_journals_are_errors_never_panics(edits in prop::collection::vec(edit(), 1..4)) {
            let mut bytes = journal_bytes().to_vec();
            for e in &edits {
                apply(&mut bytes, e);
            }
            let path = temp("damaged.jsonl");
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &bytes).unwrap();
            let name = path.display().to_string();
            for result in [
                journal::export(&path).map(|_| ()),
                Journal::resume(&path).map(|_| ()),
            ] {
                if let Err(e) = result {
                    prop_assert!(e.to_string().starts_with(&name), "{}", e);
                }
            }
            let _ = fs::remove_dir_all(path.parent().unwrap().parent().unwrap());
        }
    }
}
