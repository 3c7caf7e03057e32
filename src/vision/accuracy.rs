//! Scoring recognition against the truth of rendered frames: the accuracy
//! report over `fixtures/frames/`, and the tests' yardstick.
//!
//! A reading is compared with the truth after the best of the four
//! quarter-rotations and a translation: without a calibration the
//! recogniser names cells from the layout as the camera sees it, which is
//! the truth turned and shifted.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::table::{Cell, Table, Token};
use crate::vision::recognise::{Deck, Recogniser, Recognition};
use crate::vision::templates::DeckModel;

/// The expected observation of one frame (see
/// [`truth_toml`](crate::vision::scene::truth_toml)).
#[derive(Clone, Debug, PartialEq)]
pub struct Truth {
    pub busy: bool,
    pub table: Table,
}

impl Truth {
    /// Reads a truth file: `[[step]]` entries with `busy = true`, or an
    /// `origin` and a `table` grid.
    pub fn parse(file: &str, text: &str) -> Result<Truth, String> {
        let doc: toml::Table = text.parse().map_err(|e| format!("{file}: {e}"))?;
        let mut truth = Truth {
            busy: false,
            table: Table::new(),
        };
        let steps = doc
            .get("step")
            .and_then(|s| s.as_array())
            .ok_or_else(|| format!("{file}: no [[step]]"))?;
        for step in steps {
            if step.get("busy").and_then(|b| b.as_bool()) == Some(true) {
                truth.busy = true;
            }
            if let Some(grid) = step.get("table").and_then(|t| t.as_str()) {
                let origin = step
                    .get("origin")
                    .and_then(|o| o.as_array())
                    .and_then(|o| Some((o.first()?.as_integer()?, o.get(1)?.as_integer()?)))
                    .unwrap_or((0, 0));
                let origin = Cell::new(origin.0 as i32, origin.1 as i32);
                truth.table = Table::parse_grid(grid, origin)
                    .map_err(|e| format!("{file}: table line {}: {}", e.line + 1, e.message))?;
                if step.get("thrones").is_some() {
                    truth.table = with_thrones(file, step)?;
                }
            }
        }
        Ok(truth)
    }

    pub fn load(path: &Path) -> Result<Truth, String> {
        let text = fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Truth::parse(&path.display().to_string(), &text)
    }
}

/// A step whose grid has `thrones` beside it, read as a table script
/// reads it.
fn with_thrones(file: &str, step: &toml::Value) -> Result<Table, String> {
    let mut doc = toml::Table::new();
    doc.insert("game".into(), toml::Value::from("enprise"));
    doc.insert("step".into(), toml::Value::Array(vec![step.clone()]));
    let text = toml::to_string(&doc).map_err(|e| format!("{file}: {e}"))?;
    let script = crate::script::Script::parse(file, &text).map_err(|e| e.to_string())?;
    script
        .observations()
        .find_map(|o| match o {
            crate::observation::Observation::Table(t) => Some(t.clone()),
            _ => None,
        })
        .ok_or_else(|| format!("{file}: no table"))
}

/// Counts over cells (and frames).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub frames: usize,
    /// Frames whose truth has a hand over a card.
    pub busy_frames: usize,
    /// Of those, frames the recogniser called busy.
    pub busy_called: usize,
    /// Frames called busy with no hand over a card (a hand elsewhere over
    /// the table counts too: harmless, the frame is only not judged).
    pub busy_extra: usize,
    /// Cards in the truth of frames that are not busy.
    pub cells: usize,
    pub correct: usize,
    /// Read as a different card, or a card read where there is none: the
    /// one thing that must never happen.
    pub confident_wrong: usize,
    /// Seen but reported `??`.
    pub unreadable: usize,
    /// Not reported at all.
    pub missed: usize,
    /// In busy frames, cells read confidently but wrong (also counted in
    /// `confident_wrong`).
    pub busy_wrong: usize,
}

impl Score {
    pub fn add(&mut self, o: &Score) {
        self.frames += o.frames;
        self.busy_frames += o.busy_frames;
        self.busy_called += o.busy_called;
        self.busy_extra += o.busy_extra;
        self.cells += o.cells;
        self.correct += o.correct;
        self.confident_wrong += o.confident_wrong;
        self.unreadable += o.unreadable;
        self.missed += o.missed;
        self.busy_wrong += o.busy_wrong;
    }

    pub fn accuracy(&self) -> f64 {
        self.correct as f64 / self.cells.max(1) as f64
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:>4} frames {:>5} cells  {:>6.2}% correct  {:>3} confident-wrong  {:>4} unreadable  {:>4} missed  busy {}/{} (+{} extra)",
            self.frames,
            self.cells,
            100.0 * self.accuracy(),
            self.confident_wrong,
            self.unreadable,
            self.missed,
            self.busy_called,
            self.busy_frames,
            self.busy_extra,
        )
    }
}

/// Turns a cell by `q` quarter-turns about the origin.
fn turn(c: Cell, q: u8) -> Cell {
    match q % 4 {
        0 => c,
        1 => Cell::new(-c.row, c.col),
        2 => Cell::new(-c.col, -c.row),
        _ => Cell::new(c.row, -c.col),
    }
}

/// The reading's cells mapped onto the truth's: the quarter-turn and shift
/// that put most read cells on true cells.
pub fn align(truth: &Table, read: &Table) -> (u8, Cell) {
    // Most cells on cards first, then most cards agreeing.
    let mut best = ((0usize, 0usize), 0u8, Cell::new(0, 0));
    for q in 0..4u8 {
        let turned: Vec<(Cell, Token)> = read.iter().map(|(c, t)| (turn(c, q), t)).collect();
        // Candidate shifts: those that put some read cell on some true cell.
        let mut shifts: Vec<Cell> = Vec::new();
        for &(r, _) in &turned {
            for (t, _) in truth.iter() {
                shifts.push(Cell::new(t.col - r.col, t.row - r.row));
            }
        }
        shifts.sort();
        shifts.dedup();
        for d in shifts {
            let (mut on, mut same) = (0, 0);
            for &(c, t) in &turned {
                if let Some(want) = truth.get(c.plus(d)) {
                    on += 1;
                    same += usize::from(want == t);
                }
            }
            let hits = (on, same);
            if hits > best.0 {
                best = (hits, q, d);
            }
        }
    }
    (best.1, best.2)
}

/// Scores one frame's reading against its truth.
pub fn score(truth: &Truth, rec: &Recognition) -> Score {
    let mut s = Score {
        frames: 1,
        ..Score::default()
    };
    let read = rec.table();
    let (q, d) = align(&truth.table, &read);
    let mapped: Table = read.iter().map(|(c, t)| (turn(c, q).plus(d), t)).collect();
    if truth.busy {
        s.busy_frames = 1;
        s.busy_called = usize::from(rec.busy);
    } else if rec.busy {
        s.busy_extra = 1;
    }
    for (cell, token) in mapped.iter() {
        let wrong = match (token, truth.table.get(cell)) {
            (Token::Unreadable, _) => false,
            (t, Some(want)) => t != want,
            (_, None) => true,
        };
        if wrong {
            s.confident_wrong += 1;
            if truth.busy {
                s.busy_wrong += 1;
            }
        }
    }
    // Busy frames are not judged, so only their wrong cards count.
    if !truth.busy {
        for (cell, want) in truth.table.iter() {
            s.cells += 1;
            match mapped.get(cell) {
                Some(t) if t == want => s.correct += 1,
                Some(Token::Unreadable) => s.unreadable += 1,
                Some(_) => {}
                None => s.missed += 1,
            }
        }
    }
    s
}

/// The frames of a fixture set: each image with its truth file, in name
/// order.
pub fn frames_of(dir: &Path) -> Result<Vec<(PathBuf, PathBuf)>, String> {
    let mut out = Vec::new();
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: cannot list: {e}", dir.display()))?;
    for e in entries {
        let path = e.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        let ext = path
            .extension()
            .and_then(|x| x.to_str())
            .map(str::to_ascii_lowercase);
        if matches!(ext.as_deref(), Some("png" | "jpg" | "jpeg")) {
            let truth = path.with_extension("toml");
            if truth.exists() {
                out.push((path, truth));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The recogniser a fixture set asks for: the bundled deck, or the deck
/// learned from the faces its `DECK` file names (relative to `root`, the
/// repository).
pub fn recogniser_for(set: &Path, root: &Path) -> Result<Recogniser, String> {
    let deck_file = set.join("DECK");
    if !deck_file.exists() {
        return Ok(Recogniser::bundled());
    }
    let faces =
        fs::read_to_string(&deck_file).map_err(|e| format!("{}: {e}", deck_file.display()))?;
    let model = DeckModel::learn_dir(&root.join(faces.trim())).map_err(|e| e.to_string())?;
    Ok(Recogniser::new(Deck::Learned(Box::new(model)), None))
}

/// Recognises every frame of a set and scores it; also each frame's time.
pub fn run_set(set: &Path, r: &Recogniser) -> Result<(Score, Vec<std::time::Duration>), String> {
    let mut total = Score::default();
    let mut times = Vec::new();
    for (image, truth) in frames_of(set)? {
        let truth = Truth::load(&truth)?;
        let img = image::open(&image)
            .map_err(|e| format!("{}: {e}", image.display()))?
            .to_rgb8();
        let start = std::time::Instant::now();
        let rec = r.recognise(&img);
        times.push(start.elapsed());
        total.add(&score(&truth, &rec));
    }
    Ok((total, times))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::recognise::Reading;

    fn t(text: &str) -> Table {
        Table::parse_grid(text, Cell::new(0, 0)).unwrap()
    }

    fn rec(table: &Table, busy: bool) -> Recognition {
        Recognition {
            busy,
            cells: table
                .iter()
                .map(|(cell, token)| Reading {
                    cell,
                    token,
                    confidence: 0.9,
                })
                .collect(),
            note: None,
        }
    }

    #[test]
    fn a_turned_and_shifted_reading_scores_as_correct() {
        let truth = Truth {
            busy: false,
            table: t("wK bQ\n## ..\n.. rP\n"),
        };
        // The same layout turned a quarter clockwise and moved.
        let read: Table = truth
            .table
            .iter()
            .map(|(c, tok)| (turn(c, 3).plus(Cell::new(5, -2)), tok))
            .collect();
        let s = score(&truth, &rec(&read, false));
        assert_eq!((s.cells, s.correct, s.confident_wrong), (4, 4, 0));
    }

    #[test]
    fn wrong_unreadable_missed_and_extra_cards_are_told_apart() {
        let truth = Truth {
            busy: false,
            table: t("wK bQ rB uN\n"),
        };
        let s = score(&truth, &rec(&t("wK bK ?? .. yP\n"), false));
        assert_eq!(s.correct, 1);
        assert_eq!(s.unreadable, 1);
        assert_eq!(s.missed, 1);
        // bQ read as bK, and a card where there is none.
        assert_eq!(s.confident_wrong, 2);
    }

    #[test]
    fn busy_frames_count_only_wrong_cards() {
        let truth = Truth {
            busy: true,
            table: t("wK bQ\n"),
        };
        let s = score(&truth, &rec(&t("wK ??\n"), true));
        assert_eq!((s.cells, s.busy_frames, s.busy_called), (0, 1, 1));
        assert_eq!(s.confident_wrong, 0);
        let s = score(&truth, &rec(&t("wK rQ\n"), false));
        assert_eq!((s.busy_called, s.busy_wrong), (0, 1));
    }

    #[test]
    fn truth_files_parse_as_written() {
        let text = "# scene\n[[step]]\nbusy = true\n\n[[step]]\norigin = [2, -1]\ntable = \"\"\"\nwK ..\n.. ##\n\"\"\"\n";
        let tr = Truth::parse("x.toml", text).unwrap();
        assert!(tr.busy);
        assert_eq!(tr.table.get(Cell::new(2, -1)), Token::parse("wK").unwrap());
        assert_eq!(tr.table.get(Cell::new(3, 0)), Some(Token::Down));
        assert!(
            Truth::parse("y.toml", "nonsense = [")
                .unwrap_err()
                .starts_with("y.toml")
        );
    }
}
