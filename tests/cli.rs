//! The `arbiter` binary as a user runs it: exit status, output, and errors
//! that name the file, the line and the problem.

use std::process::{Command, Output};

mod common;

fn arbiter(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_script(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A copy of the team's shared En Prise example (`enprise-basics.toml`).
const SHARED: &str = "fixtures/scenarios/enprise/basics.toml";

#[test]
fn replay_json_is_one_event_per_line_and_watch_agrees() {
    let o = arbiter(&["replay", SHARED, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines[0]["event"], "game_started");
    assert_eq!(lines[0]["players"], serde_json::json!(["white", "black"]));
    let flag = lines
        .iter()
        .find(|l| l["event"] == "flag")
        .expect("the missed SWAP is flagged");
    assert_eq!(flag["kind"], "missed_swap");
    assert_eq!(flag["step"], 8);
    assert_eq!(flag["cells"], serde_json::json!([[2, 1]]));

    let input = format!("script:{SHARED}");
    let w = arbiter(&["watch", "--input", &input, "--json"]);
    assert!(w.status.success(), "{}", stderr(&w));
    assert_eq!(stdout(&w), stdout(&o));
}

#[test]
fn replay_without_a_script_plays_the_bundled_demo_to_mate() {
    let o = arbiter(&["replay"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("game started: enprise"), "{text}");
    assert!(text.contains("FLAG missed_swap"), "{text}");
    assert!(text.contains("CHECKMATE"), "{text}");
    assert!(text.trim_end().ends_with("game over: white wins"), "{text}");
}

#[test]
fn a_malformed_script_exits_2_naming_file_line_and_problem() {
    let p = temp_script(
        "ragged.toml",
        "game = \"enprise\"\nplayers = [\"white\", \"black\"]\n[battleplan]\nwhite = \"N P P B Q R P P N P B P R P P\"\nblack = \"P N P P B Q P R P N P B P R P\"\n[[step]]\ntable = \"\"\"\nwN ##\n##\n\"\"\"\n",
    );
    let o = arbiter(&["replay", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains(&format!("{}:9:", p.display())), "{err}");
    assert!(err.contains("ragged"), "{err}");
    assert!(stdout(&o).is_empty(), "nothing is judged from a bad script");
}

#[test]
fn a_bad_battleplan_names_its_line() {
    let p = temp_script(
        "plan.toml",
        "game = \"enprise\"\n[battleplan]\nwhite = \"N P P B Q R P P N P B P R P P\"\nblack = \"P N P P B Q Q R P N P B P R P\"\n",
    );
    let o = arbiter(&["replay", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(":4:") && err.contains("black's Battleplan"),
        "{err}"
    );
}

#[test]
fn missing_files_and_unknown_inputs_are_errors_not_panics() {
    let o = arbiter(&["replay", "no/such/script.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such/script.toml"), "{}", stderr(&o));

    let o = arbiter(&["watch", "--input", "webcam:0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown input kind"), "{}", stderr(&o));

    // A device needs the game named.
    let o = arbiter(&["watch", "--input", "camera:0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--setup"), "{}", stderr(&o));

    // No camera here (and, without the feature, no camera support): said.
    let demo = "fixtures/scenarios/enprise/demo.toml";
    let o = arbiter(&["watch", "--input", "camera:0", "--setup", demo]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("camera:0"), "{}", stderr(&o));
    let o = arbiter(&["watch", "--input", "frames:no/such/dir", "--setup", demo]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such/dir"), "{}", stderr(&o));

    let o = arbiter(&["watch", "--input", "game.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("KIND:WHERE"), "{}", stderr(&o));

    // Binary garbage in place of a script.
    let p = temp_script("garbage.toml", "\u{0}\u{1}\u{ff}[[[");
    let o = arbiter(&["replay", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("garbage.toml:1:"), "{}", stderr(&o));
}

#[test]
fn an_enochian_script_replays_and_prints_its_action() {
    let script = "game = \"enochian\"\n\n[[step]]\ntable = \"\"\"\n\
.. .. bR bK bB bQ .. ..\n\
.. .. bP bP bP bP .. ..\n\
yQ yP .. .. .. .. rP rR\n\
yB yP .. .. .. .. rP rK\n\
yK yP .. .. .. .. rP rB\n\
yR yP uQ .. .. .. rP rQ\n\
.. .. uP uP uP uP .. ..\n\
.. .. .. uB uK uR .. ..\n\
\"\"\"\nthrones = { e1 = \"uK+uN\", h5 = \"rK+rN\", d8 = \"bK+bN\", a4 = \"yK+yN\" }\n";
    let p = temp_script("en.toml", script);
    let o = arbiter(&["replay", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("game started: enochian"), "{out}");
    assert!(out.contains("blue moves uQ c1 -> c3"), "{out}");
    assert!(!out.contains("FLAG"), "{out}");
}

const DC: &str = "fixtures/scenarios/doublecross/spec-07-uncalled-check-removal.toml";

#[test]
fn a_doublecross_script_replays_with_squares_and_its_record_is_pgn() {
    let o = arbiter(&["replay", DC, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["game"], "doublecross");
    let moved = lines
        .iter()
        .find(|l| l["event"] == "action" && l["action"] == "move")
        .expect("a move");
    assert_eq!(
        moved["squares"].as_array().map(Vec::len),
        Some(2),
        "{moved}"
    );
    assert!(moved["san"].is_string(), "{moved}");
    let uncalled = lines
        .iter()
        .find(|l| l["kind"] == "uncalled_check")
        .expect("the uncalled check is logged");
    assert_eq!(uncalled["event"], "flag");
    assert!(uncalled["squares"].is_array(), "{uncalled}");

    let pgn = arbiter(&["replay", DC, "--pgn"]);
    assert!(pgn.status.success(), "{}", stderr(&pgn));
    let text = stdout(&pgn);
    assert!(text.contains("[Variant \"DoubleCross\"]"), "{text}");
    assert!(text.contains("{wQ}") || text.contains("{wQ;"), "{text}");

    // Through a journal: the exported record is the same PGN.
    let dir = std::env::temp_dir().join(format!("arbiter-cli-dc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let journal = dir.join("dc.jsonl");
    let _ = std::fs::remove_file(&journal);
    let input = format!("script:{DC}");
    let w = arbiter(&[
        "watch",
        "--input",
        &input,
        "--journal",
        journal.to_str().unwrap(),
    ]);
    assert!(w.status.success(), "{}", stderr(&w));
    let e = arbiter(&["export", journal.to_str().unwrap()]);
    assert!(e.status.success(), "{}", stderr(&e));
    assert_eq!(stdout(&e), text);

    // En Prise keeps no PGN: said clearly.
    let o = arbiter(&["replay", SHARED, "--pgn"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no standard game record"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn deck_export_writes_every_face_and_the_sheets() {
    let dir = std::env::temp_dir().join(format!("arbiter-deck-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = arbiter(&["deck", "export", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for token in ["wK", "bQ", "rN", "uP", "back"] {
        assert!(dir.join(format!("{token}.png")).exists(), "{token}.png");
    }
    assert!(dir.join("sheets/sheet-1.png").exists());
    // Each PNG carries its resolution, so a print dialog sizes a card at
    // 63 × 88 mm and a sheet at A4 (210 × 297 mm).
    for (file, mm) in [
        ("wK.png", (63.0, 88.0)),
        ("sheets/sheet-1.png", (210.0, 297.0)),
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let (w, h) = (
            u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
            u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
        );
        let at = bytes
            .windows(4)
            .position(|c| c == b"pHYs")
            .unwrap_or_else(|| panic!("{file}: no pHYs chunk"));
        let per_metre = u32::from_be_bytes(bytes[at + 4..at + 8].try_into().unwrap());
        assert_eq!(bytes[at + 12], 1, "{file}: the unit is the metre");
        let size = |px: u32| f64::from(px) / f64::from(per_metre) * 1000.0;
        assert!(
            (size(w) - mm.0).abs() < 0.2 && (size(h) - mm.1).abs() < 0.2,
            "{file}: {:.1} × {:.1} mm",
            size(w),
            size(h)
        );
    }
    let o = arbiter(&["deck", "export", "/proc/no-such-place"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/proc/no-such-place"), "{}", stderr(&o));
}

/// The binary copied out of the build, as `cargo install` would put it,
/// run from a folder of its own with a home of its own: the bundled demo
/// and the mat's bundled tag registry need no file beside it, the files a
/// user names are relative to where they stand, and `--log` writes the
/// device's story there.
#[test]
fn the_installed_binary_works_from_any_folder_and_writes_a_log() {
    let root = std::env::temp_dir().join(format!("arbiter-installed-{}", std::process::id()));
    let (bin, home, here) = (root.join("bin"), root.join("home"), root.join("here"));
    for d in [&bin, &home, &here] {
        std::fs::create_dir_all(d).unwrap();
    }
    let exe = bin.join("arbiter");
    std::fs::copy(env!("CARGO_BIN_EXE_arbiter"), &exe).unwrap();
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SHARED),
        here.join("game.toml"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(&exe)
            .args(args)
            .current_dir(&here)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .output()
            .expect("the binary runs")
    };
    let o = run(&["replay"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("game started"));
    let o = run(&["replay", "game.toml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A mat on a port that is not there: the registry is the bundled one,
    // the game is set up from the file named here, and the command fails
    // (exit 2) with the log saying why the mat never came.
    let o = run(&[
        "--log",
        "arbiter.log",
        "--log-level",
        "debug",
        "watch",
        "--input",
        "serial:no-such-port",
        "--setup",
        "game.toml",
        "--no-reconnect",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!stderr(&o).contains("registry"), "{}", stderr(&o));
    let log = std::fs::read_to_string(here.join("arbiter.log")).expect("the log is written");
    assert!(
        log.contains("no-such-port") && log.contains("cannot open"),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// `play` with no terminal (a container without `-t`, a service, CI) says
/// in one line that the view needs one and what to run instead, exits 2,
/// and writes nothing: no journal for `--resume` to pick, no log.
#[test]
fn play_without_a_terminal_says_so_and_writes_nothing() {
    let home = std::env::temp_dir().join(format!("arbiter-noterm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    for args in [
        &["play"][..],
        &["play", "--input", "mock"],
        &["play", "--resume"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(args)
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join("data"))
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the binary runs");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("needs a terminal") && err.contains("arbiter watch"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    let written: Vec<_> = common::files_under(&home);
    assert!(written.is_empty(), "{written:?}");
    let _ = std::fs::remove_dir_all(&home);
}

/// A mistyped option of `play` is said as such, with or without a
/// terminal: the command line is checked before the view is needed.
#[test]
fn play_names_a_mistyped_option_before_it_needs_a_terminal() {
    for (args, want) in [
        (
            &["play", "--game", "chess"][..],
            "--game chess: unknown game",
        ),
        (
            &["play", "--players", "white,green"],
            "unknown colour \"green\"",
        ),
        (
            &["play", "--battleplan", "white=QQQ"],
            "--battleplan white=QQQ",
        ),
        (
            &["play", "--setup", "nosuch.toml"],
            "nosuch.toml: cannot read",
        ),
        (
            &["play", "--game", "twelve", "--players", "white,black"],
            "set up twelve with --setup FILE",
        ),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the binary runs");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// A serial port that is not there, at the start, is an error at once
/// (exit 2, one line naming the port and the ports this machine has), not
/// retried for ever: for `watch`, with `--no-reconnect` too, and for
/// `mat register`.
#[test]
fn a_missing_serial_port_fails_at_once_naming_the_ports_there_are() {
    for args in [
        &[
            "watch",
            "--input",
            "serial:/dev/arbiter-no-such-port",
            "--setup",
            SHARED,
        ][..],
        &[
            "watch",
            "--input",
            "serial:/dev/arbiter-no-such-port",
            "--setup",
            SHARED,
            "--no-reconnect",
        ],
        &["mat", "register", "--port", "/dev/arbiter-no-such-port"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs");
        // A hang is the failure looked for: it is killed, not waited on.
        let start = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > std::time::Duration::from_secs(30) {
                let _ = child.kill();
                panic!("{args:?}: still retrying after 30 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("/dev/arbiter-no-such-port: cannot open")
                && (err.contains("the serial ports here are")
                    || err.contains("shows no serial port")),
            "{args:?}: {err}"
        );
        assert!(
            !err.contains('\u{1b}'),
            "no colour codes off a terminal: {err:?}"
        );
        // The OS's reason once, not once per layer.
        assert_eq!(err.matches("No such file").count(), 1, "{err}");
    }
}

/// A file that is not there is one line naming it, with the OS's reason
/// said once (not once per layer that passed it on), and exit 2; a setup
/// file is named by its option, not called a script.
#[test]
fn a_missing_file_is_one_line_with_its_reason_once() {
    for (args, names) in [
        (
            &["export", "nosuch.jsonl"][..],
            "nosuch.jsonl: cannot read the journal",
        ),
        (
            &[
                "watch",
                "--input",
                "frames:fixtures/frames/clean",
                "--setup",
                "nosuch.toml",
            ],
            "--setup: nosuch.toml: cannot read",
        ),
        (&["replay", "nosuch.toml"], "nosuch.toml: cannot read"),
    ] {
        let o = arbiter(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(names), "{args:?}: {err}");
        assert_eq!(err.matches("No such file").count(), 1, "{args:?}: {err}");
        assert!(!err.contains("script"), "{args:?}: {err}");
    }
}

/// A frames input that ends having judged no table says why (how many
/// frames, how many read, whether any card was found or none stayed
/// still) and exits non-zero: a folder of broken images, and a folder of
/// unrelated stills. A folder with no image at all, or none, is refused
/// at the start, before a game is set up.
#[test]
fn a_frames_input_that_judges_nothing_says_why_and_fails() {
    let root = std::env::temp_dir().join(format!("arbiter-noframes-{}", std::process::id()));
    let (empty, broken) = (root.join("empty"), root.join("broken"));
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("001.jpg"), b"not a picture").unwrap();
    let empty_input = format!("frames:{}", empty.display());
    let broken_input = format!("frames:{}", broken.display());
    for (input, why) in [
        (
            empty_input.as_str(),
            "no frames: the folder holds no .png, .jpg or .jpeg image",
        ),
        (
            "frames:/nonexistent-arbiter",
            "cannot read the folder of frames",
        ),
        (
            broken_input.as_str(),
            "none of its 1 files could be decoded",
        ),
        ("frames:fixtures/frames/clean", "no table stayed still"),
    ] {
        let o = arbiter(&["watch", "--input", input, "--setup", SHARED]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{input}: {err}");
        assert!(err.contains(why), "{input}: {err}");
        if input.contains("empty") || input.contains("nonexistent") {
            assert_eq!(err.lines().count(), 1, "{input}: {err}");
            assert!(o.stdout.is_empty(), "no game started: {input}");
        } else {
            assert!(err.contains("judged no table"), "{input}: {err}");
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// `--serve` says where the page is; an address that is no address, or
/// one already taken, is one line and exit 2, before any game starts.
#[test]
fn serve_says_where_and_refuses_an_address_it_cannot_use() {
    let script = format!("script:{SHARED}");
    let o = arbiter(&["watch", "--input", &script, "--serve", "127.0.0.1:0"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("spectators can watch at http://127.0.0.1:"),
        "{err}"
    );
    assert!(!err.contains("on the network"), "{err}");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    for (addr, why) in [
        ("nonsense", "not an address"),
        (taken.as_str(), "cannot listen there"),
    ] {
        let o = arbiter(&["watch", "--input", &script, "--serve", addr]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{addr}: {err}");
        assert_eq!(err.lines().count(), 1, "{addr}: {err}");
        assert!(err.contains(why), "{addr}: {err}");
        assert!(o.stdout.is_empty(), "no game started: {addr}");
    }
}
