//! Every scenario script of the project (`fixtures/scenarios/`, where the
//! team's shared examples have copies) replays with the events its steps
//! expect, and with
//! no flag a step does not expect. Scripts under an `invalid/` folder must be
//! rejected with the error their first line names:
//! `# expect-error: LINE: TEXT` (LINE 0 when the error has no line).

mod common;

use std::path::Path;

use arbiter::event::Event;
use arbiter::replay::{referee_for, replay};
use arbiter::script::Script;
use serde_json::Value;

/// Whether `actual` has every field of `expected`; lists of cells compare as
/// sets, since their order carries no meaning.
fn subset_match(expected: &Value, actual: &Value) -> bool {
    let (Some(exp), Some(act)) = (expected.as_object(), actual.as_object()) else {
        return false;
    };
    exp.iter().all(|(k, v)| match act.get(k) {
        None => false,
        Some(a) if matches!(k.as_str(), "cells" | "attackers" | "squares") => {
            match (v.as_array(), a.as_array()) {
                (Some(x), Some(y)) => x.len() == y.len() && x.iter().all(|c| y.contains(c)),
                _ => v == a,
            }
        }
        Some(a) => v == a,
    })
}

/// Checks one valid script; returns the problems found.
fn check_script(path: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let script = match Script::load(path) {
        Ok(s) => s,
        Err(e) => return vec![format!("does not load: {e}")],
    };
    let events: Vec<Event> = match replay(&script) {
        Ok(ev) => ev,
        Err(e) => return vec![format!("does not start: {e}")],
    };
    for (i, step) in script.steps.iter().enumerate() {
        let got: Vec<Value> = events
            .iter()
            .filter(|e| e.step == i)
            .map(Event::to_json)
            .collect();
        let got_here: Vec<&Value> = got
            .iter()
            .filter(|e| !(i == 0 && e["event"] == "game_started"))
            .collect();
        for exp in &step.expect {
            if !got_here.iter().any(|g| subset_match(exp, g)) {
                problems.push(format!(
                    "step {i} (line {}): expected {exp}\n    got {}",
                    step.line,
                    if got_here.is_empty() {
                        "no events".to_string()
                    } else {
                        got_here
                            .iter()
                            .map(|g| g.to_string())
                            .collect::<Vec<_>>()
                            .join("\n        ")
                    }
                ));
            }
        }
        for g in got_here.iter().filter(|g| g["event"] == "flag") {
            if !step.expect.iter().any(|exp| subset_match(exp, g)) {
                problems.push(format!(
                    "step {i} (line {}): unexpected flag {g}",
                    step.line
                ));
            }
        }
    }
    problems
}

/// Checks one script that must be rejected.
fn check_invalid(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let Some(spec) = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# expect-error:"))
    else {
        return vec!["an invalid script's first line must be `# expect-error: LINE: TEXT`".into()];
    };
    let (line, want) = spec
        .trim()
        .split_once(':')
        .expect("# expect-error: LINE: TEXT");
    let line: usize = line.trim().parse().expect("LINE is a number");
    let want = want.trim();
    let result = Script::load(path).and_then(|s| referee_for(&s).map(|_| ()));
    match result {
        Ok(()) => vec![format!(
            "was accepted; expected an error at line {line}: {want}"
        )],
        Err(e) if e.line != line || !e.message.contains(want) => {
            vec![format!(
                "wrong error: {e}\n    expected line {line}: {want}"
            )]
        }
        Err(e) if !e.to_string().starts_with(&path.display().to_string()) => {
            vec![format!("the error does not name the file: {e}")]
        }
        Err(_) => vec![],
    }
}

#[test]
fn every_scenario_replays_as_expected() {
    let scripts = common::all_scenario_scripts();
    assert!(scripts.len() >= 2, "no scenarios found");
    let mut failures = Vec::new();
    for path in &scripts {
        let invalid = path.components().any(|c| c.as_os_str() == "invalid");
        let problems = if invalid {
            check_invalid(path)
        } else {
            check_script(path)
        };
        for p in problems {
            failures.push(format!("{}: {p}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!("{} scenario scripts checked", scripts.len());
}

#[test]
fn the_matcher_itself_rejects_what_differs() {
    let g: Value =
        serde_json::json!({"event": "flag", "kind": "missed_swap", "cells": [[2, 1], [0, 0]]});
    assert!(subset_match(
        &serde_json::json!({"event": "flag", "cells": [[0, 0], [2, 1]]}),
        &g
    ));
    assert!(!subset_match(
        &serde_json::json!({"event": "flag", "cells": [[0, 0]]}),
        &g
    ));
    assert!(!subset_match(
        &serde_json::json!({"kind": "missed_flip"}),
        &g
    ));
    assert!(!subset_match(&serde_json::json!({"rule": "EP-X"}), &g));
}

/// Every scenario's setup, written back as TOML (what a journal keeps),
/// reads as the same typed setup, and its steps replay to the same events
/// from it: a setup loses nothing on its way through the journal.
#[test]
fn every_scenario_setup_round_trips_through_its_toml() {
    let mut checked = 0;
    for path in common::all_scenario_scripts() {
        if path.components().any(|c| c.as_os_str() == "invalid") {
            continue;
        }
        let script = Script::load(&path).unwrap();
        let text = script.setup_toml();
        let mut back = Script::parse("setup", &text)
            .unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()));
        assert_eq!(back.setup, script.setup, "{}\n{text}", path.display());
        back.steps = script.steps.clone();
        assert_eq!(
            replay(&back).unwrap(),
            replay(&script).unwrap(),
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked > 100, "{checked} scenarios");
}
