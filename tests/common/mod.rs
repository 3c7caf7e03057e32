//! Shared by the integration tests.

// Each test crate uses its own part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Every scenario script: the project's `fixtures/scenarios/` (all games,
/// `invalid/` included) and the rules regressions the soak found
/// (`fixtures/regressions/rules/`), sorted. The suite needs nothing outside the
/// repository: the shared examples it uses have copies there.
pub fn all_scenario_scripts() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    scripts_under(&root.join("fixtures/scenarios"), &mut out);
    scripts_under(&root.join("fixtures/regressions/rules"), &mut out);
    out.sort();
    out
}

fn scripts_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            scripts_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

/// Every file under `dir`, at any depth (none when it cannot be read).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// `stdout`, a `watch --json` of frames filmed from `script` (or its
/// recording), says what replaying the script says, event for event: steps
/// aside (frames settle into their own steps, a hand adds a busy one), and
/// cells moved by the one offset of the first card placed (the recogniser
/// names cells from the cards it sees). The game must show a flag.
pub fn same_events_as_script(script: &arbiter::script::Script, stdout: &str, what: &str) {
    use arbiter::event::Event;
    use serde_json::Value;
    let want: Vec<Value> = arbiter::replay::replay(script)
        .unwrap()
        .iter()
        .map(Event::to_json)
        .collect();
    let got: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let first_card = |events: &[Value]| {
        let to = events
            .iter()
            .find_map(|e| e.get("to").cloned())
            .expect("a card placed");
        (to[0].as_i64().unwrap(), to[1].as_i64().unwrap())
    };
    let (w, g) = (first_card(&want), first_card(&got));
    let d = (w.0 - g.0, w.1 - g.1);
    let want: Vec<Value> = want.iter().map(|v| normalise(v, (0, 0))).collect();
    let got: Vec<Value> = got.iter().map(|v| normalise(v, d)).collect();
    assert_eq!(got, want, "{what}");
    assert!(
        want.iter().any(|e| e["event"] == "flag"),
        "the game shows its flags"
    );
}

/// An event as JSON without its step (frames settle into their own steps:
/// a hand adds a busy one) and moved by `d`.
fn normalise(v: &serde_json::Value, d: (i64, i64)) -> serde_json::Value {
    let mut v = v.clone();
    let obj = v.as_object_mut().unwrap();
    obj.remove("step");
    let shift = |c: &mut serde_json::Value| {
        *c = serde_json::json!([c[0].as_i64().unwrap() + d.0, c[1].as_i64().unwrap() + d.1]);
    };
    for key in ["from", "to"] {
        if let Some(c) = obj.get_mut(key) {
            shift(c);
        }
    }
    for key in ["cells", "attackers"] {
        if let Some(serde_json::Value::Array(cs)) = obj.get_mut(key) {
            cs.iter_mut().for_each(shift);
        }
    }
    // Messages name cells in words; the cells are compared above.
    obj.remove("message");
    v
}

/// Raises this process's open-file limit to `want` where it can (the hard
/// limit too, as root), else to the hard limit; the hard limit after.
pub fn raise_open_file_limit(want: u64) -> u64 {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (_, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    if setrlimit(Resource::RLIMIT_NOFILE, want, hard.max(want)).is_ok() {
        return hard.max(want);
    }
    let _ = setrlimit(Resource::RLIMIT_NOFILE, want.min(hard), hard);
    hard
}
