//! Every relative link in the repository's Markdown leads to a file or
//! folder of the clone, and a link to a heading (`page.md#heading`, or
//! `#heading` in the page itself) to a heading that page has: a page that
//! sends a reader to a moved file or section, or to the team's shared
//! folder (which a clone does not have), is a broken page.

use std::path::{Path, PathBuf};

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                markdown_files(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// The targets of `[text](target)` links outside fenced code blocks and
/// code spans, with the line each is on.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans are not links.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n + 1, after[..end].trim().to_string()));
            rest = &after[end..];
        }
    }
    out
}

/// The anchors of a Markdown page's headings, as GitHub makes them:
/// lower case, spaces to hyphens, punctuation other than `-` and `_`
/// dropped.
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            !fenced && l.starts_with('#')
        })
        .map(|l| {
            l.trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    let page = "# Top\n## The camera's commands in detail\n```\n# not a heading\n```\n### Set up a webcam, then calibrate\n";
    assert_eq!(
        anchors(page),
        [
            "top",
            "the-cameras-commands-in-detail",
            "set-up-a-webcam-then-calibrate"
        ]
    );
}

#[test]
fn every_relative_link_in_the_docs_resolves_inside_the_clone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    assert!(files.len() >= 5, "{files:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, target) in links(&text) {
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            // Web addresses (a scheme before any slash) are not files.
            let scheme = path.find(':').is_some_and(|c| !path[..c].contains('/'));
            if scheme {
                continue;
            }
            checked += 1;
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let inside = resolved.canonicalize().is_ok_and(|r| r.starts_with(&root));
            let heading_there = match anchor {
                Some(a) if resolved.extension().is_some_and(|e| e == "md") => {
                    std::fs::read_to_string(&resolved)
                        .is_ok_and(|t| anchors(&t).iter().any(|h| h == a))
                }
                _ => true,
            };
            if !inside || !heading_there {
                broken.push(format!(
                    "{}:{line}: {target}",
                    file.strip_prefix(&root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} links found: is the parser right?"
    );
    assert!(
        broken.is_empty(),
        "links that lead nowhere in a clone:\n{}",
        broken.join("\n")
    );
}
