//! The card-reader mat end to end: the simulator plays every En Prise
//! scenario over a real pseudo-terminal, with transients and corruption on,
//! the host driver reads it, and the referee must say exactly what
//! `arbiter replay` says of the script (in the mat's frame: a mat's cells
//! are the script's moved by the plan's offset). Also: an unplug and replug
//! mid-game, garbage on the line, and the CLI pipeline.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use arbiter::deck::tags::Registry;
use arbiter::event::Event;
use arbiter::input::live::{Health, LiveEvent};
use arbiter::referee::AnyReferee;
use arbiter::session::{Judged, Output, OutputError, Session};
use arbiter::table::Beneath;

/// Every event a game session gives, in order.
#[derive(Default)]
struct Kept(Vec<Event>);

impl Output for Kept {
    fn started(&mut self, events: &[Event], _: &dyn AnyReferee) -> Result<(), OutputError> {
        self.0.extend_from_slice(events);
        Ok(())
    }
    fn judged(&mut self, j: &Judged<'_>) -> Result<(), OutputError> {
        self.0.extend_from_slice(j.events);
        Ok(())
    }
    fn finished(
        &mut self,
        _: usize,
        events: &[Event],
        _: &dyn AnyReferee,
    ) -> Result<(), OutputError> {
        self.0.extend_from_slice(events);
        Ok(())
    }
}
use arbiter::input::mat::{self, MatConfig};
use arbiter::input::matplan::{self, Transients};
use arbiter::input::matsim::{self, SimConfig, WireTransients};
use arbiter::observation::Observation;
use arbiter::replay::{referee_for, replay};
use arbiter::script::Script;
use arbiter::table::{Card, Cell, Colour, Piece, Table, Token};
use firmware_protocol::PROTOCOL_VERSION;
use serde_json::Value;

mod common;

static LINKS: AtomicUsize = AtomicUsize::new(0);

fn link() -> PathBuf {
    std::env::temp_dir().join(format!(
        "arbiter-test-mat-{}-{}",
        std::process::id(),
        LINKS.fetch_add(1, Ordering::SeqCst)
    ))
}

/// `arbiter mat simulate ARGS --link LINK SCRIPT` started, and the port it
/// announces on its first line, once a host may open it.
fn simulate(args: &[&str], link: &Path, script: &Path) -> (std::process::Child, String) {
    let mut sim = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["mat", "simulate"])
        .args(args)
        .arg("--link")
        .arg(link)
        .arg(script)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(sim.stdout.as_mut().unwrap()),
        &mut first,
    )
    .unwrap();
    (sim, first.trim().to_string())
}

/// An event as JSON without its step (a mat's observations are not the
/// script's steps: a busy hand or a rescan adds some, an unchanged step none)
/// and with its cells moved by `d`.
fn normalise(e: &Event, d: Cell) -> Value {
    let mut v = e.to_json();
    let obj = v.as_object_mut().unwrap();
    obj.remove("step");
    // Messages name cells in words; the cells themselves are compared.
    obj.remove("message");
    for key in ["from", "to"] {
        if let Some(c) = obj.get_mut(key) {
            *c = shift(c, d);
        }
    }
    for key in ["cells", "attackers"] {
        if let Some(Value::Array(cs)) = obj.get_mut(key) {
            for c in cs.iter_mut() {
                *c = shift(c, d);
            }
        }
    }
    v
}

fn shift(c: &Value, d: Cell) -> Value {
    let col = c[0].as_i64().unwrap() + i64::from(d.col);
    let row = c[1].as_i64().unwrap() + i64::from(d.row);
    serde_json::json!([col, row])
}

/// Plays `script` through the simulator and the host driver; the events.
fn through_the_mat(
    script: &Script,
    t: Transients,
    wire: WireTransients,
    seed: u64,
) -> (Vec<Event>, Cell, matsim::SimReport) {
    let plan = matplan::plan(script, t, seed).unwrap();
    let cfg = SimConfig {
        link: link(),
        gap: Duration::from_millis(160),
        wire,
        seed,
        connect_timeout: Some(Duration::from_secs(20)),
        ..SimConfig::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let sim_plan = plan.clone();
    let sim_cfg = cfg.clone();
    let sim = std::thread::spawn(move || {
        matsim::run(&sim_plan, &sim_cfg, |p| {
            tx.send(p.to_path_buf()).unwrap();
        })
    });
    let path = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the simulator announces its port");
    let mut mat_cfg = MatConfig::new(path, Registry::simulated());
    mat_cfg.settle = Duration::from_millis(40);
    mat_cfg.reconnect = true;
    let mat = mat::spawn(mat_cfg).expect("the simulated mat's port opens");
    let live = mat.live;
    // A game session, as `arbiter watch` runs one: the lights follow the
    // flags and checks as its output.
    let mut session = Session::new(referee_for(script).unwrap()).with_output(Box::new(mat.lights));
    let mut kept = Kept::default();
    session.start(&mut kept).unwrap();
    // What the mat does not see (DoubleCross's draws and calls) comes in
    // as the view's keys give it: before the table the script puts after it.
    let steps: Vec<Observation> = script.observations().cloned().collect();
    let mut next = 0;
    let mut keys = |session: &mut Session, kept: &mut Kept, upto_table: bool| {
        while let Some(o) = steps.get(next) {
            match o {
                Observation::Table(_) if upto_table => {
                    next += 1;
                    return;
                }
                Observation::Table(_) => return,
                Observation::Busy => {}
                beside => {
                    session.observe(beside, &Beneath::new(), kept).unwrap();
                }
            }
            next += 1;
        }
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the mat never finished");
        match live.events.recv_timeout(Duration::from_millis(50)) {
            Ok(LiveEvent::Observation(obs)) => {
                if matches!(obs, Observation::Table(_)) {
                    keys(&mut session, &mut kept, true);
                }
                session.observe(&obs, &Beneath::new(), &mut kept).unwrap();
            }
            // Once the simulator has played out, a closed port is the end.
            Ok(LiveEvent::Health(Health::Reconnecting(_))) if sim.is_finished() => break,
            Ok(LiveEvent::Ended) => break,
            Ok(_) => {}
            Err(_) if sim.is_finished() && session.next_step() > 0 => {
                // Let the last settle through, then stop.
                std::thread::sleep(Duration::from_millis(200));
                while let Ok(ev) = live.events.try_recv() {
                    if let LiveEvent::Observation(obs) = ev {
                        if matches!(obs, Observation::Table(_)) {
                            keys(&mut session, &mut kept, true);
                        }
                        session.observe(&obs, &Beneath::new(), &mut kept).unwrap();
                    }
                }
                break;
            }
            Err(_) => {}
        }
    }
    // Calls after the last table.
    keys(&mut session, &mut kept, false);
    session.finish(&mut kept).unwrap();
    let events = kept.0;
    let report = sim.join().unwrap().expect("the simulator ran");
    (events, plan.offset, report)
}

fn compare(
    path: &Path,
    t: Transients,
    wire: WireTransients,
    seed: u64,
) -> Result<matsim::SimReport, String> {
    let script = Script::load(path).unwrap();
    let want: Vec<Value> = replay(&script)
        .unwrap()
        .iter()
        .map(|e| normalise(e, Cell::default()))
        .collect();
    let (got, offset, report) = through_the_mat(&script, t, wire, seed);
    // A game from an empty table takes the mat's frame (the script's moved
    // by the offset): move its cells back. A game from a `[start]`, or one
    // with a fixed start position (Twelve's Kings), keeps the start's frame,
    // and the referee aligns the mat onto it.
    let fixed_start =
        script.setup.start_table().is_some() || script.game() == arbiter::script::GameKind::Twelve;
    let back = if fixed_start {
        Cell::default()
    } else {
        Cell::new(-offset.col, -offset.row)
    };
    let got: Vec<Value> = got.iter().map(|e| normalise(e, back)).collect();
    if got == want {
        Ok(report)
    } else {
        let show = |v: &[Value]| {
            v.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n  ")
        };
        Err(format!(
            "{}:\nwant\n  {}\ngot\n  {}",
            path.display(),
            show(&want),
            show(&got)
        ))
    }
}

#[test]
fn the_basics_through_a_clean_mat() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios/enprise/basics.toml");
    compare(
        &p,
        Transients {
            lift: false,
            swap_steps: false,
        },
        WireTransients::default(),
        1,
    )
    .unwrap();
}

const ALL_BUT_UNPLUG: WireTransients = WireTransients {
    corrupt: true,
    noise: true,
    unplug: false,
};
const REALISTIC: Transients = Transients {
    lift: true,
    swap_steps: true,
};

/// The scenario scripts a mat can play: tables only (draws and calls come
/// from keys, so scripts with such steps, DoubleCross, have nothing here to
/// compare).
fn mat_scripts() -> Vec<PathBuf> {
    common::all_scenario_scripts()
        .into_iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == "invalid"))
        .filter(|p| {
            arbiter::script::Script::load(p).is_ok_and(|s| {
                s.observations().all(|o| {
                    matches!(
                        o,
                        arbiter::observation::Observation::Table(_)
                            | arbiter::observation::Observation::Busy
                    )
                })
            })
        })
        .collect()
}

/// Plays `scripts` through noisy simulated mats and checks each says what
/// replay says.
fn through_noisy_mats(scripts: &[PathBuf]) {
    let totals = std::sync::Mutex::new((0u64, 0u64, 0u64));
    each_through_a_mat(scripts, |p, i| {
        let r = compare(p, REALISTIC, ALL_BUT_UNPLUG, i as u64 + 1)?;
        let mut t = totals.lock().unwrap();
        t.0 += r.frames_sent;
        t.1 += r.frames_corrupted;
        t.2 += r.noise_bursts;
        Ok(())
    });
    let (frames, corrupted, noise) = totals.into_inner().unwrap();
    println!(
        "{} scenarios through the mat: {frames} frames, {corrupted} corrupted, {noise} noise bursts",
        scripts.len()
    );
    assert!(corrupted > 0 && noise > 0, "the transients really happened");
}

/// Runs `play` on each script, four at a time (each is mostly waiting for
/// its mat to settle), and fails naming every script whose play said how
/// it differs.
fn each_through_a_mat(
    scripts: &[PathBuf],
    play: impl Fn(&Path, usize) -> Result<(), String> + Sync,
) {
    let failures = std::sync::Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(p) = scripts.get(i) else { return };
                    if let Err(e) = play(p, i) {
                        failures.lock().unwrap().push(e);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        scripts.len(),
        failures.join("\n\n")
    );
}

/// DoubleCross's scenario scripts, whose draws and calls no mat sees.
fn doublecross_scripts() -> Vec<PathBuf> {
    common::all_scenario_scripts()
        .into_iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == "invalid"))
        .filter(|p| p.components().any(|c| c.as_os_str() == "doublecross"))
        .filter(|p| Script::load(p).is_ok())
        .collect()
}

/// Plays `scripts` through clean simulated mats: the mat lays each board,
/// the draws and calls come in as the view's keys give them; each says
/// what replay says.
fn through_clean_mats_with_keys(scripts: &[PathBuf]) {
    let clean = Transients {
        lift: false,
        swap_steps: false,
    };
    each_through_a_mat(scripts, |p, i| {
        compare(p, clean, WireTransients::default(), i as u64 + 1).map(drop)
    });
}

/// DoubleCross on a mat (a sample: one script in eight): the boards from
/// the simulator, the draws and calls from keys, through one session.
#[test]
fn doublecross_through_a_mat_with_draws_at_the_keys_says_what_replay_says() {
    let scripts: Vec<PathBuf> = doublecross_scripts().into_iter().step_by(8).collect();
    assert!(scripts.len() >= 5, "{scripts:?}");
    through_clean_mats_with_keys(&scripts);
}

/// Every DoubleCross scenario so (long: `cargo test-long`).
#[test]
#[ignore = "long (pty timing): cargo test-long"]
fn every_doublecross_scenario_through_a_mat_says_what_replay_says() {
    let scripts = doublecross_scripts();
    assert!(scripts.len() > 30);
    through_clean_mats_with_keys(&scripts);
}

/// A sample of the scenarios (one in six, every game's among them).
#[test]
fn scenarios_through_a_noisy_mat_say_what_replay_says() {
    let scripts: Vec<PathBuf> = mat_scripts().into_iter().step_by(6).collect();
    assert!(scripts.len() >= 5);
    through_noisy_mats(&scripts);
}

/// Every scenario (long: `cargo test-long`).
#[test]
#[ignore = "long (pty timing): cargo test-long"]
fn every_scenario_through_a_noisy_mat_says_what_replay_says() {
    let scripts = mat_scripts();
    assert!(scripts.len() > 30);
    through_noisy_mats(&scripts);
}

#[test]
fn the_demo_survives_an_unplug_mid_game() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios/enprise/demo.toml");
    let all = WireTransients {
        corrupt: true,
        noise: true,
        unplug: true,
    };
    let report = compare(&p, REALISTIC, all, 7).unwrap();
    assert_eq!(report.unplugs, 1);
    assert!(report.hellos >= 2, "the host came back: {report:?}");
}

#[test]
fn the_mat_lights_a_missed_swap_and_puts_it_out_when_mended() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios/enprise/basics.toml");
    let report = compare(&p, REALISTIC, WireTransients::default(), 3).unwrap();
    let script = Script::load(&p).unwrap();
    let offset = matplan::plan(&script, REALISTIC, 3).unwrap().offset;
    let at = |step: usize| {
        report
            .leds
            .iter()
            .find(|l| l.step == step)
            .map(|l| l.script_cells(offset))
            .unwrap()
    };
    // Step 8 shows the missed SWAP: its origin (2,1) blinks amber, alone.
    let lit = at(8);
    assert_eq!(
        lit.keys().copied().collect::<Vec<_>>(),
        vec![Cell::new(2, 1)],
        "{lit:?}"
    );
    let l = lit[&Cell::new(2, 1)];
    assert_eq!((l.colour.r, l.colour.g, l.colour.b), (255, 120, 0));
    assert_ne!(l.blink, firmware_protocol::Blink::Steady);
    // Before the slip nothing was lit; once mended, nothing is.
    assert!(at(7).is_empty());
    assert!(at(9).is_empty(), "{:?}", at(9));
}

#[test]
fn the_cli_pipeline_simulate_then_watch_gives_replays_events() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("fixtures/scenarios/enprise/demo.toml");
    let bin = env!("CARGO_BIN_EXE_arbiter");
    let link = link();
    // The first line is the port.
    let (mut sim, first) = simulate(
        &[
            "--transients",
            "lift,swaps,corrupt,noise",
            "--gap-ms",
            "200",
        ],
        &link,
        &script,
    );
    assert_eq!(first.trim(), link.display().to_string());
    let watch = std::process::Command::new(bin)
        .args([
            "watch",
            "--json",
            "--no-reconnect",
            "--settle-ms",
            "50",
            "--input",
        ])
        .arg(format!("serial:{}", first.trim()))
        .arg("--setup")
        .arg(&script)
        .output()
        .unwrap();
    assert!(sim.wait().unwrap().success());
    assert!(
        watch.status.success(),
        "{}",
        String::from_utf8_lossy(&watch.stderr)
    );
    let replayed = std::process::Command::new(bin)
        .args(["replay", "--json"])
        .arg(&script)
        .output()
        .unwrap();
    let lines = |b: &[u8]| -> Vec<Event> {
        String::from_utf8_lossy(b)
            .lines()
            .map(|l| Event::from_json(&serde_json::from_str(l).unwrap()).unwrap())
            .collect()
    };
    let offset = matplan::plan(&Script::load(&script).unwrap(), REALISTIC, 1)
        .unwrap()
        .offset;
    let back = Cell::new(-offset.col, -offset.row);
    let got: Vec<Value> = lines(&watch.stdout)
        .iter()
        .map(|e| normalise(e, back))
        .collect();
    let want: Vec<Value> = lines(&replayed.stdout)
        .iter()
        .map(|e| normalise(e, Cell::default()))
        .collect();
    assert_eq!(got, want);
}

/// The simulator waiting for a host to open its port sleeps between
/// looks: in two seconds with nobody there it uses a small share of that
/// in processor time (a spinning loop used two thirds of a core).
#[test]
fn the_simulator_waiting_for_a_host_does_not_spin() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("fixtures/scenarios/enprise/demo.toml");
    let link = link();
    let (mut sim, _) = simulate(&[], &link, &script);
    std::thread::sleep(Duration::from_secs(2));
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", sim.id())).unwrap();
    let _ = sim.kill();
    let _ = sim.wait();
    // Fields 14 and 15 (after the parenthesised name): user and system
    // time in clock ticks.
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    let per_second: u64 = String::from_utf8(
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .parse()
    .unwrap();
    let busy = ticks as f64 / per_second as f64;
    // Processor time cannot run ahead of the wall clock, however slow the
    // machine: a spin fails this, a sleeping loop never does.
    assert!(busy < 0.4, "{busy:.2} s of processor time in 2 s");
}

/// A mat lost during a game is reopened with a wait that grows, and each
/// attempt is one line on stderr (its number and the next wait), not a
/// log line beside it.
#[test]
fn a_mat_lost_in_a_game_is_retried_one_line_an_attempt_with_a_growing_wait() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("fixtures/scenarios/enprise/demo.toml");
    let bin = env!("CARGO_BIN_EXE_arbiter");
    let link = link();
    let (mut sim, first) = simulate(&["--gap-ms", "20"], &link, &script);
    let mut watch = std::process::Command::new(bin)
        .args(["watch", "--settle-ms", "20", "--input"])
        .arg(format!("serial:{}", first.trim()))
        .arg("--setup")
        .arg(&script)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The simulator plays its script and closes the port; the host then
    // retries: about 0.25 + 0.5 + 1 + 2 s of waits in the next 5 s.
    assert!(sim.wait().unwrap().success());
    std::thread::sleep(Duration::from_secs(5));
    let _ = watch.kill();
    let out = watch.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let attempts: Vec<&str> = err.lines().filter(|l| l.contains("reconnecting")).collect();
    assert!(
        (3..=6).contains(&attempts.len()),
        "{} attempts in 5 s:\n{err}",
        attempts.len()
    );
    for (i, line) in attempts.iter().enumerate() {
        assert!(line.contains(&format!("(attempt {})", i + 1)), "{line}");
    }
    let waits: Vec<f32> = attempts
        .iter()
        .filter_map(|l| {
            l.split("trying again in ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert!(waits.windows(2).all(|w| w[1] > w[0]), "{waits:?}");
    assert!(
        !err.lines()
            .any(|l| l.contains("WARN") || l.contains("INFO")),
        "{err}"
    );
}

#[test]
fn register_learns_each_card_laid_alone() {
    // A script that lays every white card alone and lifts it, in deck order.
    let mut text = String::from(
        "game = \"enprise\"\nplayers = [\"white\", \"black\"]\n[battleplan]\nwhite = \"NPPBQRPPNPBPRPP\"\nblack = \"PNPPBQPRPNPBPRP\"\n",
    );
    // A quiet start and end: registration waits for an empty mat first, and
    // the port must stay open until the last card is lifted.
    text += "[[step]]\ntable = \"\"\n[[step]]\ntable = \"\"\n";
    let mut cards = Vec::new();
    for (piece, n) in arbiter::deck::tags::DECK {
        for _ in 0..n {
            let card = Card::new(Colour::White, piece);
            cards.push(card);
            text += &format!("[[step]]\ntable = \"{card} ..\"\n[[step]]\ntable = \"\"\n");
        }
    }
    text += "[[step]]\ntable = \"\"\n[[step]]\ntable = \"\"\n";
    let script = Script::parse("register.toml", &text).unwrap();
    let plan = matplan::plan(&script, REALISTIC, 5).unwrap();
    // Once registration is done the host leaves; the mat then gives up.
    let cfg = SimConfig {
        link: link(),
        gap: Duration::from_millis(120),
        connect_timeout: Some(Duration::from_secs(1)),
        ..SimConfig::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let sim =
        std::thread::spawn(move || matsim::run(&plan, &cfg, |p| tx.send(p.to_path_buf()).unwrap()));
    let path = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    let mut mat_cfg = MatConfig::new(path, Registry::new());
    mat_cfg.settle = Duration::from_millis(40);
    let mut link = mat::MatLink::open(&mat_cfg).unwrap();
    let mut said = Vec::new();
    let learned = arbiter::deck::register::register(&mut link, &[Colour::White], &mut said)
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&said)));
    drop(link);
    // The mat may end by itself or give up waiting for the host to return.
    let _ = sim.join().unwrap();
    assert_eq!(learned.len(), 16, "{}", String::from_utf8_lossy(&said));
    let truth = Registry::simulated();
    for (tag, card) in learned.iter() {
        assert_eq!(truth.card(tag), Some(card), "tag {tag:x}");
    }
    assert!(String::from_utf8_lossy(&said).contains("Lay the white king face-up"));
}

/// Thrones as an Enochian game uses them: a king and its partner on one
/// cell, the king stepping off and back, the partner changing, a capture
/// of both. Cells are written as `col,row` so the test needs no game.
const THRONES: &str = r#"game = "enprise"

[[step]]
table = """
uK .. ..
.. rQ ..
"""
thrones = { "0,0" = "uK+uN" }

[[step]]
table = """
uN uK ..
.. rQ ..
"""

[[step]]
table = """
uK .. ..
.. rQ ..
"""
thrones = { "0,0" = "uK+uN" }

[[step]]
table = """
uN uK ..
.. rQ ..
"""

[[step]]
table = """
uK uN ..
.. rQ ..
"""
thrones = { "0,0" = "uK+uB" }

[[step]]
table = """
rQ uN ..
.. .. ..
"""
"#;

/// Plays `script` through the simulator (speaking at most `protocol`) and
/// the host driver over a pseudo-terminal; the settled tables the host
/// reported, in the script's frame, repeats dropped.
fn tables_through_the_mat(script: &Script, t: Transients, protocol: u8) -> Vec<Table> {
    let plan = matplan::plan(script, t, 9).unwrap();
    let cfg = SimConfig {
        link: link(),
        gap: Duration::from_millis(160),
        connect_timeout: Some(Duration::from_secs(20)),
        protocol,
        ..SimConfig::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let sim_plan = plan.clone();
    let sim = std::thread::spawn(move || {
        matsim::run(&sim_plan, &cfg, |p| tx.send(p.to_path_buf()).unwrap())
    });
    let path = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    let mut mat_cfg = MatConfig::new(path, Registry::simulated());
    mat_cfg.settle = Duration::from_millis(40);
    mat_cfg.reconnect = false;
    let live = mat::spawn(mat_cfg)
        .expect("the simulated mat's port opens")
        .live;
    let mut tables: Vec<Table> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "the mat never finished");
        match live.events.recv_timeout(Duration::from_millis(50)) {
            Ok(LiveEvent::Observation(Observation::Table(t))) => {
                let t = t.shifted(Cell::new(-plan.offset.col, -plan.offset.row));
                if tables.last() != Some(&t) {
                    tables.push(t);
                }
            }
            Ok(LiveEvent::Ended) => break,
            Ok(LiveEvent::Health(Health::Reconnecting(_))) if sim.is_finished() => break,
            Ok(_) => {}
            Err(_) if sim.is_finished() => break,
            Err(_) => {}
        }
    }
    sim.join().unwrap().expect("the simulator ran");
    tables
}

fn script_tables(script: &Script) -> Vec<Table> {
    script
        .steps
        .iter()
        .filter_map(|s| match &s.observation {
            Observation::Table(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn throne_pairs_arrive_as_pairs_over_the_pty() {
    let script = Script::parse("thrones.toml", THRONES).unwrap();
    let want = script_tables(&script);
    for t in [
        Transients {
            lift: false,
            swap_steps: false,
        },
        REALISTIC,
    ] {
        let got = tables_through_the_mat(&script, t, PROTOCOL_VERSION);
        assert_eq!(got, want, "{t:?}");
    }
    let uk = Card::new(Colour::Blue, Piece::King);
    let un = Card::new(Colour::Blue, Piece::Knight);
    assert_eq!(want[0].get(Cell::new(0, 0)), Some(Token::pair(un, uk)));
}

/// A mat made before pairs (protocol 1) still works with this host: the
/// host falls back to version 1 and a throne reads as unreadable, the
/// other cells as they are.
#[test]
fn a_version_1_mat_reports_a_throne_as_unreadable() {
    let script = Script::parse("thrones.toml", THRONES).unwrap();
    let want: Vec<Table> = script_tables(&script)
        .into_iter()
        .map(|t| {
            t.iter()
                .map(|(c, tok)| match tok {
                    Token::Pair(..) => (c, Token::Unreadable),
                    tok => (c, tok),
                })
                .collect()
        })
        .collect();
    let got = tables_through_the_mat(
        &script,
        Transients {
            lift: false,
            swap_steps: false,
        },
        1,
    );
    assert_eq!(got, want);
}

/// Ctrl-C on `arbiter mat simulate` removes the link it announced: a host
/// started later finds no dangling path.
#[test]
fn ctrl_c_on_the_simulator_leaves_no_link_behind() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("fixtures/scenarios/enprise/demo.toml");
    let link = link();
    let (mut sim, first) = simulate(&[], &link, &script);
    assert_eq!(first.trim(), link.display().to_string());
    assert!(
        std::fs::symlink_metadata(&link).is_ok(),
        "the link is there"
    );
    // The shell's own `kill`: a minimal system may have no kill binary.
    let killed = std::process::Command::new("sh")
        .args(["-c", &format!("kill -INT {}", sim.id())])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = sim.wait().unwrap();
    assert!(!status.success());
    assert!(
        std::fs::symlink_metadata(&link).is_err(),
        "{} is left behind",
        link.display()
    );
}
