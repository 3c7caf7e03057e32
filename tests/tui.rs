//! The referee view: snapshots of its screens at 100x30 and 160x48, drawn on
//! ratatui's test backend from real games, and its key handling.

use arbiter::event::EventBody;
use arbiter::input::mock::MockTable;
use arbiter::input::script::ScriptInput;
use arbiter::observation::Observation;
use arbiter::replay::referee_for;
use arbiter::script::Script;
use arbiter::table::Colour;
use arbiter::tui::setup::{SetupForm, SetupOutcome};
use arbiter::tui::{App, Source};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

mod view;

use view::screen;

const SIZES: [(u16, u16); 2] = [(100, 30), (160, 48)];

fn demo() -> Script {
    Script::load(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/scenarios/enprise/demo.toml"
        )
        .as_ref(),
    )
    .expect("the demo loads")
}

/// The demo through the view, stepped `steps` times with the space key.
fn demo_app(steps: usize) -> App {
    let script = demo();
    let referee = referee_for(&script).unwrap();
    let mut app = App::new(
        referee,
        Source::Script(ScriptInput::new(script, None)),
        "demo.toml".into(),
        None,
        true,
    );
    for _ in 0..steps {
        app.on_key(key(KeyCode::Char(' ')));
    }
    app
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// The first demo step (0-based) whose events include one matching `f`.
fn first_step(f: impl Fn(&EventBody) -> bool) -> usize {
    let events = arbiter::replay::replay(&demo()).unwrap();
    events
        .iter()
        .find(|e| f(&e.body))
        .map(|e| e.step)
        .expect("the demo has it")
}

fn snapshots(name: &str, app: &App) {
    for size in SIZES {
        insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen(app, size));
    }
}

#[test]
fn opening() {
    let app = demo_app(3);
    let s = screen(&app, (100, 30));
    assert!(s.contains("wP") && s.contains("bP"), "{s}");
    snapshots("opening", &app);
}

#[test]
fn mid_game() {
    let app = demo_app(22);
    snapshots("mid_game", &app);
}

#[test]
fn missed_swap() {
    let step = first_step(|b| matches!(b, EventBody::Flag(f) if f.kind.as_str() == "missed_swap"));
    let app = demo_app(step + 1);
    let s = screen(&app, (100, 30));
    assert!(
        s.contains("Missed SWAP"),
        "the flag panel names the slip:\n{s}"
    );
    assert!(
        s.contains('!'),
        "the flagged cell carries a symbol, not only a colour:\n{s}"
    );
    snapshots("missed_swap", &app);
}

#[test]
fn check() {
    let step = first_step(|b| matches!(b, EventBody::Check { .. }));
    let app = demo_app(step + 1);
    let s = screen(&app, (160, 48));
    assert!(s.contains("CHECK"), "{s}");
    snapshots("check", &app);
}

#[test]
fn mate() {
    let app = demo_app(demo().steps.len());
    let s = screen(&app, (100, 30));
    assert!(s.contains("CHECKMATE") && s.contains("White wins"), "{s}");
    // The mating piece keeps the check's mark, as the help's legend says
    // ("+ a piece giving check"), not the last action's `>`.
    let marked = |m: char| {
        s.lines().any(|l| {
            l.split('│').nth(1).is_some_and(|board| {
                ["wK", "wQ", "wR", "wB", "wN", "wP"].iter().any(|p| {
                    board.contains(&format!("{p}{m}")) || board.contains(&format!("{m}{p}"))
                })
            })
        })
    };
    assert!(marked('+'), "{s}");
    snapshots("mate", &app);
}

/// The Battleplan screen says what a Battleplan holds before anyone
/// presses Enter, and an error naming the rule broken is shown whole, at
/// the smallest terminal too.
#[test]
fn the_battleplan_screen_says_what_a_plan_holds_and_shows_its_error_whole() {
    let mut form = SetupForm::new(vec![Colour::White, Colour::Black], &[], 7);
    let draw = |form: &SetupForm, (w, h): (u16, u16)| {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| form.draw(f)).unwrap();
        // The box's text, its rows joined, border and padding dropped.
        t.backend()
            .to_string()
            .lines()
            .filter_map(|l| {
                l.split_once('│')
                    .map(|(_, r)| r.rsplit_once('│').map_or(r, |x| x.0))
            })
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ")
    };
    for size in [(80, 24), (100, 30)] {
        let text = draw(&form, size);
        assert!(
            text.contains("2 rooks, 2 bishops, 2 knights and 8 pawns (Q, 2R, 2B, 2N, 8P)"),
            "{size:?}: {text}"
        );
    }
    for c in "QQRRBBNNPPPPPPP".chars() {
        form.on_key(key(KeyCode::Char(c)));
    }
    assert_eq!(form.on_key(key(KeyCode::Enter)), SetupOutcome::Editing);
    for size in [(80, 24), (100, 30)] {
        let text = draw(&form, size);
        assert!(
            text.contains(
                "White: a Battleplan holds 1 queen, this one has 2 (EP-DECK: Q, 2 R, 2 B, 2 N, 8 P)"
            ),
            "{size:?}: {text}"
        );
    }
}

#[test]
fn setup_screen() {
    let mut form = SetupForm::new(
        vec![Colour::White, Colour::Black],
        &[(Colour::White, "NPPBQRPPNPBPRPP".into())],
        7,
    );
    for c in "PNPPB".chars() {
        form.on_key(key(KeyCode::Char(c)));
    }
    for size in SIZES {
        let mut t = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
        t.draw(|f| form.draw(f)).unwrap();
        insta::assert_snapshot!(
            format!("setup_{}x{}", size.0, size.1),
            t.backend().to_string()
        );
    }
    // Enter with Black's plan unfinished: not done, and it says why.
    assert_eq!(form.on_key(key(KeyCode::Enter)), SetupOutcome::Editing);
    form.on_key(key(KeyCode::F(2)));
    match form.on_key(key(KeyCode::Enter)) {
        SetupOutcome::Done(plans) => assert_eq!(plans.len(), 2),
        other => panic!("a shuffled plan is valid: {other:?}"),
    }
}

#[test]
fn help_and_quit_keys() {
    let mut app = demo_app(2);
    app.on_key(key(KeyCode::Char('?')));
    assert!(screen(&app, (100, 30)).contains("Help"));
    app.on_key(key(KeyCode::Esc));
    assert!(!screen(&app, (100, 30)).contains(" Help "));
    // Any key closes the help, as it says, and does nothing else: the
    // help's own key, a letter, an arrow, q (which does not also ask to
    // quit).
    for k in [
        KeyCode::Char('?'),
        KeyCode::Char('x'),
        KeyCode::Right,
        KeyCode::Enter,
        KeyCode::Char('q'),
    ] {
        app.on_key(key(KeyCode::Char('?')));
        assert!(screen(&app, (100, 30)).contains(" Help "), "{k:?}");
        app.on_key(key(k));
        let after = screen(&app, (100, 30));
        assert!(!after.contains(" Help "), "{k:?} left the help open");
        assert!(!after.contains("Quit?") && !app.should_quit(), "{k:?}");
    }
    // Mid-game, q asks first; any other key stays.
    app.on_key(key(KeyCode::Char('q')));
    assert!(!app.should_quit());
    assert!(screen(&app, (100, 30)).contains("Quit?"));
    app.on_key(key(KeyCode::Char('n')));
    assert!(!app.should_quit());
    app.on_key(key(KeyCode::Char('q')));
    app.on_key(key(KeyCode::Char('y')));
    assert!(app.should_quit());
}

#[test]
fn space_steps_the_script_and_the_bell_rings_on_a_flag() {
    let step = first_step(|b| matches!(b, EventBody::Flag(_)));
    let mut app = demo_app(step);
    let _ = app.take_bell();
    app.on_key(key(KeyCode::Char(' ')));
    assert!(
        app.events()
            .iter()
            .any(|e| e.step == step && matches!(e.body, EventBody::Flag(_)))
    );
    assert!(!app.take_bell(), "--quiet silences the bell");
}

#[test]
fn the_mock_device_plays_through_the_view() {
    let script = Script::parse(
        "setup",
        "game = \"enprise\"\nplayers = [\"white\", \"black\"]\n[battleplan]\nwhite = \"NPPBQRPPNPBPRPP\"\nblack = \"PNPPBQPRPNPBPRP\"\n",
    )
    .unwrap();
    let referee = referee_for(&script).unwrap();
    let mock = MockTable::new(referee.expected_table());
    let mut app = App::new(referee, Source::Mock(mock), "mock".into(), None, false);
    // White's knight at the cursor, black's pawn face-down to its right.
    app.on_key(key(KeyCode::Char('u')));
    app.on_key(key(KeyCode::Right));
    app.on_key(key(KeyCode::Char('d')));
    let actions: Vec<String> = app
        .events()
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Action(a) => Some(format!("{} {}", a.player, a.action)),
            _ => None,
        })
        .collect();
    assert_eq!(actions, ["white place", "black place_vacant"]);
    // A card touching nothing: flagged, and the bell rings.
    for _ in 0..4 {
        app.on_key(key(KeyCode::Right));
    }
    app.on_key(key(KeyCode::Char('u')));
    assert!(app.take_bell());
    let s = screen(&app, (100, 30));
    assert!(s.contains("Illegal placement"), "{s}");
    snapshots("mock_flag", &app);
    // Taken back with x: cleared.
    app.on_key(key(KeyCode::Char('x')));
    assert!(matches!(
        app.events().last().map(|e| &e.body),
        Some(EventBody::Cleared { .. })
    ));
    let _ = Observation::Busy;
}

#[test]
fn any_window_size_draws_without_panic_and_a_small_one_says_so() {
    let app = demo_app(20);
    for (w, h) in [(1, 1), (10, 5), (40, 12), (60, 20), (80, 24), (250, 80)] {
        let s = screen(&app, (w, h));
        assert_eq!(s.lines().count(), h as usize);
    }
    assert!(
        screen(&app, (40, 12)).contains("Enlarge"),
        "{}",
        screen(&app, (40, 12))
    );
    assert!(
        !screen(&app, (80, 24)).contains("Enlarge"),
        "{}",
        screen(&app, (80, 24))
    );
}

/// With `--serve`, the status line says where the spectator page is, at
/// both sizes.
#[test]
fn the_status_line_says_where_spectators_can_watch() {
    let script = demo();
    let referee = referee_for(&script).unwrap();
    let start = referee.expected_table().clone();
    let app = App::new(
        referee,
        Source::Mock(MockTable::new(&start)),
        "mock".into(),
        None,
        false,
    )
    .serving("http://127.0.0.1:7979/".into());
    for size in [(120, 40), (80, 24)] {
        let s = screen(&app, size);
        assert!(s.contains("http://127.0.0.1:7979/"), "{s}");
    }
}

/// A camera that stops sending frames is shown as stalled in the status
/// line, the game as it was, and connected again when frames come.
#[test]
fn a_stalled_camera_is_shown_and_clears() {
    use arbiter::input::live::{Health, Live, LiveEvent};
    let script = demo();
    let referee = referee_for(&script).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let live = Live {
        name: "camera:0".into(),
        events: rx,
    };
    let mut app = App::new(referee, Source::Live(live), "camera:0".into(), None, false);
    tx.send(LiveEvent::Health(Health::Connected)).unwrap();
    app.on_tick(std::time::Instant::now());
    let before = screen(&app, (100, 30));
    assert!(before.contains("connected"), "{before}");
    tx.send(LiveEvent::Health(Health::Stalled(
        "no frame for 3 s".into(),
    )))
    .unwrap();
    app.on_tick(std::time::Instant::now());
    let s = screen(&app, (100, 30));
    assert!(s.contains("stalled (no frame for 3 s)"), "{s}");
    assert!(!app.take_bell(), "a stall is no flag");
    snapshots("stalled_camera", &app);
    tx.send(LiveEvent::Note("frames again".into())).unwrap();
    tx.send(LiveEvent::Health(Health::Connected)).unwrap();
    app.on_tick(std::time::Instant::now());
    let after = screen(&app, (100, 30));
    assert!(
        after.contains("connected") && !after.contains("stalled"),
        "{after}"
    );
}

/// A scenario of the project through the view, stepped `steps` times.
fn scenario_app(path: &str, steps: usize) -> App {
    let script = Script::load(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/scenarios")
            .join(path)
            .as_ref(),
    )
    .expect("the scenario loads");
    let referee = referee_for(&script).unwrap();
    let mut app = App::new(
        referee,
        Source::Script(ScriptInput::new(script, None)),
        path.into(),
        None,
        true,
    );
    for _ in 0..steps {
        app.on_key(key(KeyCode::Char(' ')));
    }
    app
}

/// The second part of an action still to do is a prompt, not a flag: the
/// mated army's cards are marked `~` and the flags box says what to finish;
/// once the next player acts first it is the flag, in red.
#[test]
fn a_pending_flip_is_prompted_then_flagged() {
    let app = scenario_app("enprise/mate-elimination-next-acts-first.toml", 1);
    let s = screen(&app, (100, 30));
    assert!(
        s.contains("~ To finish") && s.contains("Red is out: turn Red's"),
        "{s}"
    );
    assert!(!s.contains("Flags: mend the table"), "{s}");
    // Red's five cards, each framed `~───~` above and below.
    assert_eq!(s.matches("~───~").count(), 10, "{s}");
    snapshots("pending_flip", &app);
    let app = scenario_app("enprise/mate-elimination-next-acts-first.toml", 2);
    let s = screen(&app, (100, 30));
    assert!(
        s.contains("Flags: mend the table") && !s.contains("~ To finish"),
        "{s}"
    );
    snapshots("pending_flip_flagged", &app);
}

#[test]
fn a_pending_send_back_is_prompted() {
    let app = scenario_app("twelve/tw-10-2-bishop-send-back-owed.toml", 1);
    let s = screen(&app, (100, 30));
    assert!(
        s.contains("~ To finish  White: the Bishop at") && !s.contains("Flags: mend"),
        "{s}"
    );
    // The two pieces it may send back.
    assert_eq!(s.matches("~───~").count(), 4, "{s}");
    snapshots("pending_send_back", &app);
}

/// At 120 columns an En Prise flag's log line is shown whole, wrapped
/// under its first line, not cut at the panel's edge; and it stays whole
/// in the log after the flag clears.
#[test]
fn an_en_prise_flag_reads_whole_in_the_log_at_120_columns() {
    let step = first_step(|b| matches!(b, EventBody::Flag(_)));
    let mut app = demo_app(step + 1);
    let flag = app
        .events()
        .iter()
        .find(|e| e.step == step && matches!(e.body, EventBody::Flag(_)))
        .expect("the demo's first flag")
        .to_string();
    let words = |s: &str| -> Vec<String> { s.split_whitespace().map(str::to_string).collect() };
    let whole = |app: &App| {
        // The log's words in order, read off the screen's right panel.
        let text = screen(app, (120, 40));
        let panel: Vec<String> = text
            .lines()
            .filter_map(|l| l.rsplit_once('│').map(|(a, _)| a.to_string()))
            .filter_map(|l| l.rsplit_once('│').map(|(_, b)| b.to_string()))
            .collect();
        let shown = words(&panel.join(" ")).join(" ");
        let want = words(flag.trim_start_matches("step").trim_start()).join(" ");
        shown.contains(&want)
    };
    assert!(whole(&app), "{flag}\n{}", screen(&app, (120, 40)));
    let cleared = first_step(|b| matches!(b, EventBody::Cleared { .. }));
    while app.events().iter().all(|e| e.step < cleared) {
        app.on_key(key(KeyCode::Char(' ')));
    }
    assert!(whole(&app), "{flag}\n{}", screen(&app, (120, 40)));
}
