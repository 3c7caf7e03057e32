//! A game survives a kill: a running `arbiter` is killed mid-game, resumed
//! from its journal, and ends in exactly the state of a run that was never
//! interrupted — the same journal, byte for byte, and the same screen.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter::input::script::ScriptInput;
use arbiter::journal::Journal;
use arbiter::replay::referee_for;
use arbiter::script::Script;
use arbiter::tui::{App, Source};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const DEMO: &str = "fixtures/scenarios/enprise/demo.toml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-resume-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("game.jsonl")
}

fn arbiter() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    c.current_dir(root());
    c
}

fn observations_in(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().filter(|l| l.starts_with("{\"obs\"")).count())
        .unwrap_or(0)
}

#[test]
fn a_killed_watch_resumes_to_the_same_journal() {
    let input = format!("script:{DEMO}");
    // The uninterrupted run.
    let whole = temp("whole");
    let o = arbiter()
        .args(["watch", "--input", &input, "--json", "--journal"])
        .arg(&whole)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // The same, paced, killed after a dozen observations.
    let cut = temp("cut");
    let mut child = arbiter()
        .args([
            "watch",
            "--input",
            &input,
            "--json",
            "--step-delay",
            "0.05",
            "--journal",
        ])
        .arg(&cut)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while observations_in(&cut) < 12 {
        assert!(Instant::now() < deadline, "the paced run never got going");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let seen = observations_in(&cut);
    assert!(
        seen < Script::load(&root().join(DEMO)).unwrap().steps.len(),
        "killed mid-game"
    );

    let o = arbiter()
        .args(["watch", "--input", &input, "--json", "--resume"])
        .arg(&cut)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let resumed_out = String::from_utf8(o.stdout).unwrap();
    assert!(
        !resumed_out.contains("game_started"),
        "a resumed run goes on, it does not start over"
    );
    assert_eq!(
        std::fs::read_to_string(&cut).unwrap(),
        std::fs::read_to_string(&whole).unwrap(),
        "the resumed journal equals the uninterrupted one"
    );
    // The record of both is the same game.
    let a = arbiter().args(["export"]).arg(&cut).output().unwrap();
    let b = arbiter().args(["export"]).arg(&whole).output().unwrap();
    let strip = |o: &std::process::Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.starts_with("Journal:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&a), strip(&b));
    assert!(strip(&a).contains("game over: white wins"), "{}", strip(&a));
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn screen(app: &App) -> String {
    let mut t = Terminal::new(TestBackend::new(120, 36)).unwrap();
    t.draw(|f| arbiter::tui::draw(app, f)).unwrap();
    t.backend().to_string()
}

fn demo_app(journal: Option<Journal>) -> App {
    let script = Script::load(&root().join(DEMO)).unwrap();
    let referee = referee_for(&script).unwrap();
    App::new(
        referee,
        Source::Script(ScriptInput::new(script, None)),
        "demo".into(),
        journal,
        true,
    )
}

#[test]
fn the_view_resumes_to_the_identical_screen() {
    let steps = Script::load(&root().join(DEMO)).unwrap().steps.len();
    for cut_at in [1, 9, 13, steps - 1] {
        let path = temp(&format!("view{cut_at}"));
        let setup = Script::load(&root().join(DEMO)).unwrap().setup_toml();
        let mut app = demo_app(Some(Journal::create(&path, &setup).unwrap()));
        for _ in 0..cut_at {
            app.on_key(key(' '));
        }
        // The terminal closes: the app is gone, the journal stays.
        drop(app);

        let (journal, resumed) = Journal::open_for_resume(&path).unwrap();
        let mut back = demo_app(Some(journal));
        back.restore(&resumed.records);
        let mut never_stopped = demo_app(None);
        for _ in 0..cut_at {
            never_stopped.on_key(key(' '));
        }
        assert_eq!(
            screen(&back),
            screen(&never_stopped),
            "after a cut at step {cut_at}"
        );
        assert_eq!(back.events(), never_stopped.events());
        for _ in cut_at..steps {
            back.on_key(key(' '));
            never_stopped.on_key(key(' '));
        }
        assert_eq!(
            screen(&back),
            screen(&never_stopped),
            "played on from step {cut_at}"
        );
        assert!(screen(&back).contains("CHECKMATE"));
    }
}

const MOCK_SETUP: &str = "game = \"enprise\"\nplayers = [\"white\", \"black\"]\n[battleplan]\nwhite = \"NPPBQRPPNPBPRPP\"\nblack = \"PNPPBQPRPNPBPRP\"\n";

fn mock_app(journal: Option<Journal>) -> App {
    use arbiter::input::mock::MockTable;
    let script = Script::parse("setup", MOCK_SETUP).unwrap();
    let referee = referee_for(&script).unwrap();
    let mock = MockTable::new(referee.expected_table());
    App::new(referee, Source::Mock(mock), "mock".into(), journal, true)
}

/// A card put on another hides it; the journal keeps the hidden card, so a
/// resumed mock table still has it under the top one.
#[test]
fn a_resumed_mock_table_keeps_its_stacked_cards() {
    let path = temp("stacks");
    let setup = Script::parse("setup", MOCK_SETUP).unwrap().setup_toml();
    let keys = [
        key('u'),                                          // white's knight
        KeyEvent::new(KeyCode::Right, KeyModifiers::NONE), // to its right
        key('d'),                                          // black's vacant square
        key('u'),                                          // white's pawn on it
    ];
    let mut app = mock_app(Some(Journal::create(&path, &setup).unwrap()));
    let mut never_stopped = mock_app(None);
    for k in keys {
        app.on_key(k);
        never_stopped.on_key(k);
    }
    drop(app);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"beneath\":[[1,0,\"##\"]]"), "{text}");

    let (journal, resumed) = Journal::open_for_resume(&path).unwrap();
    let mut back = mock_app(Some(journal));
    back.restore(&resumed.records);
    // The pawn lifted off again: the vacant square it covered shows. (A
    // resumed mock puts its cursor on the first card: move it to the pawn.)
    back.on_key(KeyEvent::new(KeyCode::Right, KeyModifiers::NONE));
    back.on_key(key(' '));
    never_stopped.on_key(key(' '));
    let table = |app: &App| match app.source() {
        Source::Mock(m) => m.table(),
        _ => panic!("a mock table"),
    };
    assert_eq!(table(&back), table(&never_stopped), "{}", screen(&back));
    assert_eq!(
        table(&back).get(arbiter::table::Cell::new(1, 0)),
        Some(arbiter::table::Token::Down),
        "{}",
        screen(&back)
    );
}

/// Steps are counted as players count them: a card in hand (the mock's
/// lift, a camera's busy frames) is no step and is not journaled. A
/// journal written before that, its busy frames numbered among the steps,
/// still resumes, and goes on from its own last step.
#[test]
fn a_card_in_hand_is_no_step_and_older_journals_with_busy_steps_resume() {
    use serde_json::Value;
    let right = KeyEvent::new(KeyCode::Right, KeyModifiers::NONE);
    let keys = [
        key('u'), // white's knight on (0,0)
        right,    //
        key('d'), // black's vacant square on (1,0)
        key(' '), // lifted: a card in hand
        key(' '), // put back
        right,    //
        key('u'), // white's pawn on (2,0)
    ];
    let path = temp("in-hand");
    let setup = Script::parse("setup", MOCK_SETUP).unwrap().setup_toml();
    let mut app = mock_app(Some(Journal::create(&path, &setup).unwrap()));
    let mut never_stopped = mock_app(None);
    for k in keys {
        app.on_key(k);
        never_stopped.on_key(k);
    }
    drop(app);
    let now = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Value> = now
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let obs: Vec<u64> = lines.iter().filter_map(|v| v["obs"].as_u64()).collect();
    assert_eq!(
        obs,
        [0, 1, 2, 3],
        "four tables, four steps, no busy one:\n{now}"
    );
    assert!(!now.contains("busy"), "{now}");

    // The same game as journaled before: the lift was step 2.
    let mut before = String::new();
    for v in &lines {
        let mut v = v.clone();
        for key in ["obs", "step"] {
            if let Some(n) = v[key].as_u64().filter(|&n| n >= 2) {
                v[key] = (n + 1).into();
            }
        }
        if v["obs"] == 3 {
            before.push_str("{\"obs\":2,\"busy\":true}\n");
        }
        before.push_str(&format!("{v}\n"));
    }
    let old = path.with_file_name("before.jsonl");
    std::fs::write(&old, &before).unwrap();

    // Played on without a stop: black's vacant square on (3,0).
    never_stopped.on_key(right);
    never_stopped.on_key(key('d'));
    let bodies = |app: &App| {
        app.events()
            .iter()
            .map(|e| e.body.clone())
            .collect::<Vec<_>>()
    };
    for (path, next) in [(&path, 4), (&old, 5)] {
        let (journal, resumed) = Journal::open_for_resume(path).unwrap();
        let mut back = mock_app(Some(journal));
        back.restore(&resumed.records);
        // A resumed mock puts its cursor on the first card, (0,0).
        for k in [right, right, right, key('d')] {
            back.on_key(k);
        }
        assert_eq!(bodies(&back), bodies(&never_stopped), "{}", path.display());
        let text = std::fs::read_to_string(path).unwrap();
        let last = text
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str::<Value>(l).unwrap()["obs"].as_u64());
        assert_eq!(last, Some(next), "goes on from its own last step:\n{text}");
    }
}
