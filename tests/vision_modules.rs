//! The camera crate's modules, as the crate layering is checked in
//! `layers.rs`: read from the source, the imports between modules.
//!
//! - The staged reader's modules (`pipeline/`) import only stages before
//!   them (and the helpers, which import no stage): a frame flows one way.
//! - No module of the staged reader is in an import cycle, and no module
//!   joins the cycles the patched reader still has ([`OLD_CYCLE`], which
//!   go when the staged reader replaces it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The staged reader's modules in the order a frame flows through them;
/// the helpers first.
const STAGES: [&str; 14] = [
    "geometry",
    "plane",
    "regions",
    "edge_fit",
    "table_model",
    "learned_finder",
    "finding",
    "lattice",
    "occupancy",
    "faces",
    "learned",
    "identify",
    "reading",
    "mod",
];

/// The patched reader's modules and those entangled with them, which import
/// each other in a cycle until the patched reader is deleted. The list may
/// only shrink. (`outline` left it when the geometry it took from `cards`
/// moved beneath both, to `shapes`; `finder` is `cards`' own driver, moved
/// to a file of its own, and in the cycle as it was inside `cards`.)
const OLD_CYCLE: [&str; 9] = [
    "calibration",
    "cards",
    "finder",
    "grow",
    "lattice",
    "photo",
    "recognise",
    "scene",
    "templates",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/arbiter-vision/src")
}

/// The names a source text imports after `prefix` (`crate::`,
/// `super::`): the first path segment, or each one of a `{...}` group.
fn imported(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices(prefix) {
        let rest = &text[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            for part in inner.split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// The code of a module: its unit tests left out (a test may import what
/// it likes), and its comments (a doc link is not an import).
fn code_of(text: &str) -> String {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Module name → the modules it imports: top-level modules by their name,
/// the staged reader's as `pipeline::NAME`; other folders count as their
/// top-level module.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for e in std::fs::read_dir(src()).expect("the vision crate's source lists") {
        let path = e.expect("an entry").path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            for f in std::fs::read_dir(&path).expect("a module folder lists") {
                let f = f.expect("an entry").path();
                let stem = f.file_stem().unwrap().to_string_lossy().to_string();
                let module = if name == "pipeline" {
                    format!("pipeline::{stem}")
                } else {
                    name.clone()
                };
                files.push((module, f));
            }
        } else if name != "lib" {
            files.push((name, path));
        }
    }
    for (module, path) in files {
        let text = std::fs::read_to_string(&path).expect("a module reads");
        let text = &code_of(&text);
        let deps = g.entry(module.clone()).or_default();
        for name in imported(text, "crate::") {
            if name == "pipeline" {
                for sub in imported(text, "crate::pipeline::") {
                    // An item of the pipeline's own module (`read_frame`).
                    let sub = if STAGES.contains(&sub.as_str()) {
                        sub
                    } else {
                        "mod".to_string()
                    };
                    deps.insert(format!("pipeline::{sub}"));
                }
            } else {
                deps.insert(name);
            }
        }
        if !module.contains("::") && path.parent().is_none_or(|d| d == src()) {
            // In a top-level module, `super` is the crate.
            for name in imported(text, "super::") {
                deps.insert(name);
            }
        }
        if let Some(stage) = module.strip_prefix("pipeline::") {
            for name in imported(text, "super::") {
                if STAGES.contains(&name.as_str()) && name != stage {
                    deps.insert(format!("pipeline::{name}"));
                }
            }
            if stage == "mod" {
                for name in STAGES {
                    if text.contains(&format!("{name}::")) && name != "mod" {
                        deps.insert(format!("pipeline::{name}"));
                    }
                }
            }
        }
        deps.remove(&module);
    }
    g
}

#[test]
fn each_stage_imports_only_the_stages_before_it() {
    let g = graph();
    for (i, stage) in STAGES.iter().enumerate() {
        let module = format!("pipeline::{stage}");
        let deps = g
            .get(&module)
            .unwrap_or_else(|| panic!("{module} is in the graph"));
        for d in deps {
            if let Some(other) = d.strip_prefix("pipeline::") {
                let j = STAGES
                    .iter()
                    .position(|s| *s == other)
                    .expect("a known stage");
                assert!(j < i, "{module} imports {d}, a later stage");
            }
        }
    }
    // The helpers import no stage.
    for helper in ["geometry", "plane", "regions", "edge_fit"] {
        let deps = &g[&format!("pipeline::{helper}")];
        assert!(
            deps.iter()
                .all(|d| ["pipeline::geometry", "pipeline::plane"].contains(&d.as_str())),
            "{helper} imports {deps:?}"
        );
    }
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct State<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        let g = s.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !g.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_module_but_the_patched_readers_is_in_an_import_cycle() {
    let g = graph();
    if std::env::var_os("SHOW_CYCLES").is_some() {
        eprintln!("{:?}", cycles(&g));
    }
    for comp in cycles(&g) {
        for m in &comp {
            assert!(
                OLD_CYCLE.contains(&m.as_str()),
                "{m} is in an import cycle: {comp:?}"
            );
        }
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("a".into(), ["b".to_string()].into());
    g.insert("b".into(), ["c".to_string()].into());
    g.insert("c".into(), ["a".to_string()].into());
    g.insert("d".into(), ["a".to_string()].into());
    let found = cycles(&g);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].len(), 3);
    assert_eq!(
        imported(
            "use crate::{cards, print::x};\nuse crate::frames;",
            "crate::"
        ),
        ["cards", "frames", "print"].map(String::from).into()
    );
}
