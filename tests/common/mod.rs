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
